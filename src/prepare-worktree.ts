// Makes a new worktree ready to work in: the checkout's ignored local files copied in, big ignored
// folders linked instead of installed again.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from './git-command-manager.js'
import { InputError } from './input-helper.js'

export const DEFAULT_INCLUDE_FILE = '.worktreeinclude'

/** The include file to use, or undefined; one named explicitly must exist. */
export function resolveIncludeFile(toplevel: string, given: string | undefined): string | undefined {
  const file = path.resolve(toplevel, given ?? DEFAULT_INCLUDE_FILE)
  if (fs.existsSync(file)) return file
  if (given !== undefined)
    throw new InputError('include-file', given, `there is no file ${file}`, 'Name a gitignore-style file in the checkout, or remove include-file.')
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

/** Links each folder of the checkout into the worktree; returns those whose place was taken. */
export function createLinks(toplevel: string, worktree: string, links: string[]): string[] {
  const taken: string[] = []
  for (const link of links) {
    const at = path.join(worktree, link)
    if (fs.lstatSync(at, { throwIfNoEntry: false })) {
      taken.push(link)
      continue
    }
    fs.mkdirSync(path.dirname(at), { recursive: true })
    fs.symlinkSync(path.join(toplevel, link), at, 'dir')
  }
  return taken
}

/** Links this action made that are still as it made them: the gate does not count them, removal unlinks them. */
export function ownLinks(toplevel: string, worktree: string, links: string[] = []): string[] {
  return links.filter(link => {
    try {
      const at = path.join(worktree, link)
      return fs.lstatSync(at).isSymbolicLink() && fs.readlinkSync(at) === path.join(toplevel, link)
    } catch {
      return false
    }
  })
}

export interface Copied {
  copied: string[]
  /** Files not copied, with why. */
  skipped: string[]
}

/**
 * Copies every file of the checkout that the include file matches and git ignores (.env, local settings).
 * Tracked files are never copied, nothing in the worktree is overwritten, and a symbolic link is copied
 * only when it stays inside the checkout.
 */
export async function copyIncludedFiles(toplevel: string, worktree: string, includeFile: string): Promise<Copied> {
  const git = new Git(toplevel)
  // Untracked files that the include patterns match, then those of them that git ignores.
  const matched = (await git.exec(['ls-files', '-z', '--others', '--ignored', `--exclude-from=${includeFile}`])).split('\0').filter(Boolean)
  if (!matched.length) return { copied: [], skipped: [] }
  const check = await git.run(['check-ignore', '-z', '--stdin'], matched.join('\0'))
  if (check.exitCode > 1) throw new Error(`git check-ignore failed: ${check.stderr.trim()}`)
  const result: Copied = { copied: [], skipped: [] }
  const root = fs.realpathSync(toplevel)
  for (const file of check.stdout.split('\0').filter(Boolean)) {
    const from = path.join(toplevel, file)
    const to = path.join(worktree, file)
    const stat = fs.lstatSync(from)
    if (fs.lstatSync(to, { throwIfNoEntry: false })) {
      result.skipped.push(`${file} (already in the worktree)`)
      continue
    }
    fs.mkdirSync(path.dirname(to), { recursive: true })
    if (stat.isSymbolicLink()) {
      const target = (() => {
        try {
          return fs.realpathSync(from)
        } catch {
          return undefined // dangling
        }
      })()
      if (!target || (target !== root && !target.startsWith(`${root}${path.sep}`))) {
        result.skipped.push(`${file} (a symbolic link leading outside the checkout)`)
        continue
      }
      fs.symlinkSync(fs.readlinkSync(from), to)
    } else if (stat.isFile()) {
      fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL)
    } else {
      continue
    }
    result.copied.push(file)
  }
  return result
}
