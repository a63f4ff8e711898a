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
import { keptRef } from '../record/refs.js'
import { dropKeptRef } from '../rescue/snapshot.js'
import { adminDirOf, listWorktrees, type Repository, worktreeGit } from '../git/repository.js'
import { deleteBranch, inspect, type OnRemote, nothingNew, provenUntouched, type Findings, type GateInput } from '../gate/safety-gate.js'
import { writeReplacing } from '../os/untrusted-files.js'
import { unlinkReflogLinks, writeRef } from '../git/worktree-refs.js'
import { readRecordFile, restoreRecordFile, writeHints, writeRecordFile, type RecordFile, type WorktreeRecord } from '../record/state-helper.js'

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
  await git.exec(['checkout', '--quiet', record.branch], { env, interruptible: true, remote: true })
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
  return removed
}
