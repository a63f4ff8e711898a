// The push input: at exit, the worktree's HEAD goes to a branch of the remote the repository had at enter, by
// the rescue's sealed push (no hook, setting or credential of the agent's takes part). What it pushed is then on
// a remote-tracking ref, as after any push, and the gate counts it saved: so the Git LFS objects its commits point
// to go first, as a rescue's do, and without them nothing goes. A HEAD with no commit its base lacks is not
// pushed: a branch per run that holds nothing new would only pile up on the remote.
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import type { Repository } from '../git/repository.js'
import { writeRef } from '../git/worktree-refs.js'
import { pushCommit, pushRefusal, SEND_TIME_LIMIT_MS, sendObjects } from '../remote/push.js'
import { remoteTips } from '../remote/tips.js'
import { lfsStore, pointedTo } from '../remote/lfs.js'
import { sent } from '../rescue/snapshot.js'
import { kindOf } from '../os/untrusted-files.js'
import type { PushTarget } from '../record/state-helper.js'
import type { Evidence } from './evidence.js'

/** What the push did: where the commit went, why nothing went, or that nothing needed to (HEAD adds nothing to the base). */
export type Pushed =
  | { remote: string; branch: string; commit: string; tracking: string }
  | { branch: string; failed: string }
  | { branch: string; unneeded: { head: string; base: string } }

/** The exit's own change to what every worktree shares: the remote-tracking ref of what it pushed. */
export function isOwnPush(pushed: Pushed | undefined, change: { kind: string; name: string; to?: string }): boolean {
  return !!pushed && 'tracking' in pushed && change.kind === 'ref' && change.name === pushed.tracking && change.to === pushed.commit
}

/**
 * Pushes the HEAD of the worktree whose git dir is `gitDir` to refs/heads/<branch> of the remote of enter, fast-forward
 * only. `own`: the repository that holds its objects and refs (a clone's commits are in its own, which borrow the
 * original's).
 */
export async function pushWorktree(
  repo: Repository,
  evidence: Evidence,
  own: Pick<Repository, 'commonDir' | 'git'>,
  gitDir: string,
  branch: string,
  fallback?: PushTarget
): Promise<Pushed> {
  // HEAD as the worktree's own git dir has it: what the agent left checked out.
  const worktree = new Git(repo.commonDir, [`--git-dir=${gitDir}`])
  const head = await worktree.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])
  if (head.exitCode !== 0) return { branch, failed: 'the worktree has no commit to push' }
  const commit = head.stdout.trim()
  const base = evidence.believed.base
  if (base && (await addsNothing(worktree, commit, base))) return { branch, unneeded: { head: commit, base } }
  const target = evidence.believed.push ?? fallback
  if (!target) {
    const why =
      evidence.source === 'hint'
        ? "the record in the worktree's git dir is not this job's sealed record, so the remote of enter is unknown, and nothing is pushed elsewhere"
        : 'the repository had no remote when the main step entered'
    return { branch, failed: why }
  }
  const objects = path.join(own.commonDir, 'objects')
  const deadline = Date.now() + SEND_TIME_LIMIT_MS
  // The Git LFS objects its commits point to go first: once the remote has the commits, the gate counts them saved.
  if (kindOf(lfsStore(own.commonDir)) === 'directory') {
    const lfs = await pointedTo(own.git, own.commonDir, sent(commit, (await remoteTips(repo, target, own.git)).tips))
    const failed = lfs && (await sendObjects(repo, lfs, target, evidence.believed.base, deadline))
    if (failed) return { branch, failed: `${failed}; so the commit was not pushed either` }
  }
  const pushed = await pushCommit(repo, target, commit, branch, { deadline, objects })
  if (pushed.exitCode !== 0) return { branch, failed: pushRefusal(target, branch, pushed) }
  // As git push itself records it, in its words: the remote has the commit now (in the repository that has it).
  const tracking = `refs/remotes/${target.remote}/${branch}`
  await writeRef(own.git, tracking, commit, { log: own.commonDir, message: 'update by push' })
  return { remote: target.remote, branch, commit, tracking }
}

/** HEAD is the base or an ancestor of it: it has no commit the base lacks. An answer git cannot give is no. */
async function addsNothing(git: Git, head: string, base: string): Promise<boolean> {
  return (await git.run(['merge-base', '--is-ancestor', '--end-of-options', head, base])).exitCode === 0
}
