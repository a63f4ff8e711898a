// The worktree pool (recycle: true): a worktree the gate proved clean is parked instead of deleted, and
// the next job takes it and moves it to its own base, which rewrites only the files that differ. A
// worktree is parked, handed out and expired only on the same proof as a removal, taken at that moment.
// Every function here runs under the repository lock, so two legs never park or take the same one.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import { currentOwner, heldBackLock, jobOver, parkedLock, type Owner } from '../record/ownership.js'
import { mountsInside, removeWorktreeFolder } from './remove-worktree.js'
import { keptRef } from '../record/refs.js'
import { dropKeptRef } from '../rescue/snapshot.js'
import { type Repository, worktreeGit } from '../git/repository.js'
import { KINDS, type Kind, type Made, type Making, type Parked } from './kinds/kind.js'
import { inspect, type GateInput } from '../gate/safety-gate.js'
import { deleteBranch } from '../gate/delete-branch.js'
import { type OnRemote } from '../remote/tips.js'
import { nothingNew, provenUntouched, type Findings } from '../gate/findings.js'
import { writeReplacing } from '../os/untrusted-files.js'
import { writeRef } from '../git/worktree-refs.js'
import { writeHints, type PushTarget, type WorktreeRecord } from '../record/state-helper.js'
import { storeProblem } from '../git/object-store.js'
import type { IndexEntry } from '../git/index-file.js'
import { keepParkedFiles, markParking, readParkedFiles } from '../git/parked-files.js'

/** Parked worktrees of one repository (and clones, apart), at most; beyond, a clean one is deleted as without recycle. */
export const POOL_SIZE = 8
/** A parked worktree older than this is removed by the sweep of a job that may touch it. */
export const PARKED_MAX_AGE_MS = 24 * 60 * 60 * 1000

/** What is parked: where this action keeps its lock and record, its git dir, its folder. */
export type Parking = Pick<Parked, 'entry' | 'gitDir' | 'folder'>

/**
 * Parks a worktree (or clone) the gate proved clean, after proving it again now: HEAD detached at the same commit,
 * its branch deleted if it has not moved, ignored files cleaned (nothing leaks from one job to the next; a file
 * written since the check is not ignored and stays), locked as parked. A clone's refs, config, hooks and reflogs
 * stay until a job takes it, which makes its .git anew. False when the pool is full or it changed: then the caller
 * removes it, through the same proof. `token`: the job's, whose kept mark goes.
 */
export async function park(
  kind: Kind,
  repo: Repository,
  token: string,
  { entry, gitDir, folder }: Parking,
  findings: Findings,
  gate: GateInput
): Promise<boolean> {
  const entries = await kind.listParked(repo, path.dirname(folder))
  // Cleaning would delete ignored files through a mount: the removal then keeps it and names the mount.
  if (entries.length >= POOL_SIZE || !findings.head || mountsInside(folder).length) return false
  // What the gate reads from here on is what the next job's take may believe (parked-files.ts).
  const mark = markParking(folder)
  const compared: { entries?: IndexEntry[] } = {}
  const again = await inspect({ ...gate, previous: findings, compared })
  // A repository nested where .gitignore does not reach would stay through the cleaning: no parking then.
  if (!nothingNew(findings, again) || again.loose?.length) return false
  const git = worktreeGit(gitDir, folder)
  await writeRef(git, 'HEAD', findings.head, { log: gitDir, message: 'agent-worktree: parked', noDeref: true, required: true })
  const branch = gate.branchesToDelete[0]
  if (branch) await deleteBranch(repo, branch, { seen: findings.branchTips?.[branch] })
  await git.exec(['clean', '-ffdXq'])
  await dropKeptRef(repo.git, repo.commonDir, keptRef(entry, token))
  keepParkedFiles(entry, folder, compared.entries, mark)
  const since = new Date().toISOString()
  writeReplacing(path.join(entry, 'locked'), parkedLock(since))
  writeHints(entry, { exited: 'parked', parked: since, parkedHead: findings.head })
  return true
}

/**
 * The gate for a parked worktree: since it was parked, nothing at all may have appeared, ignored files
 * included. The record's parked HEAD marks no commit saved: it is in a file anyone can write. A take gives the base
 * of the job taking it, which that job's main step resolved: a commit it holds is history of the branch the take
 * checks out, and goes nowhere (the remote is not asked about it).
 */
async function parkedGate(kind: Kind, repo: Repository, parked: Parked, onRemote: () => Promise<OnRemote>, takenAt?: string): Promise<GateInput> {
  return {
    // What the park proved of the files serves a take alone: an expiry removes, and reads every file.
    ...(takenAt ? { baseSha: takenAt, parkedFiles: readParkedFiles(parked.entry, takenAt.length / 2) } : {}),
    repository: repo.git,
    ...(await kind.gateFacts(repo, parked.entry, parked.gitDir)),
    gitDir: parked.gitDir,
    folder: parked.folder,
    fileMode: parked.record?.fileMode ?? true,
    pinned: parked.record?.pinned,
    branchesToDelete: [],
    onRemote,
    machineStays: false,
    localRefsSurvive: false,
    since: parked.since,
    ownLinks: [],
    expectIndex: true,
    sparse: false,
    countIgnored: true
  }
}

export interface HeldBack {
  path: string
  findings: Findings
}

export interface Taken {
  /** The one taken, when one was. */
  made?: Made
  /** Parked worktrees found holding something, taken out of the pool: where, and what they hold. */
  heldBack: HeldBack[]
}

/** What a take goes by: how a new one is made, why one holds something, and what the remote of enter has. */
export interface Taking extends Making {
  describe: (findings: Findings) => string
  /** The remote of enter, and what it has, asked once for the original. */
  push?: PushTarget
  onRemote: () => Promise<OnRemote>
}

/**
 * Takes a parked worktree (or clone) for `record`: proves it holds nothing new since it was parked (files,
 * ignored ones included, and commits), then the kind moves it to the new path and makes it the job's. One that
 * gained anything is taken out of the pool and kept, locked with a reason that says so.
 */
export async function takeParked(kind: Kind, repo: Repository, record: WorktreeRecord, taking: Taking): Promise<Taken | undefined> {
  const heldBack: HeldBack[] = []
  // Of clones, only those parked in the folder this job makes its own in.
  for (const parked of await kind.listParked(repo, path.dirname(record.path))) {
    if (!fs.existsSync(parked.folder)) continue
    const onRemote = kind.parkedRemote(repo, parked.gitDir, taking.push, taking.onRemote)
    const findings = await verifiedObjects(kind, parked, await inspect(await parkedGate(kind, repo, parked, onRemote, record.baseSha)))
    if (!provenUntouched(findings, parked.record?.parkedHead)) {
      writeReplacing(path.join(parked.entry, 'locked'), heldBackLock(taking.describe(findings)))
      heldBack.push({ path: parked.folder, findings })
      continue
    }
    const made = await kind.take(repo, parked, record, taking)
    if (made) return { made, heldBack }
  }
  return heldBack.length ? { heldBack } : undefined
}

/**
 * What a parked one found untouched holds in an object store of its own (a clone's) is the last jobs', and every
 * object there is verified before the next job's checkout reads it (its base's tree, which a pack of the last agent's
 * could name for other files): its own packs are read before what it borrows. No list of them is believed (its record
 * lies where agents of worktrees write); what it borrows is the original's.
 */
async function verifiedObjects(kind: Kind, parked: Parked, findings: Findings): Promise<Findings> {
  const objects = kind.ownObjects(parked.gitDir)
  if (!objects || !provenUntouched(findings, parked.record?.parkedHead)) return findings
  const error = await storeProblem(objects, undefined)
  return error ? { ...findings, error } : findings
}

/**
 * Checks out the new branch in a worktree taken from the pool: git rewrites the files that differ from the base. What
 * the others hold was proven unchanged since it was parked (takeParked's gate, every file's bytes compared) a moment
 * before, under the lock; as after a fresh worktree's checkout, git's word that it checked the files out is the proof.
 */
export async function checkOutTaken(kind: Kind, record: WorktreeRecord, env?: Record<string, string>): Promise<void> {
  await new Git(record.path).exec(kind.takenCheckout(record.branch), { env, interruptible: true, remote: true })
}

/** Whether a parked worktree (or clone) is older than a day: read without the lock, and read again under it by expireParked. */
export async function anyExpiring(repo: Repository, worktreesDir: string, now = Date.now()): Promise<boolean> {
  for (const kind of KINDS) if ((await kind.listParked(repo, worktreesDir)).some(parked => now - parked.since >= PARKED_MAX_AGE_MS)) return true
  return false
}

/**
 * Removes parked worktrees (and clones) older than a day, of jobs that are provably over (the ownership rules of
 * the sweep), each through the gate. Outside a runner, nothing.
 */
export async function expireParked(
  repo: Repository,
  onRemote: () => Promise<OnRemote>,
  worktreesDir: string,
  me: Owner = currentOwner(),
  now = Date.now()
): Promise<string[]> {
  const removed: string[] = []
  for (const kind of KINDS) {
    for (const parked of await kind.listParked(repo, worktreesDir)) {
      const { record } = parked
      if (now - parked.since < PARKED_MAX_AGE_MS || !record || !jobOver(record.owner, me, now)) continue
      const gate = await parkedGate(kind, repo, parked, onRemote)
      const findings = await inspect(gate)
      if (!provenUntouched(findings, record.parkedHead)) continue
      const outcome = await removeWorktreeFolder(repo, kind, parked.entry, { token: record.token, repository: record.repository }, findings, gate)
      if (outcome.reason === 'clean') removed.push(parked.folder)
    }
  }
  return removed
}
