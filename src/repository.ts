// The repository a job works in, and its registered worktrees, read from the repository's side.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git, GitError } from './git-command-manager.js'
import { InputError } from './input-helper.js'
import { samePath } from './paths.js'
import { parseWorktreeList, type WorktreeEntry } from './porcelain.js'

export interface Repository {
  /** Top level of the working tree the path belongs to. */
  toplevel: string
  commonDir: string
  git: Git
}

/** Opens the repository at `dir`; `input` names the input the path came from, for the error. */
export async function openRepository(dir: string, input: string): Promise<Repository> {
  const fix = 'Point it at a git checkout, for example the folder actions/checkout wrote.'
  if (!fs.existsSync(dir)) throw new InputError(input, dir, 'the folder does not exist', fix)
  const git = new Git(dir)
  const result = await git.run(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir'])
  const [toplevel, commonDir] = result.stdout.trim().split('\n')
  if (result.exitCode !== 0 || !toplevel || !commonDir) {
    throw new InputError(input, dir, 'it is not inside the working tree of a git repository', fix)
  }
  return { toplevel: path.normalize(toplevel), commonDir: path.normalize(commonDir), git: new Git(toplevel) }
}

/**
 * Another job's `git worktree add`, half-way through, makes `git worktree list` fail for a moment
 * ("failed to read .git/worktrees/<x>/commondir"); a listing is retried rather than serialised.
 */
export async function listWorktrees(repo: Repository, attempts = 5): Promise<WorktreeEntry[]> {
  for (let attempt = 1; ; attempt++) {
    const result = await repo.git.run(['worktree', 'list', '--porcelain'])
    if (result.exitCode === 0) return parseWorktreeList(result.stdout)
    if (attempt === attempts) throw new GitError(['worktree', 'list', '--porcelain'], result)
    await new Promise(resolve => setTimeout(resolve, 50 * attempt))
  }
}

/** The registered worktree at `p`, and whether it is the main one. */
export function findWorktree(entries: WorktreeEntry[], p: string): { entry: WorktreeEntry; isMain: boolean } | undefined {
  const index = entries.findIndex(e => samePath(e.path, p))
  return index === -1 ? undefined : { entry: entries[index], isMain: index === 0 }
}

/** The folder git registered for a worktree git dir (its `gitdir` file names the folder's .git), or undefined. */
export function folderOf(gitDir: string): string | undefined {
  try {
    const pointer = fs.readFileSync(path.join(gitDir, 'gitdir'), 'utf8').trim()
    return pointer ? path.dirname(path.resolve(gitDir, pointer)) : undefined
  } catch {
    return undefined // not a whole worktree entry
  }
}

/** The worktree's lock reason ('' when locked without one), or undefined when it is not locked. */
export function lockOf(gitDir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(gitDir, 'locked'), 'utf8').trim()
  } catch {
    return undefined
  }
}

/**
 * The git dir (.git/worktrees/<id>) that git registered for the worktree at `p`. Found from the
 * repository's side, never from the worktree's .git file, which whatever ran inside may have changed.
 */
export function adminDirOf(commonDir: string, p: string): string | undefined {
  return adminDirs(commonDir).find(dir => {
    const folder = folderOf(dir)
    return folder !== undefined && samePath(folder, p)
  })
}

/** Every worktree git dir of the repository (.git/worktrees/*). */
export function adminDirs(commonDir: string): string[] {
  const root = path.join(commonDir, 'worktrees')
  try {
    return fs.readdirSync(root).map(id => path.join(root, id))
  } catch {
    return []
  }
}

/** Git pinned to a worktree's registered git dir and folder, whatever its .git file says. */
export function worktreeGit(adminDir: string, p: string): Git {
  return new Git(p, [`--git-dir=${adminDir}`, `--work-tree=${p}`])
}

/**
 * Whether the folder is still the worktree git registered: 'intact', 'missing', or why not. A symlink in
 * its place may lead anywhere, and a .git file pointing elsewhere makes git speak of another repository:
 * neither is inspected or removed as ours.
 */
export function checkFolder(p: string, adminDir: string): string {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(p)
  } catch {
    return 'missing'
  }
  if (!stat.isDirectory()) return 'its path is no longer a plain folder (a symbolic link or a file took its place)'
  try {
    const pointer = /^gitdir: (.*)$/m.exec(fs.readFileSync(path.join(p, '.git'), 'utf8'))?.[1]
    if (pointer && samePath(path.resolve(p, pointer.trim()), adminDir)) return 'intact'
  } catch {
    // no .git file, or a folder in its place
  }
  return `its .git file no longer points to its git dir ${adminDir}`
}

/**
 * A folder whose .git file points into this repository's worktrees, at a git dir that no longer exists:
 * what is left of a worktree whose registration went (a cut-short add, a recreated repository).
 */
export function isOrphanFolder(commonDir: string, folder: string): boolean {
  try {
    const pointer = /^gitdir: (.*)$/m.exec(fs.readFileSync(path.join(folder, '.git'), 'utf8'))?.[1]?.trim()
    const gitDir = pointer && path.resolve(folder, pointer)
    return !!gitDir && samePath(path.dirname(gitDir), path.join(commonDir, 'worktrees')) && !fs.existsSync(gitDir)
  } catch {
    return false
  }
}
