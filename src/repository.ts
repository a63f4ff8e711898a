// The repository a job works in, and its registered worktrees.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git, GitError } from './git-command-manager.js'
import { InputError } from './input-helper.js'
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
  return { toplevel, commonDir, git: new Git(toplevel) }
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

/** The path with every symlink resolved, as far as it exists. */
export function realPath(p: string): string {
  const rest: string[] = []
  let current = path.resolve(p)
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...rest)
    } catch {
      const parent = path.dirname(current)
      if (parent === current) return path.resolve(p)
      rest.unshift(path.basename(current))
      current = parent
    }
  }
}

export function samePath(a: string, b: string): boolean {
  return a === b || realPath(a) === realPath(b)
}

/** The registered worktree at `p`, and whether it is the main one. */
export function findWorktree(entries: WorktreeEntry[], p: string): { entry: WorktreeEntry; isMain: boolean } | undefined {
  const index = entries.findIndex(e => samePath(e.path, p))
  return index === -1 ? undefined : { entry: entries[index], isMain: index === 0 }
}

/**
 * The git dir (.git/worktrees/<id>) that git registered for the worktree at `p`. Found from the
 * repository's side, never from the worktree's .git file, which whatever ran inside may have changed.
 */
export function adminDirOf(commonDir: string, p: string): string | undefined {
  return adminDirs(commonDir).find(dir => {
    try {
      return samePath(path.dirname(fs.readFileSync(path.join(dir, 'gitdir'), 'utf8').trim()), p)
    } catch {
      return false // not a whole worktree entry
    }
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

/** Git pinned to a worktree's registered git dir and folder. */
export function worktreeGit(adminDir: string, p: string): Git {
  return new Git(p, [`--git-dir=${adminDir}`, `--work-tree=${p}`])
}
