// A branch that goes with its worktree, deleted only on proof that nothing is lost.
import * as path from 'node:path'
import type { Git } from '../git/git-command-manager.js'
import { adminDirs } from '../git/repository.js'
import { readSmall } from '../os/untrusted-files.js'
import { deleteRef } from '../git/worktree-refs.js'

/** What became of a branch that was to go with its worktree. */
export type BranchDeletion =
  { branch: string; deleted: true } | { branch: string; deleted: false; why: 'unseen' | 'moved' | 'checked-out' | 'unsaved' | 'missing'; detail?: string }

/**
 * Deletes a branch only on proof that nothing is lost: `seen`, the tip at which the gate counted its commits
 * (a commit that lands afterwards keeps it); or `savedBeyond`, a base beyond which the branch has no commit
 * (a branch whose worktree never got a gate: an add cut short). Never a
 * branch that a worktree, the main one included, has checked out.
 */
export async function deleteBranch(
  repo: { git: Git; commonDir: string },
  branch: string,
  proof: { seen: string | undefined } | { savedBeyond: string }
): Promise<BranchDeletion> {
  const ref = `refs/heads/${branch}`
  const heads = [repo.commonDir, ...adminDirs(repo.commonDir)].map(dir => readSmall(path.join(dir, 'HEAD'))?.trim())
  if (heads.includes(`ref: ${ref}`)) return { branch, deleted: false, why: 'checked-out' }
  let tip: string | undefined
  if ('seen' in proof) {
    tip = proof.seen
    if (!tip) return { branch, deleted: false, why: 'unseen' }
  } else {
    tip = await repo.git.resolveCommit(ref)
    if (!tip) return { branch, deleted: false, why: 'missing' }
    // Only its base saves a commit of a branch that no gate saw: a remote-tracking ref proves nothing.
    const unsaved = await repo.git.run(['log', '--format=%h', '-1', ref, '--not', proof.savedBeyond, '--'])
    if (unsaved.exitCode !== 0 || unsaved.stdout.trim() !== '') return { branch, deleted: false, why: 'unsaved' }
  }
  const deletion = await deleteRef(repo.git, ref, { log: repo.commonDir, from: tip })
  return deletion.exitCode === 0 ? { branch, deleted: true } : { branch, deleted: false, why: 'moved', detail: deletion.stderr.trim() }
}
