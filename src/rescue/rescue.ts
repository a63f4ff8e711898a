// Rescue: a kept worktree's unsaved work, copied into one commit and, where asked, off the machine
// (a GitHub-hosted runner deletes the machine, kept worktree and all, a minute after the job). The copy
// never changes what happens to the worktree, and a rescue that fails is a warning, never an error.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Git } from '../git/git-command-manager.js'
import type { RescueTarget } from '../record/settings.js'
import type { Repository } from '../git/repository.js'
import { shellQuote } from '../os/processes.js'
import { openView } from '../git/sealed-git.js'
import { linesOf } from '../os/untrusted-files.js'
import { rescueName } from './names.js'
import { sent, type Snapshot } from './snapshot.js'
import { objectPath, lfsStore } from '../remote/lfs.js'
import { checkedObjects, pushCommit, pushObjects, pushRefusal, SEND_TIME_LIMIT_MS, type CheckedObjects } from '../remote/push.js'
import type { BroughtIn, PushTarget, WorktreeRecord } from '../record/state-helper.js'

/** How many rescues of one name a job may make: each later one takes the next free name. */
const TAKES = 5

/**
 * Why nothing was sent: over rescue-max-size; the bytes of a file the job brought in (it may hold a secret)
 * in what would go; or what the job brought in cannot be told (its record was changed, or is not this job's).
 */
export type Withheld = { why: 'oversize'; bytes: number } | { why: 'brought'; file: string } | { why: 'unproven' }

export interface RescueResult {
  targets: RescueTarget[]
  snapshot?: Snapshot
  withheld?: Withheld
  /** Why no snapshot could be made: then nothing was rescued. */
  unmade?: string
  /** The branch pushed to the remote. */
  branch?: { remote: string; name: string }
  /**
   * The workflow artifact uploaded; `needs`: commits a restoring clone must fetch from its remote first (the
   * parents a shallow history, such as a pull request's merge commit, never had here).
   */
  artifact?: { name: string; url?: string; needs: string[]; lfs: boolean }
  /** Each target that failed, with what git or the service said. */
  failures: RescueFailure[]
  /** Git LFS objects the commits point to whose bytes in the repository's LFS store are not what their names say: sent nowhere. */
  lfsUnread?: string[]
}

export interface RescueFailure {
  target: RescueTarget
  said: string
  /**
   * What the failure points to: the job's permissions, a remote gone or unreachable, no remote, no artifact service,
   * GHES, the Git LFS objects the commits point to (not sent, so neither are the commits), or nothing known.
   */
  cause: 'refused' | 'unreachable' | 'no-remote' | 'unsealed' | 'no-service' | 'ghes' | 'lfs' | 'other'
}

/** The work left the machine, by at least one target. */
export function rescued(result: RescueResult | undefined): boolean {
  return !!result?.branch || !!result?.artifact
}

/** What a rescue needs of the worktree: its name and job (the rescue's name), where it may push, what the job brought in. */
export type RescueFacts = Pick<WorktreeRecord, 'name' | 'path' | 'owner' | 'leg' | 'rescueMaxBytes'> & {
  /** The commit the worktree started from, when the step's own record vouches for it: its .lfsconfig is the repository's. */
  base?: string
  /** The main step's own account of what the job brought in; without it nothing leaves the machine. */
  brought?: BroughtIn
  push?: PushTarget
  /** The record is only a hint: nothing is pushed on its word. */
  unsealed: boolean
  /** The commits the remote of enter has: what the artifact need not carry. */
  onRemote: string[]
}

/** Copies the snapshot off the machine, to each target, within the time limit. */
export async function rescue(
  snapshot: Snapshot | string,
  facts: RescueFacts,
  targets: RescueTarget[],
  repo: Repository,
  env: NodeJS.ProcessEnv = process.env
): Promise<RescueResult> {
  if (typeof snapshot === 'string') return { targets, unmade: snapshot, failures: [] }
  const withheld = withheldFrom(snapshot, facts)
  if (withheld) return { targets, snapshot, withheld, failures: [] }
  const result: RescueResult = { targets, snapshot, failures: [] }
  const deadline = Date.now() + SEND_TIME_LIMIT_MS
  const lfs = snapshot.lfs && checkedObjects(repo, snapshot.lfs)
  try {
    if (lfs?.unread.length) result.lfsUnread = lfs.unread.map(o => o.oid)
    if (targets.includes('branch')) {
      const pushed = await pushBranch(repo, snapshot, facts, deadline, lfs)
      if ('cause' in pushed) result.failures.push({ target: 'branch', ...pushed })
      else result.branch = pushed
    }
    if (targets.includes('artifact')) {
      const uploaded = await uploadArtifact(repo.git, repo.commonDir, snapshot, facts, deadline, env, lfs)
      if ('cause' in uploaded) result.failures.push({ target: 'artifact', ...uploaded })
      else result.artifact = uploaded
    }
    return result
  } finally {
    lfs?.view.dispose()
  }
}

/**
 * rescue-max-size bounds everything a rescue sends: commits too large on their own are not sent at all. What
 * the job brought in never leaves the machine: without the main step's own account of it, nothing does.
 */
function withheldFrom(snapshot: Snapshot, facts: RescueFacts): Withheld | undefined {
  if (!facts.brought) return { why: 'unproven' }
  if (snapshot.holdsBrought !== undefined) return { why: 'brought', file: snapshot.holdsBrought }
  if (snapshot.oversize !== undefined) return { why: 'oversize', bytes: snapshot.oversize }
  return undefined
}

/** What git says of a remote that is not there (moved, deleted, a host that does not answer), as opposed to one that refuses. */
const UNREACHABLE =
  /does not appear to be a git repository|repository '.*' not found|Repository not found|Could not resolve host|Connection refused|Connection timed out|git stopped: nothing for/i

/**
 * Pushes the snapshot, and nothing else, to a branch of the remote of enter (pushCommit) that must not exist
 * yet: a ref that is not ours is never overwritten.
 */
async function pushBranch(
  repo: Repository,
  snapshot: Snapshot,
  facts: RescueFacts,
  deadline: number,
  lfs: CheckedObjects | undefined
): Promise<{ remote: string; name: string } | Omit<RescueFailure, 'target'>> {
  const target = facts.push
  if (!target) return { cause: facts.unsealed ? 'unsealed' : 'no-remote', said: '' }
  // The objects first: commits on the remote count as saved, and without their objects they are not.
  const objects = lfs && (await pushObjects(lfs, target, facts.base, deadline))
  if (objects) return objects
  for (let take = 1; ; take++) {
    const branch = rescueName(facts, '/', take)
    const pushed = await pushCommit(repo, target, snapshot.commit, branch, { lease: '', deadline })
    // The name is taken (by an earlier rescue of this job): the next take.
    if (pushed.exitCode !== 0 && take < TAKES && /\(stale info\)|already exists/.test(pushed.stderr)) continue
    if (pushed.exitCode !== 0) return { cause: UNREACHABLE.test(pushed.stderr) ? 'unreachable' : 'refused', said: pushRefusal(target, branch, pushed) }
    return { remote: target.remote, name: branch }
  }
}

/**
 * The parents of the shallow commits a bundle holds: a pull request's merge commit, fetched at depth 1,
 * names parents this clone never had, and neither does the bundle. A restoring clone fetches them from its
 * remote first (GitHub serves any commit a ref reaches, a pull request's head included).
 */
async function shallowParents(git: Git, commonDir: string, ref: string, onRemote: string[]): Promise<string[]> {
  const shallow = new Set([...linesOf(path.join(commonDir, 'shallow'))].map(line => line.trim()).filter(Boolean))
  if (!shallow.size) return []
  const held = (await git.exec(['rev-list', '--stdin'], { input: sent(ref, onRemote) })).split('\n').filter(sha => shallow.has(sha))
  const parents = new Set<string>()
  for (const commit of held) {
    for (const line of (await git.exec(['cat-file', 'commit', commit])).split('\n')) {
      if (line === '') break
      // Object ids only: they go into a command a person pastes.
      const parent = /^parent ([0-9a-f]{40}|[0-9a-f]{64})$/.exec(line)?.[1]
      if (parent) parents.add(parent)
    }
  }
  return [...parents]
}

/** The README's line for an artifact with LFS objects: into the clone's LFS store before the switch, which smudges them. */
const LFS_LINE = '  mkdir -p "$(git rev-parse --git-common-dir)/lfs" && cp -R FOLDER/lfs/objects "$(git rev-parse --git-common-dir)/lfs/"'

/** The README's line that names the commits a restoring clone fetches first: read back by a restore. */
const NEEDS_LINE = '  git fetch origin '

/** The commits a rescue artifact's README.txt says a restoring clone must fetch from its remote first. */
export function neededCommits(readme: string): string[] {
  const line = readme.split('\n').find(l => l.startsWith(NEEDS_LINE))
  return (line?.slice(NEEDS_LINE.length).split(' ') ?? []).filter(id => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(id))
}

/** The README.txt of a rescue artifact: what it holds and the commands that bring it back. */
function readmeText(record: Pick<RescueFacts, 'name' | 'path'>, snapshot: Snapshot, needs: string[], lfs: boolean, patchFits: boolean): string {
  return [
    `Unsaved work of the worktree ${record.name} (${record.path}), kept by agent-worktree.`,
    '',
    `rescue.bundle holds ${snapshot.ref}, commit ${snapshot.commit}: its files are the worktree as it was left;`,
    'its first parent is where HEAD was; further parents hold the index and commits HEAD did not reach.',
    'In a clone of the repository, with this folder outside it (FOLDER below):',
    ...(needs.length ? [`${NEEDS_LINE}${needs.join(' ')}`] : []),
    ...(lfs ? [LFS_LINE] : []),
    `  git fetch FOLDER/rescue.bundle ${shellQuote(snapshot.ref)} && git switch -c rescued FETCH_HEAD`,
    patchFits
      ? `rescue.patch is the same work as a patch against ${snapshot.base}: git apply --index FOLDER/rescue.patch`
      : 'rescue.patch is empty: the bundle and a patch together would be more than rescue-max-size.',
    ''
  ].join('\n')
}

async function uploadArtifact(
  git: Git,
  commonDir: string,
  snapshot: Snapshot,
  record: Pick<RescueFacts, 'name' | 'path' | 'owner' | 'rescueMaxBytes' | 'onRemote'>,
  deadline: number,
  env: NodeJS.ProcessEnv,
  lfs: CheckedObjects | undefined
): Promise<{ name: string; url?: string; needs: string[]; lfs: boolean } | Omit<RescueFailure, 'target'>> {
  const dir = fs.mkdtempSync(path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-worktree-rescue-'))
  try {
    // With LFS objects, the files go beside the view's store, whose lfs/objects/xx/yy/<oid> the zip then holds.
    const root = lfs?.sent.length ? lfs.view.dir : dir
    const objects = lfs?.sent.map(o => objectPath(lfsStore(root), o.oid)) ?? []
    const bundle = path.join(root, 'rescue.bundle')
    const patch = path.join(root, 'rescue.patch')
    const readme = path.join(root, 'README.txt')
    // Commits the remote's branches and tags have are left out: a clone has them. (Not those a remote-tracking
    // ref holds: it may be the agent's, and a pull request's merge commit is one a clone lacks.)
    const made = await git.run(['bundle', 'create', '--quiet', bundle, '--stdin'], {
      input: sent(snapshot.ref, record.onRemote),
      deadline,
      interruptible: true
    })
    if (made.exitCode !== 0) return { cause: 'other', said: `git bundle failed: ${made.stderr.trim()}` }
    const needs = await shallowParents(git, commonDir, snapshot.ref, record.onRemote)
    // Through a view: the repository's diff settings (drivers, submodule logs) take no part.
    const view = openView({ objects: path.join(commonDir, 'objects'), head: snapshot.commit })
    const diff = await view.git
      .run(['diff', '--no-ext-diff', '--no-textconv', '--binary', '--ignore-submodules=all', snapshot.base, snapshot.commit], {
        deadline,
        interruptible: true,
        encoding: 'latin1'
      })
      .finally(() => view.dispose())
    // rescue-max-size bounds the artifact too: the patch, the same work again, goes only where it fits.
    const lfsBytes = lfs?.sent.reduce((sum, o) => sum + o.size, 0) ?? 0
    const patchFits = diff.exitCode === 0 && fs.statSync(bundle).size + lfsBytes + diff.stdout.length <= record.rescueMaxBytes
    fs.writeFileSync(patch, patchFits ? Buffer.from(diff.stdout, 'latin1') : '')
    fs.writeFileSync(readme, readmeText(record, snapshot, needs, !!lfs?.sent.length, patchFits))
    let name = rescueName(record, '-')
    const upload = (async () => {
      // Loaded only when a rescue uploads: the client is most of a bundle's size.
      const { DefaultArtifactClient } = await import('@actions/artifact')
      const client = new DefaultArtifactClient()
      for (let take = 1; ; take++) {
        name = rescueName(record, '-', take)
        try {
          return await client.uploadArtifact(name, [bundle, patch, readme, ...objects], root, { compressionLevel: 0 })
        } catch (error) {
          // An artifact of that name exists in the run (an earlier rescue of this job): the next take.
          if (take >= TAKES || !/\(409\)/.test((error as Error).message)) throw error
        }
      }
    })()
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`it did not finish within ${Math.round(SEND_TIME_LIMIT_MS / 1000)} s`)), Math.max(0, deadline - Date.now()))
    })
    try {
      const response = await Promise.race([upload, timeout])
      const url =
        response.id && env.GITHUB_SERVER_URL && env.GITHUB_REPOSITORY && env.GITHUB_RUN_ID
          ? `${env.GITHUB_SERVER_URL}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}/artifacts/${response.id}`
          : undefined
      return { name, url, needs, lfs: objects.length > 0 }
    } finally {
      clearTimeout(timer)
    }
  } catch (error) {
    const said = (error as Error).message
    const cause = /ACTIONS_RUNTIME_TOKEN|ACTIONS_RESULTS_URL/.test(said) ? 'no-service' : /GHES|not currently supported/.test(said) ? 'ghes' : 'other'
    return { cause, said }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
