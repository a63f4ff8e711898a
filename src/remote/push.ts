// Sending to the remote of enter: one commit to a branch, and the Git LFS objects its commits point to first,
// from a sealed view of this step's own, so that no setting, hook or credential of the agent's takes part. A
// rescue's branch and the push input both go this way.
import * as path from 'node:path'
import { STALL_MS, type GitResult } from '../git/git-command-manager.js'
import type { Repository } from '../git/repository.js'
import { openView, REMOTE_PROTOCOLS, type View } from '../git/sealed-git.js'
import type { PushTarget } from '../record/state-helper.js'
import { quoted } from '../os/quote.js'
import { copyChecked, lfsEndpoint, lfsStore, uploadObjects, type LfsObject, type LfsObjects } from './lfs.js'

/** What sending off the machine may take: a rescue, all its targets together, or the push input's push. The runner gives a cancelled job's posts little time. */
export const SEND_TIME_LIMIT_MS = 60_000

/** The snapshot's Git LFS objects, copied and checked, in the store of a view of this step's own: what a rescue sends of them. */
export interface CheckedObjects {
  view: View
  sent: LfsObject[]
  unread: LfsObject[]
}

export function checkedObjects(repo: Repository, objects: LfsObjects): CheckedObjects {
  const view = openView({ objects: path.join(repo.commonDir, 'objects') })
  const unread = copyChecked(objects, lfsStore(view.dir))
  return { view, unread, sent: objects.objects.filter(o => !unread.includes(o)) }
}

/**
 * Sends Git LFS objects to the LFS server of the remote of enter (pushObjects), before a push of the commits that
 * point to them (the push input's); why not, when not.
 */
export async function sendObjects(
  repo: Repository,
  objects: LfsObjects,
  target: PushTarget,
  base: string | undefined,
  deadline: number
): Promise<string | undefined> {
  const lfs = checkedObjects(repo, objects)
  try {
    return (await pushObjects(lfs, target, base, deadline))?.said
  } finally {
    lfs.view.dispose()
  }
}

/**
 * Pushes one commit to refs/heads/<branch> at the URL the remote had at enter: from a sealed view, so that no
 * setting of the repository (a receive-pack or ssh command, a push URL, insteadOf, push options, follow-tags,
 * a proxy) takes part, and no hook, authenticated as the workflow's own push was when the main step entered (the
 * job's git set-up of enter: its ssh command, helpers, headers, insteadOf). `lease`: the
 * object id the branch must have on the remote ('' for none: it must not exist); without one, a plain push,
 * which only fast-forwards.
 */
export async function pushCommit(
  repo: Repository,
  target: PushTarget,
  commit: string,
  branch: string,
  options: { lease?: string; deadline: number; objects?: string }
): Promise<GitResult> {
  const view = openView({ objects: options.objects ?? path.join(repo.commonDir, 'objects'), head: commit })
  try {
    const settings = ['push.pushOption=', 'push.followTags=false', 'push.negotiate=false', 'push.recurseSubmodules=no'].flatMap(setting => ['-c', setting])
    return await view.git.run(
      [
        ...settings,
        'push',
        '--no-verify',
        '--no-follow-tags',
        '--no-signed',
        '--recurse-submodules=no',
        '--progress',
        ...(options.lease === undefined ? [] : [`--force-with-lease=refs/heads/${branch}:${options.lease}`]),
        '--end-of-options',
        target.url,
        `${commit}:refs/heads/${branch}`
      ],
      // Only these transports, whatever a global config says.
      {
        env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS },
        stallMs: STALL_MS,
        deadline: options.deadline,
        interruptible: true,
        remote: true
      }
    )
  } finally {
    view.dispose()
  }
}

/**
 * Uploads the snapshot's LFS objects to the LFS server of the remote of enter: the endpoint the repository's config
 * of enter or the base's .lfsconfig names, else the one git-lfs derives from the remote's URL. Why not, when not.
 */
export async function pushObjects(
  lfs: CheckedObjects,
  target: PushTarget,
  base: string | undefined,
  deadline: number
): Promise<{ cause: 'lfs'; said: string } | undefined> {
  const oids = (objects: LfsObject[]): string => objects.map(o => o.oid.slice(0, 12)).join(', ')
  if (lfs.unread.length)
    return { cause: 'lfs', said: `the Git LFS objects ${oids(lfs.unread)} in the repository's LFS store are not the bytes their names say` }
  const endpoint = await lfsEndpoint(lfs.view.git, target, base)
  if (typeof endpoint === 'object') return { cause: 'lfs', said: endpoint.unpinned }
  const pushed = await uploadObjects(
    lfs.view.git,
    { url: target.url, endpoint },
    lfs.sent.map(o => o.oid),
    { env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS }, stallMs: STALL_MS, deadline }
  )
  if (pushed.exitCode === 0) return undefined
  const said =
    pushed.stderr
      .trim()
      .split(/[\r\n]+/)
      .slice(-2)
      .join(' ') || `exit code ${pushed.exitCode}`
  return { cause: 'lfs', said: `git lfs push ${quoted(target.remote)} of ${lfs.sent.length} object(s) (${oids(lfs.sent)}) failed: ${said}` }
}

/** What the remote (or git) said when a push failed: its own lines, for a person to read. */
export function pushRefusal(target: PushTarget, branch: string, pushed: GitResult): string {
  const said = pushed.stderr.split(/[\r\n]+/).filter(line => /^(remote:|error:|fatal:|! |To |git stopped)/.test(line.trim()))
  return `git push ${quoted(target.remote)} ${quoted(branch)} failed: ${said.join(' ').trim() || `exit code ${pushed.exitCode}`}`
}
