// Paths compared the way each file system compares them: the one place that knows that git prints
// C:/a/repo where node says c:\a\repo, that /var is /private/var on macOS, and which systems ignore case.
import * as fs from 'node:fs'
import * as path from 'node:path'
type Platform = NodeJS.Platform

function api(platform: Platform): path.PlatformPath {
  return platform === 'win32' ? path.win32 : path.posix
}

/** Case is ignored on Windows and, by default, on macOS (APFS); existing paths are compared by identity instead. */
function foldsCase(platform: Platform): boolean {
  return platform === 'win32' || platform === 'darwin'
}

/** A spelling of `p` that is equal for every spelling of the same path on `platform` (as far as text can tell). */
export function normalizePath(p: string, platform: Platform = process.platform): string {
  const paths = api(platform)
  let out = paths.resolve(platform === 'win32' ? p.replace(/\//g, '\\') : p)
  if (out.length > paths.parse(out).root.length) out = out.replace(/[\\/]+$/, '')
  return foldsCase(platform) ? out.toLowerCase() : out
}

/** The path with every symbolic link (and, on Windows, every 8.3 short name) resolved, as far as it exists. */
export function realPath(p: string, platform: Platform = process.platform): string {
  const paths = api(platform)
  const resolve = platform === 'win32' ? fs.realpathSync.native : fs.realpathSync
  const rest: string[] = []
  let current = paths.resolve(p)
  for (;;) {
    try {
      return paths.join(resolve(current), ...rest)
    } catch {
      const parent = paths.dirname(current)
      if (parent === current) return paths.resolve(p)
      rest.unshift(paths.basename(current))
      current = parent
    }
  }
}

type Stat = (p: string) => { dev: number; ino: number } | undefined

const statOf: Stat = p => fs.statSync(p, { throwIfNoEntry: false })

/**
 * Whether two spellings name the same folder or file. Two that exist are the same exactly when they are
 * one file (device and inode): that is how the file system itself decides, case rules included.
 */
export function samePath(a: string, b: string, platform: Platform = process.platform, stat: Stat = statOf): boolean {
  const [sa, sb] = [stat(a), stat(b)]
  // A file system without inode numbers (FAT) reports 0: then only the text can tell.
  if (sa && sb && (sa.ino !== 0 || sb.ino !== 0)) return sa.dev === sb.dev && sa.ino === sb.ino
  if (normalizePath(a, platform) === normalizePath(b, platform)) return true
  return normalizePath(realPath(a, platform), platform) === normalizePath(realPath(b, platform), platform)
}

/** Whether `child` is `parent` or lies below it, by text after normalisation. */
export function isInside(child: string, parent: string, platform: Platform = process.platform): boolean {
  const c = normalizePath(child, platform)
  const p = normalizePath(parent, platform)
  if (c === p) return true
  const sep = platform === 'win32' ? '\\' : '/'
  return c.startsWith(p.endsWith(sep) ? p : p + sep)
}

/** Like isInside, with symbolic links resolved on both sides first: where a write to `child` really lands. */
export function isReallyInside(child: string, parent: string, platform: Platform = process.platform): boolean {
  return isInside(realPath(child, platform), realPath(parent, platform), platform)
}

/**
 * Makes `dir` and the folders above it that are missing, one at a time: node's recursive mkdir loops forever,
 * deaf to signals, where mkdir says ENOENT of a folder whose parent exists (/proc). A folder that appears
 * meanwhile (a parallel job) is taken as it is. Returns the folders it made, the outermost first.
 */
export function makeFolders(dir: string): string[] {
  const missing: string[] = []
  for (let d = path.resolve(dir); !fs.existsSync(d) && path.dirname(d) !== d; d = path.dirname(d)) missing.unshift(d)
  const made: string[] = []
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder)
      made.push(folder)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  return made
}
