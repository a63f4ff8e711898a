// The worktree pool (recycle: true): a worktree the gate proved clean is parked instead of deleted, and
// the next job takes it and moves it to its own base, which rewrites only the files that differ. A
// worktree is parked, handed out and expired only on the same proof as a removal, taken at that moment.
// Every function here runs under the repository lock, so two legs never park or take the same one.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import { evidenceOf, type Evidence } from './evidence.js'
import { currentOwner, heldBackLock, jobOver, parkedLock, parseLock, type Owner } from '../record/ownership.js'
import type { WorktreeEntry } from '../git/porcelain.js'
import { makeFolders } from '../os/paths.js'
import { mountsInside, removeWorktreeFolder } from './remove-worktree.js'
import { borrowedRef, keptRef } from '../record/refs.js'
import { dropKeptRef } from '../rescue/snapshot.js'
import { adminDirOf, folderOf, listWorktrees, lockOf, type Repository, worktreeGit } from '../git/repository.js'
import { cloneEntries, makeClone, type Made } from './clones.js'
import { remoteTips, type OnRemote } from '../remote/tips.js'
import { once } from '../os/once.js'
import { inspect, type GateInput } from '../gate/safety-gate.js'
import { nothingNew, provenUntouched, type Findings } from '../gate/findings.js'
import { deleteBranch } from '../gate/delete-branch.js'
import { writeReplacing } from '../os/untrusted-files.js'
import { unlinkReflogLinks, writeRef } from '../git/worktree-refs.js'
import {
  readRecordFile,
  restoreRecordFile,
  writeHints,
  writeRecordFile,
  type PushTarget,
  type RecordFile,
  type WorktreeRecord
} from '../record/state-helper.js'

/** Parked worktrees of one repository, at most; beyond, a clean worktree is deleted as without recycle. */
export const POOL_SIZE = 8
/** A parked worktree older than this is removed by the sweep of a job that may touch it. */
export const PARKED_MAX_AGE_MS = 24 * 60 * 60 * 1000

function parkedSince(entry: WorktreeEntry): number | undefined {
  const lock = parseLock(entry.locked)
  return lock.kind === 'parked' ? lock.since : undefined
}

/**
 * Parks a worktree the gate proved clean, after proving it again now: HEAD detached at the same commit,
 * its branch deleted if it has not moved, ignored files cleaned (nothing leaks from one job to the next;
 * a file written since the check is not ignored and stays), locked as parked. False when the pool is
 * full or the worktree changed: then the caller removes it, through the same proof.
 */
export async function park(repo: Repository, evidence: Evidence, gitDir: string, folder: string, findings: Findings, gate: GateInput): Promise<boolean> {
  const entries = await listParked(repo)
  // Cleaning would delete ignored files through a mount: the removal then keeps it and names the mount.
  if (entries.length >= POOL_SIZE || !findings.head || mountsInside(folder).length) return false
  const again = await inspect({ ...gate, previous: findings })
  // A repository nested where .gitignore does not reach would stay through the cleaning: no parking then.
  if (!nothingNew(findings, again) || again.loose?.length) return false
  const git = worktreeGit(gitDir, folder)
  await writeRef(git, 'HEAD', findings.head, { log: gitDir, message: 'agent-worktree: parked', noDeref: true, required: true })
  const branch = gate.branchesToDelete[0]
  if (branch) await deleteBranch(repo, branch, { seen: findings.branchTips?.[branch] })
  await git.exec(['clean', '-ffdXq'])
  await dropKeptRef(repo.git, repo.commonDir, keptRef(gitDir, evidence.token))
  const since = new Date().toISOString()
  writeReplacing(path.join(gitDir, 'locked'), parkedLock(since))
  writeHints(gitDir, { exited: 'parked', parked: since, parkedHead: findings.head })
  return true
}

async function listParked(repo: Repository): Promise<{ entry: WorktreeEntry; gitDir: string; record?: RecordFile }[]> {
  const parked = []
  for (const entry of await listWorktrees(repo)) {
    if (parkedSince(entry) === undefined) continue
    const gitDir = adminDirOf(repo.commonDir, entry.path)
    if (gitDir) parked.push({ entry, gitDir, record: readRecordFile(gitDir) })
  }
  return parked.sort((a, b) => parkedSince(b.entry)! - parkedSince(a.entry)!)
}

/**
 * The gate for a parked worktree: since it was parked, nothing at all may have appeared, ignored files
 * included. No base marks a commit saved: the record's parked HEAD is in a file anyone can write.
 */
function parkedGate(
  repo: Repository,
  gitDir: string,
  folder: string,
  record: WorktreeRecord | undefined,
  since: number,
  onRemote: () => Promise<OnRemote>
): GateInput {
  return {
    repository: repo.git,
    commonDir: repo.commonDir,
    gitDir,
    folder,
    fileMode: record?.fileMode ?? true,
    pinned: record?.pinned,
    branchesToDelete: [],
    onRemote,
    machineStays: false,
    localRefsSurvive: false,
    since,
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
  gitDir: string
  /** Parked worktrees found holding something, taken out of the pool: where, and what they hold. */
  heldBack: HeldBack[]
}

/**
 * Takes a parked worktree for `record`: proves it holds nothing new since it was parked (files, ignored
 * ones included, and commits), writes the new record into its git dir first (a step cut short afterwards
 * finds it), moves it to the new path, locks it as the job's, and creates the new branch at the base. One
 * that gained anything is taken out of the pool and kept, locked with a reason that says so.
 */
export async function takeParked(
  repo: Repository,
  record: WorktreeRecord,
  lockReason: string,
  describe: (findings: Findings) => string,
  onRemote: () => Promise<OnRemote>
): Promise<Taken | undefined> {
  const heldBack: HeldBack[] = []
  for (const { entry, gitDir, record: parked } of await listParked(repo)) {
    if (!fs.existsSync(entry.path)) continue
    const findings = await inspect(parkedGate(repo, gitDir, entry.path, parked, parkedSince(entry)!, onRemote))
    if (!provenUntouched(findings, parked?.parkedHead)) {
      writeReplacing(path.join(gitDir, 'locked'), heldBackLock(describe(findings)))
      heldBack.push({ path: entry.path, findings })
      continue
    }
    writeRecordFile(gitDir, { ...record, id: path.basename(gitDir), taken: new Date().toISOString() })
    // Its own settings were the last job's (its agent could write them): the new job enters with the
    // repository's, as any new worktree does.
    fs.rmSync(path.join(gitDir, 'config.worktree'), { force: true })
    unlinkReflogLinks(gitDir, 'HEAD')
    fs.rmSync(path.join(gitDir, 'locked'), { force: true })
    makeFolders(path.dirname(record.path))
    const moved = await repo.git.run(['worktree', 'move', entry.path, record.path])
    if (moved.exitCode !== 0) {
      // Another file system, for one: leave it parked.
      writeReplacing(path.join(gitDir, 'locked'), entry.locked!)
      if (parked) restoreRecordFile(gitDir, parked)
      continue
    }
    writeReplacing(path.join(gitDir, 'locked'), lockReason)
    unlinkReflogLinks(repo.commonDir, `refs/heads/${record.branch}`)
    await repo.git.exec(['branch', '--no-track', record.branch, record.baseSha])
    return { gitDir, heldBack }
  }
  return heldBack.length ? { gitDir: '', heldBack } : undefined
}

/** Checks out the new branch in a worktree taken from the pool, and checks it is clean and at the base. */
export async function checkOutTaken(record: WorktreeRecord, env?: Record<string, string>): Promise<void> {
  const git = new Git(record.path)
  // A clone is on its new branch already (its .git made anew, with no reflog of the last job's): its files go
  // from its index, the last job's, to the base, as a checkout moves them.
  const checkout = record.isolation === 'clone' ? ['read-tree', '-m', '-u', 'HEAD'] : ['checkout', '--quiet', record.branch]
  await git.exec(checkout, { env, interruptible: true, remote: true })
  const [head, status] = await Promise.all([git.exec(['rev-parse', 'HEAD']), git.exec(['status', '--porcelain', '--untracked-files=all'])])
  if (head.trim() !== record.baseSha || status !== '') {
    throw new Error(`the worktree taken from the pool is not clean at ${record.baseSha} after checkout: ${status.trim() || head.trim()}`)
  }
}

/**
 * Removes parked worktrees older than a day, of jobs that are provably over (the ownership rules of the
 * sweep), each through the gate. Outside a runner, nothing.
 */
export async function expireParked(repo: Repository, onRemote: () => Promise<OnRemote>, me: Owner = currentOwner(), now = Date.now()): Promise<string[]> {
  const removed: string[] = []
  for (const { entry, gitDir, record } of await listParked(repo)) {
    const since = parkedSince(entry)!
    if (now - since < PARKED_MAX_AGE_MS || !record || !jobOver(record.owner, me, now)) continue
    const gate = parkedGate(repo, gitDir, entry.path, record, since, onRemote)
    const findings = await inspect(gate)
    if (!provenUntouched(findings, record.parkedHead)) continue
    const outcome = await removeWorktreeFolder(repo, evidenceOf(record, 'hint'), gitDir, findings, gate)
    if (outcome.reason === 'clean') removed.push(entry.path)
  }
  for (const { entry, folder, since, record } of listParkedClones(repo)) {
    if (now - since < PARKED_MAX_AGE_MS || !record || !jobOver(record.owner, me, now)) continue
    const gate = await parkedCloneGate(repo, entry, folder, record, since, onRemote)
    const findings = await inspect(gate)
    if (!provenUntouched(findings, record.parkedHead)) continue
    const outcome = await removeWorktreeFolder(repo, evidenceOf(record, 'hint'), entry, findings, gate)
    if (outcome.reason === 'clean') removed.push(folder)
  }
  return removed
}

/** Parked clones (isolation: clone) of the repository, newest first: their folders of ours, locked as parked. */
function listParkedClones(repo: Repository): { entry: string; folder: string; since: number; record?: RecordFile }[] {
  const parked = []
  for (const entry of cloneEntries(repo.commonDir)) {
    const lock = parseLock(lockOf(entry))
    const folder = folderOf(entry)
    if (lock.kind === 'parked' && lock.since !== undefined && folder) parked.push({ entry, folder, since: lock.since, record: readRecordFile(entry) })
  }
  return parked.sort((a, b) => b.since - a.since)
}

/** The gate for a parked clone: as for a worktree, in the clone's own git dir; what it borrowed (the original's ref, not its record) is saved. */
async function parkedCloneGate(
  repo: Repository,
  entry: string,
  folder: string,
  record: WorktreeRecord | undefined,
  since: number,
  onRemote: () => Promise<OnRemote>
): Promise<GateInput> {
  const gitDir = path.join(folder, '.git')
  const borrowed = await repo.git.resolveCommit(borrowedRef(entry))
  return { ...parkedGate(repo, gitDir, folder, record, since, onRemote), commonDir: gitDir, clone: { borrowed } }
}

/**
 * Parks a clone the gate proved clean, after proving it again now: HEAD detached at the same commit, ignored
 * files cleaned, locked as parked. Its refs, config, hooks and reflogs stay until a job takes it, which makes
 * its .git anew. False when the pool of clones is full or the clone changed.
 */
export async function parkClone(repo: Repository, evidence: Evidence, entry: string, folder: string, findings: Findings, gate: GateInput): Promise<boolean> {
  if (listParkedClones(repo).length >= POOL_SIZE || !findings.head || mountsInside(folder).length) return false
  const again = await inspect({ ...gate, previous: findings })
  if (!nothingNew(findings, again) || again.loose?.length) return false
  const gitDir = path.join(folder, '.git')
  const git = new Git(folder, [`--git-dir=${gitDir}`, `--work-tree=${folder}`])
  await writeRef(git, 'HEAD', findings.head, { log: gitDir, noDeref: true, message: 'agent-worktree: parked', required: true })
  await git.exec(['clean', '-ffdXq'])
  await dropKeptRef(repo.git, repo.commonDir, keptRef(entry, evidence.token))
  const since = new Date().toISOString()
  writeReplacing(path.join(entry, 'locked'), parkedLock(since))
  writeHints(entry, { exited: 'parked', parked: since, parkedHead: findings.head })
  return true
}

/**
 * Takes a parked clone for `record`, on the proof a worktree is taken on: moved to the new path, its folder of
 * ours the job's, its .git made anew (makeClone) but for its objects and index. One that gained anything is
 * taken out of the pool and kept.
 */
export async function takeParkedClone(
  repo: Repository,
  record: WorktreeRecord,
  lockReason: string,
  push: PushTarget | undefined,
  also: string[],
  describe: (findings: Findings) => string
): Promise<(Taken & { made?: Made }) | undefined> {
  const heldBack: HeldBack[] = []
  for (const { entry, folder, since, record: parked } of listParkedClones(repo)) {
    if (!fs.existsSync(folder)) continue
    // What the last job pushed is in the clone's own objects: the remote's word is checked against those.
    const has = new Git(folder, [`--git-dir=${path.join(folder, '.git')}`])
    const findings = await inspect(
      await parkedCloneGate(
        repo,
        entry,
        folder,
        parked,
        since,
        once(() => remoteTips(repo, push, has))
      )
    )
    if (!provenUntouched(findings, parked?.parkedHead)) {
      writeReplacing(path.join(entry, 'locked'), heldBackLock(describe(findings)))
      heldBack.push({ path: folder, findings })
      continue
    }
    fs.mkdirSync(path.dirname(record.path), { recursive: true })
    try {
      fs.renameSync(folder, record.path)
    } catch {
      // Another file system, for one: it stays parked.
      continue
    }
    const made = await makeClone(repo, record, lockReason, also, entry)
    return { gitDir: entry, heldBack, made }
  }
  return heldBack.length ? { gitDir: '', heldBack } : undefined
}
