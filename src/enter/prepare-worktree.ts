// Makes a new worktree ready to work in: the checkout's ignored local files copied in, big ignored
// folders linked instead of installed again.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import { InputError } from '../record/settings.js'
import { isReallyInside } from '../os/paths.js'
import { identityOf } from '../os/untrusted-files.js'
import { quoted } from '../os/quote.js'

export const DEFAULT_INCLUDE_FILE = '.worktreeinclude'

/** The include file to use, or undefined; one named explicitly must exist. */
export function resolveIncludeFile(toplevel: string, given: string | undefined): string | undefined {
  const file = path.resolve(toplevel, given ?? DEFAULT_INCLUDE_FILE)
  const stat = fs.statSync(file, { throwIfNoEntry: false })
  // A named pipe would hold git, which reads it, until it is stopped: refused before anything is made.
  if (stat && !stat.isFile())
    throw new InputError(
      given === undefined ? 'include-file (default)' : 'include-file',
      given ?? DEFAULT_INCLUDE_FILE,
      `${quoted(file)} is not a regular file`,
      'Name a gitignore-style file in the checkout.'
    )
  // The file is read in the checkout, as its description says; through a link too, it stays there.
  const inside = stat && path.relative(fs.realpathSync(toplevel), fs.realpathSync(file))
  if (inside !== undefined && (inside.startsWith('..') || path.isAbsolute(inside)))
    throw new InputError(
      given === undefined ? 'include-file (default)' : 'include-file',
      given ?? DEFAULT_INCLUDE_FILE,
      `${quoted(file)} is outside the checkout ${quoted(toplevel)}`,
      'Name a gitignore-style file in the checkout, such as .worktreeinclude.'
    )
  if (stat) return file
  if (given !== undefined)
    throw new InputError('include-file', given, `there is no file ${quoted(file)}`, 'Name a gitignore-style file in the checkout, or remove include-file.')
  return undefined
}

/**
 * The folders to link: those that exist in the checkout. A folder tracked in the base would be replaced
 * by the link, so it is refused: links are for ignored folders such as node_modules.
 */
export async function planLinks(git: Git, toplevel: string, baseSha: string, dirs: string[]): Promise<{ links: string[]; missing: string[] }> {
  if (!dirs.length) return { links: [], missing: [] }
  const tracked = (await git.exec(['ls-tree', '-z', '--name-only', baseSha, '--', ...dirs])).split('\0').filter(Boolean)
  if (tracked.length) {
    throw new InputError(
      'symlink-dirs',
      tracked[0],
      'it is tracked in the base commit, and a link would replace it',
      'Link only ignored folders, such as node_modules or .venv.'
    )
  }
  const isDir = (dir: string): boolean => fs.statSync(path.join(toplevel, dir), { throwIfNoEntry: false })?.isDirectory() ?? false
  return { links: dirs.filter(isDir), missing: dirs.filter(d => !isDir(d)) }
}

/**
 * Makes the folders above `file` inside the worktree, one by one, so that nothing is written through a
 * symbolic link the base commit tracks: returns why not, when a folder on the way is a link that leads
 * outside the worktree, or is not a folder.
 */
export function prepareParents(worktree: string, file: string): Omit<NotDone, 'file'> | undefined {
  let dir = worktree
  for (const segment of path
    .dirname(file)
    .split(/[\\/]/)
    .filter(s => s && s !== '.')) {
    dir = path.join(dir, segment)
    const stat = fs.lstatSync(dir, { throwIfNoEntry: false })
    if (!stat) fs.mkdirSync(dir)
    else if (stat.isSymbolicLink() && !isReallyInside(dir, worktree))
      return { why: `${quoted(path.relative(worktree, dir))} is a symbolic link to ${quoted(fs.readlinkSync(dir))}`, outside: true }
    else if (!stat.isSymbolicLink() && !stat.isDirectory()) return { why: `${quoted(path.relative(worktree, dir))} is not a folder`, outside: false }
  }
  return undefined
}

/**
 * Links each folder of the checkout into the worktree (a junction on Windows, where symbolic links need
 * Developer Mode); returns those not linked, with why.
 */
export function createLinks(toplevel: string, worktree: string, links: string[], platform: NodeJS.Platform = process.platform): NotDone[] {
  const skipped: NotDone[] = []
  for (const link of links) {
    const at = path.join(worktree, link)
    const blocked = prepareParents(worktree, link)
    if (blocked) {
      skipped.push({ file: link, ...blocked })
      continue
    }
    if (fs.lstatSync(at, { throwIfNoEntry: false })) {
      skipped.push({ file: link, why: 'already in the worktree', outside: false })
      continue
    }
    fs.symlinkSync(path.join(toplevel, link), at, platform === 'win32' ? 'junction' : 'dir')
  }
  return skipped
}

/** A file not copied or a folder not linked, and why: `outside` when a folder on the way leads out of the worktree. */
export interface NotDone {
  file: string
  why: string
  outside: boolean
}

export interface Copied {
  copied: string[]
  skipped: NotDone[]
  /** What each copy is: the sha256 of a file's bytes, or `link:<target>` (the job's, never the agent's work). */
  identities: Record<string, string>
}

/**
 * Copies every file of the checkout that the include file matches and git ignores (.env, local settings).
 * Tracked files are never copied, nothing in the worktree is overwritten, and a symbolic link is copied
 * only when it stays inside the checkout.
 */
export async function copyIncludedFiles(toplevel: string, worktree: string, includeFile: string, excludesFile: string): Promise<Copied> {
  const git = new Git(toplevel)
  // Untracked files that the include patterns match, then those of them that git ignores: by the checkout's
  // rules, its info/exclude and the job's core.excludesFile as they are now, before the agent runs.
  const matched = (await git.exec(['ls-files', '-z', '--others', '--ignored', `--exclude-from=${includeFile}`])).split('\0').filter(Boolean)
  if (!matched.length) return { copied: [], skipped: [], identities: {} }
  const check = await git.run(['-c', `core.excludesFile=${excludesFile}`, 'check-ignore', '-z', '--stdin'], { input: matched.join('\0') })
  if (check.exitCode > 1) throw new Error(`git check-ignore failed: ${check.stderr.trim()}`)
  const result: Copied = { copied: [], skipped: [], identities: {} }
  const root = fs.realpathSync(toplevel)
  for (const file of check.stdout.split('\0').filter(Boolean)) {
    const from = path.join(toplevel, file)
    const to = path.join(worktree, file)
    const stat = fs.lstatSync(from)
    const blocked = prepareParents(worktree, file)
    if (blocked) {
      result.skipped.push({ file, ...blocked })
      continue
    }
    if (fs.lstatSync(to, { throwIfNoEntry: false })) {
      result.skipped.push({ file, why: 'already in the worktree', outside: false })
      continue
    }
    if (stat.isSymbolicLink()) {
      const target = (() => {
        try {
          return fs.realpathSync(from)
        } catch {
          return undefined // dangling
        }
      })()
      if (!target || (target !== root && !target.startsWith(`${root}${path.sep}`))) {
        result.skipped.push({ file, why: 'a symbolic link leading outside the checkout', outside: false })
        continue
      }
      fs.symlinkSync(fs.readlinkSync(from), to)
    } else if (stat.isFile()) {
      fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL)
    } else {
      continue
    }
    result.copied.push(file)
    const identity = identityOf(worktree, file)
    if (identity) result.identities[file] = identity
  }
  return result
}
