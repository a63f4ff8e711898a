// What makes a kept worktree survive, whole, the next job's actions/checkout of the repository it belongs to,
// done when the job ends (never while it runs: the agent goes on working, and pushing, on its branch).
// Checkout detaches the main worktree's HEAD, deletes every local branch (a branch checked out in a worktree
// makes it fail and recreate the repository, every worktree's git dir with it), runs `git sparse-checkout
// disable` and unsets extensions.worktreeConfig, which turns every other worktree's own configuration off.
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Git } from '../git/git-command-manager.js'
import { worktreeGit, type Repository } from '../git/repository.js'
import { LockTimeoutError, withRepositoryLock } from '../git/repository-lock.js'
import { readSmall } from '../os/untrusted-files.js'
import { writeRef } from '../git/worktree-refs.js'

/** What decides whether and how a kept worktree is made safe from the next actions/checkout. */
export interface NextCheckoutFacts {
  /** The machine goes with the job (GitHub-hosted): no later checkout comes. */
  ephemeral: boolean
  /** The repository is in the workspace, which the next job's actions/checkout prepares. */
  inWorkspace: boolean
  /** The worktree's branch was created with it: it may be detached from it. */
  created: boolean
}

/**
 * Only where a later actions/checkout comes: on a machine that stays, for a repository in the workspace. A
 * created worktree on a branch is detached from it at its tip; a sparse one reads its own configuration
 * whether or not extensions.worktreeConfig is set. Returns the branch it was detached from.
 */
export async function protectFromNextCheckout(
  repo: Repository,
  facts: NextCheckoutFacts,
  gitDir: string,
  folder: string,
  lock?: { timeoutMs: number }
): Promise<{ detached?: string }> {
  if (facts.ephemeral || !facts.inWorkspace) return {}
  await ownSparseConfig(repo, gitDir, lock)
  return { detached: facts.created ? await detachFromBranch(gitDir, folder) : undefined }
}

async function detachFromBranch(gitDir: string, folder: string): Promise<string | undefined> {
  const head = readSmall(path.join(gitDir, 'HEAD'))?.trim() ?? ''
  if (!head.startsWith('ref: refs/heads/')) return undefined
  const git = worktreeGit(gitDir, fs.existsSync(folder) ? folder : gitDir)
  // At the branch's tip now: a commit made since the gate looked stays checked out.
  const tip = await git.resolveCommit('HEAD')
  if (!tip) return undefined
  const result = await writeRef(git, 'HEAD', tip, { log: gitDir, message: 'agent-worktree: kept, detached from its branch', noDeref: true })
  return result.exitCode === 0 ? head.slice('ref: refs/heads/'.length) : undefined
}

/**
 * The shared config's include of the worktree's own config.worktree, for its git dir alone (includeIf gitdir,
 * as actions/checkout includes its credentials): a sparse worktree stays sparse after checkout unsets
 * extensions.worktreeConfig. While the extension is set, git reads that file twice, to the same effect.
 */
function includeOf(gitDir: string): { key: string; value: string } {
  // A pattern: the characters wildmatch reads are escaped.
  const pattern = gitDir.replace(/\\/g, '/').replace(/[*?[\\]/g, '\\$&')
  return { key: `includeIf.gitdir:${pattern}.path`, value: path.join(gitDir, 'config.worktree') }
}

async function ownSparseConfig(repo: Repository, gitDir: string, lock?: { timeoutMs: number }): Promise<void> {
  if (!fs.existsSync(path.join(gitDir, 'info', 'sparse-checkout')) || !fs.existsSync(path.join(gitDir, 'config.worktree'))) return
  if (/[\r\n]/.test(gitDir) || hasInclude(repo.commonDir, gitDir)) return
  const { key, value } = includeOf(gitDir)
  try {
    // A write to the shared config, which other legs write too.
    await withRepositoryLock(repo.commonDir, () => repo.git.run(['config', '--file', path.join(repo.commonDir, 'config'), key, value]), lock)
  } catch (error) {
    // Not work that could be lost: the worktree stays as it is, and `git sparse-checkout set` makes it sparse again.
    if (!(error instanceof LockTimeoutError)) throw error
  }
}

function hasInclude(commonDir: string, gitDir: string): boolean {
  return (readSmall(path.join(commonDir, 'config')) ?? '').includes(path.join(gitDir, 'config.worktree'))
}

/** Drops the include when the worktree goes (the caller holds the repository lock): no git call when there is none. */
export async function dropSparseInclude(git: Git, commonDir: string, gitDir: string): Promise<void> {
  if (!hasInclude(commonDir, gitDir)) return
  await git.run(['config', '--file', path.join(commonDir, 'config'), '--unset-all', includeOf(gitDir).key])
}
