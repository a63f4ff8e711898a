// Exits a worktree: keep it (rescuing a copy of unsaved work), or remove it when the safety gate allows.
// Shared by the post step, the exit sub-action and the sweep of later jobs.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { throwIfCancelled } from './git-command-manager.js'
import type { OnExit, RescueTarget } from './input-helper.js'
import { compareSnapshots, readSnapshotFile, snapshotCheckoutAgain } from './isolation.js'
import { lockToken } from './ownership.js'
import { samePath } from './paths.js'
import { ownLinks } from './prepare-worktree.js'
import { residentsOf, type Resident } from './processes.js'
import { quarantinePath, removeWorktreeFolder, renameFolder, type Outcome } from './remove-worktree.js'
import { adminDirs, checkFolder, folderOf, isOrphanFolder, lockOf, type Repository, worktreeGit } from './repository.js'
import { withRepositoryLock, LockTimeoutError } from './repository-lock.js'
import { keepSnapshot, keptRef, rescue, type RescueResult } from './rescue.js'
import { decide, describeFindings, hasUnsavedWork, inspect, type Findings, type GateInput, type Verdict } from './safety-gate.js'
import { readRecordFile, writeHints, type RecordFile, type WorktreeRecord } from './state-helper.js'
import { readSmall } from './untrusted-files.js'
import { park } from './worktree-pool.js'

/** A short, stable code for what was found and done, for workflows to branch on. */
export type Reason =
  | 'clean'
  | 'discarded'
  | 'parked'
  | 'unsaved'
  | 'unknown'
  | 'asked'
  | 'foreign'
  | 'busy'
  | 'mounted'
  | 'changed'
  | 'incomplete'
  | 'exited'
  | 'gone'
  | 'cancelled'

export interface ExitResult {
  record: WorktreeRecord
  /** Where the worktree is: the agent may have moved it since enter. */
  path: string
  /** What was done. */
  action: OnExit
  removed: boolean
  reason: Reason
  findings?: Findings
  /** What the agent changed in the original checkout, which it should have left alone. */
  breach: string[]
  rescue?: RescueResult
  /** For a human or an agent: what was found, what was done, what to do next. */
  message: string
  /** True when a person should look: work was kept back, or something went wrong. */
  warning: boolean
}

export interface ExitOptions {
  onExit: OnExit
  discardChanges: boolean
  /**
   * Who exits, which says what the record rests on: the post step's record is its own saved state; the exit
   * sub-action's and the sweep's come from the worktree's git dir, which the agent can write.
   */
  step: 'post' | 'exit' | 'sweep'
  /**
   * The record is evidence: the post step's own state, or a record file the exit sub-action found sealed by
   * this job (state-helper's sealOf). Otherwise each of its facts is a hint.
   */
  trusted: boolean
  rescue: RescueTarget[]
  /** How long the repository lock is waited for before the worktree is kept and reported. */
  lockTimeoutMs?: number
}

/** How long a process still working inside the folder is waited for before the worktree is kept. */
const RESIDENT_WAIT_MS = 3_000

interface Located {
  gitDir: string
  /** Where git has the folder registered. */
  folder: string
  locked?: string
  /** The record in the git dir, when it is ours (same token). */
  fileRecord?: RecordFile
  /** Found only by the git dir the post's record names: maybe ours, not provably. */
  unproven?: boolean
}

/**
 * The worktree git dir that is provably the one this record entered: its lock or its record carries the
 * record's token. Known by its git dir, not by its path, so that a worktree the agent moved is found.
 */
export function locate(commonDir: string, record: WorktreeRecord, interruptedAdd: boolean): Located | undefined {
  const dirs = adminDirs(commonDir)
  // Only ever a git dir under <common dir>/worktrees: an id is a single name.
  const own = record.id && isPlainName(record.id) ? path.join(commonDir, 'worktrees', record.id) : undefined
  if (own) dirs.unshift(own)
  for (const gitDir of dirs) {
    const locked = lockOf(gitDir)
    const fileRecord = readRecordFile(gitDir)
    const folder = folderOf(gitDir)
    if (!folder) continue
    const ours = lockToken(locked) === record.token || fileRecord?.token === record.token
    // git marks a worktree "initializing" until its add finishes: at the path planned under the lock,
    // with no record yet, that is this step's own add, cut short.
    const cutShort = interruptedAdd && locked === 'initializing' && !fileRecord && samePath(folder, record.path)
    if (ours || cutShort) return { gitDir, folder, locked, fileRecord: fileRecord?.token === record.token ? fileRecord : undefined }
  }
  // The post's own record names the git dir; neither lock nor record carries a token any more (the agent
  // unlocked it and deleted the record?): it may well be ours, but it cannot be proven. Kept, never removed.
  const gitDir = own
  const folder = gitDir && folderOf(gitDir)
  if (interruptedAdd && gitDir && folder && samePath(folder, record.path) && !lockOf(gitDir) && !readRecordFile(gitDir))
    return { gitDir, folder, unproven: true }
  return undefined
}

function isPlainName(id: string): boolean {
  return id !== '.' && id !== '..' && !/[/\\]/.test(id)
}

export async function exitWorktree(record: WorktreeRecord, given: ExitOptions, repo: Repository): Promise<ExitResult> {
  let options = given
  const done = (partial: Partial<ExitResult> & Pick<ExitResult, 'reason' | 'message'>): ExitResult => ({
    record,
    path: record.path,
    action: 'keep',
    removed: false,
    breach: [],
    warning: true,
    ...partial
  })
  const trusted = options.trusted
  const found = locate(repo.commonDir, record, trusted && record.created)
  if (!found) {
    const cleaned = trusted && record.created ? await withRepositoryLock(repo.commonDir, () => clearInterruptedAdd(repo, record), lockOptions(options)) : ''
    return done({ reason: 'gone', message: `Nothing to do: ${record.path} is no longer a worktree of ${record.repository}${cleaned}.`, warning: false })
  }
  const { gitDir, fileRecord } = found
  const folder = found.folder
  const moved = samePath(folder, record.path) ? '' : ` (moved there from ${record.path})`
  const ourLock = !found.unproven && (found.locked === undefined || found.locked === 'initializing' || lockToken(found.locked) === record.token)
  // An exit step's decision holds for the post; the mark in the git dir is only believed with what backs it.
  const exitedBefore =
    fileRecord?.exited === 'parked'
      ? found.locked?.startsWith('agent-worktree parked')
      : fileRecord?.exited === 'keep' &&
        options.step === 'post' &&
        (await repo.git.run(['rev-parse', '--verify', '--quiet', keptRef(gitDir, record.token)])).exitCode === 0
  if (exitedBefore) {
    return done({ path: folder, reason: 'exited', message: `Nothing to do: the exit step already exited ${folder} (${fileRecord?.exited}).`, warning: false })
  }
  // Locked by someone else, or not provably ours: never removed; but judged, and its work rescued.
  const foreign = !ourLock && options.onExit === 'remove'
  if (foreign) options = { ...options, onExit: 'keep' }
  const trustedEphemeral = trusted ? record.ephemeral : process.env.RUNNER_ENVIRONMENT === 'github-hosted'

  // A removal cut short leaves the folder moved aside. Marked as being removed (the deletion may have begun
  // and taken its .git file too), what is left is judged where it is, deletions allowed, and the removal
  // goes on; otherwise it goes back where git has it, to be judged as usual.
  let finishing = false
  let folderState = checkFolder(folder, gitDir)
  let here = folder
  const aside = quarantinePath(folder)
  if (folderState === 'missing' && fs.lstatSync(aside, { throwIfNoEntry: false })?.isDirectory()) {
    if (fileRecord?.removing) {
      finishing = true
      here = aside
      folderState = 'intact'
    } else if (checkFolder(aside, gitDir) === 'intact') {
      await renameFolder(aside, folder)
      folderState = 'intact'
    }
  }
  const intact = folderState === 'intact'
  const links = intact ? ownLinks(record.repository, here, record.links) : []
  const gate: GateInput = {
    repository: repo.git,
    commonDir: repo.commonDir,
    gitDir,
    folder: intact ? here : undefined,
    fileMode: record.fileMode,
    pinned: record.pinned,
    // Programs named by the record run only when the record is the step's own (git-lfs as configured at enter).
    filters: trusted ? record.filters : undefined,
    // A base from the git dir (the agent can write it) would mark the agent's commits saved: only the post's own counts.
    baseSha: record.created && trusted ? record.baseSha : undefined,
    branchesToDelete: await branchToDelete(repo, record, gitDir, trusted),
    localRefsSurvive: !trustedEphemeral,
    // From the git dir, a time would let the agent hide its reflog: only the post's own counts.
    since: trusted && record.taken ? Date.parse(record.taken) : undefined,
    ownLinks: links,
    // The post's record proves when the main step never finished its checkout; the agent never started then.
    expectIndex: !(trusted && record.created && !record.checkedOut),
    sparse: fs.existsSync(path.join(gitDir, 'info', 'sparse-checkout')),
    tolerateDeletions: finishing
  }
  const [findings, breach] = await Promise.all([inspect(gate), options.step === 'sweep' ? [] : isolationBreach(record, trusted)])
  if (!intact && folderState !== 'missing') findings.error ??= folderState
  const verdict = decide(options.onExit, options.discardChanges, findings)
  throwIfCancelled()

  if (!verdict.startsWith('remove')) {
    // A removal that cannot be finished after all: the folder goes back where git has it, if still whole.
    if (finishing && checkFolder(here, gitDir) === 'intact') await renameFolder(here, folder).catch(() => undefined)
    const keptAt = fs.existsSync(folder) ? folder : here
    const kept = await keep(repo, record, found, keptAt, findings, options, verdict, ourLock, trustedEphemeral)
    return done({
      path: keptAt,
      reason: found.unproven ? 'unknown' : foreign ? 'foreign' : reasonOf(verdict),
      findings,
      breach,
      rescue: kept.rescue,
      message: foreign ? foreignMessage(keptAt + moved, found, findings, kept) : keepMessage(keptAt, moved, verdict, findings, kept),
      warning: foreign || verdict !== 'keep-asked' || !!kept.rescue?.problems.length
    })
  }

  // The links go first, by unlink, which never touches what they point to.
  for (const link of links) fs.unlinkSync(path.join(here, link))
  const parkable =
    verdict === 'remove-clean' && record.recycle && record.created && intact && !finishing && !gate.sparse && !fs.existsSync(path.join(gitDir, 'modules'))
  let outcome: Outcome
  try {
    outcome = await withRepositoryLock(
      repo.commonDir,
      async () => {
        const busy = intact ? await waitForResidents(here) : []
        if (busy.length) return { reason: 'busy' as const, detail: describeResidents(busy) }
        if (parkable && (await park(repo, record, gitDir, folder, findings, gate))) return { reason: 'parked' as const, detail: '' }
        return removeWorktreeFolder(repo, record, gitDir, findings, gate, trusted)
      },
      lockOptions(options)
    )
  } catch (error) {
    if (!(error instanceof LockTimeoutError)) throw error
    outcome = { reason: 'busy', detail: error.message }
  }
  return done({ ...outcomeResult(outcome, folder, moved, verdict, findings), path: folder, findings, breach })
}

function outcomeResult(
  outcome: Outcome,
  folder: string,
  moved: string,
  verdict: Verdict,
  findings: Findings
): Pick<ExitResult, 'reason' | 'message' | 'warning' | 'removed' | 'action'> {
  const where = folder + moved
  switch (outcome.reason) {
    case 'parked':
      return {
        reason: 'parked',
        removed: true,
        action: 'remove',
        warning: false,
        message: `Parked ${where} in the pool for the next job and deleted its branch: nothing unsaved was found.`
      }
    case 'busy':
      return {
        reason: 'busy',
        removed: false,
        action: 'keep',
        warning: true,
        message: `Kept ${where}: ${outcome.detail}. Stop them, then remove it with the exit sub-action or by hand.`
      }
    case 'mounted':
      return {
        reason: 'mounted',
        removed: false,
        action: 'keep',
        warning: true,
        message: `Kept ${where}: another file system is mounted inside it (${outcome.detail}), and removing the folder would delete files that live there. Unmount it, then remove the worktree with the exit sub-action or by hand.`
      }
    case 'changed':
      return {
        reason: 'changed',
        removed: false,
        action: 'keep',
        warning: true,
        message: `Kept ${where}: it changed while it was being removed (${outcome.detail}); something is still writing there. Look at it, and remove it once it is quiet.`
      }
    case 'incomplete':
      return {
        reason: 'incomplete',
        removed: false,
        action: 'keep',
        warning: true,
        message: `Could not finish removing ${where}: ${outcome.detail}. Its registration and branch are kept, so that the next job's sweep, or a rerun, can finish; or delete that folder by hand and run git worktree prune.`
      }
    default: {
      const what = verdict === 'remove-discard' ? `, discarding ${describeFindings(findings)} as discard-changes asked` : ': nothing unsaved was found'
      return {
        reason: verdict === 'remove-discard' ? 'discarded' : 'clean',
        removed: true,
        action: 'remove',
        warning: false,
        message: `Removed ${where}${outcome.detail}${what}.`
      }
    }
  }
}

function lockOptions(options: ExitOptions): { timeoutMs: number } | undefined {
  return options.lockTimeoutMs === undefined ? undefined : { timeoutMs: options.lockTimeoutMs }
}

/** Processes still working inside the folder, after a short wait for them to end. */
async function waitForResidents(folder: string): Promise<Resident[]> {
  const started = Date.now()
  for (;;) {
    const residents = residentsOf(folder)
    if (!residents.length || Date.now() - started >= RESIDENT_WAIT_MS) return residents
    await new Promise(resolve => setTimeout(resolve, 250))
  }
}

function describeResidents(residents: Resident[]): string {
  const shown = residents.slice(0, 3).map(r => `${r.pid} (${r.command.slice(0, 80)})`)
  return `${residents.length === 1 ? 'a process still works' : `${residents.length} processes still work`} inside it: ${shown.join(', ')}${residents.length > 3 ? ', …' : ''}`
}

/**
 * The branch that goes with the worktree. The post step deletes the branch its own main step created;
 * for a record from the git dir (exit sub-action, sweep), only if the worktree has it checked out now.
 */
async function branchToDelete(repo: Repository, record: WorktreeRecord, gitDir: string, trusted: boolean): Promise<string[]> {
  if (!record.created || !record.branch) return []
  const heads = (dir: string): string => readSmall(path.join(dir, 'HEAD'))?.trim() ?? ''
  const ref = `ref: refs/heads/${record.branch}`
  if (!trusted && heads(gitDir) !== ref) return []
  // Never a branch that another worktree, the main one included, has checked out.
  if ([repo.commonDir, ...adminDirs(repo.commonDir)].some(dir => !samePath(dir, gitDir) && heads(dir) === ref)) return []
  // Checked out here, it exists; otherwise ask.
  return heads(gitDir) === ref || (await repo.git.branchExists(record.branch)) ? [record.branch] : []
}

interface Kept {
  rescue?: RescueResult
  detached?: string
}

/**
 * Keeps the worktree: unsaved work is first copied into one commit that a ref keeps alive (and off the
 * machine, where rescue asks); on a machine that stays, a created worktree is detached from its branch,
 * so that the next actions/checkout on this runner can delete every branch without recreating the
 * repository (which would take the kept worktree's git dir and commits with it).
 */
async function keep(
  repo: Repository,
  record: WorktreeRecord,
  found: Located,
  folder: string,
  findings: Findings,
  options: ExitOptions,
  verdict: Verdict,
  ours: boolean,
  ephemeral: boolean
): Promise<Kept> {
  const kept: Kept = {}
  const git = worktreeGit(found.gitDir, fs.existsSync(folder) ? folder : found.gitDir)
  if (findings.head && (hasUnsavedWork(findings) || verdict === 'keep-unknown')) {
    const snapshot = await keepSnapshot({
      repo,
      record,
      gitDir: found.gitDir,
      folder: fs.existsSync(folder) ? folder : undefined,
      findings,
      filters: options.trusted ? record.filters : undefined
    })
    kept.rescue = await rescue(snapshot, record, options.rescue, repo, options.trusted)
  } else if (findings.head && ours) {
    // Marked as kept in the repository too: later sweeps report it and leave it alone.
    await repo.git.run(['update-ref', '-m', 'agent-worktree: kept', keptRef(found.gitDir, record.token), findings.head])
  }
  // Only where the machine stays: on a hosted runner no later checkout comes, and the kept worktree keeps its branch.
  if (ours && record.created && !ephemeral && findings.head) {
    const head = readSmall(path.join(found.gitDir, 'HEAD'))?.trim() ?? ''
    // At the branch's tip now, not as the gate saw it: a commit made since stays checked out.
    const tip = head.startsWith('ref: refs/heads/') ? await git.resolveCommit('HEAD') : undefined
    if (tip) {
      const result = await git.run(['update-ref', '--no-deref', '-m', 'agent-worktree: kept, detached from its branch', 'HEAD', tip])
      if (result.exitCode === 0) kept.detached = head.slice('ref: refs/heads/'.length)
    }
  }
  // A worktree entered by path gets back the lock it had.
  if (ours && record.priorLock !== undefined && lockToken(found.locked) === record.token) {
    if (record.priorLock === '') fs.rmSync(path.join(found.gitDir, 'locked'), { force: true })
    else fs.writeFileSync(path.join(found.gitDir, 'locked'), record.priorLock)
  }
  // Kept on purpose from now on: the post after an exit leaves it alone, and later sweeps only report it.
  if (ours) writeHints(found.gitDir, { exited: 'keep' }, options.trusted ? record : undefined)
  return kept
}

/** Changes to the original checkout since enter; none when there is nothing to compare with. */
async function isolationBreach(record: WorktreeRecord, trusted: boolean): Promise<string[]> {
  const before = record.original ? readSnapshotFile(record.original) : undefined
  if (!before || samePath(record.repository, record.path)) return []
  try {
    return compareSnapshots(before, await snapshotCheckoutAgain(record.repository, before, record.commonDir, trusted ? record.filters : undefined))
  } catch {
    return []
  }
}

/**
 * What a step cut short in the middle of `git worktree add` leaves at a path that is no longer a
 * worktree: a git dir git no longer lists (it holds this step's record or token, or lacks its gitdir
 * file and bears the worktree's name), a folder holding nothing but a .git file that points to that git
 * dir, and the branch, which git creates first. The branch goes only when no worktree has it checked out
 * and none of its commits is unsaved. Only the post step does this: its record is its own saved state.
 */
async function clearInterruptedAdd(repo: Repository, record: WorktreeRecord): Promise<string> {
  const notes: string[] = []
  let branchNote = ''
  // Only an add that never finished: once it had, the post's state holds the id of its git dir, and a
  // git dir that git no longer lists (its gitdir file deleted) still holds the agent's reflogs.
  const gitDir = record.id ? undefined : halfGoneGitDir(repo.commonDir, record)
  if (gitDir) {
    fs.rmSync(gitDir, { recursive: true, force: true })
    notes.push(`its git dir ${gitDir}`)
  }
  // The folder goes only when it is empty, or holds nothing but a .git file that points into this
  // repository at a git dir that no longer exists: a folder another repository's add made is left alone.
  const names = (() => {
    try {
      return fs.readdirSync(record.path)
    } catch {
      return undefined
    }
  })()
  if (names && (names.length === 0 || (names.length === 1 && names[0] === '.git' && isOrphanFolder(repo.commonDir, record.path)))) {
    fs.rmSync(record.path, { recursive: true, force: true })
    notes.push('its empty folder')
  }
  const ref = `refs/heads/${record.branch}`
  const checkedOut = adminDirs(repo.commonDir).some(dir => readSmall(path.join(dir, 'HEAD'))?.trim() === `ref: ${ref}`)
  const mainHead = await repo.git.run(['symbolic-ref', '--quiet', 'HEAD'])
  if (record.branch && !checkedOut && mainHead.stdout.trim() !== ref && (await repo.git.branchExists(record.branch))) {
    const unsaved = await repo.git.run(['log', '--format=%h', ref, '--not', record.baseSha, '--remotes', '--'])
    const tip = await repo.git.resolveCommit(ref)
    if (unsaved.exitCode === 0 && unsaved.stdout.trim() === '' && tip && (await repo.git.run(['update-ref', '-d', ref, tip])).exitCode === 0) {
      branchNote = `; deleted its branch ${record.branch}, which no worktree has checked out any more and whose commits are saved`
    }
  }
  return `${notes.length ? `; removed ${notes.join(' and ')}, left by a step that was cut short` : ''}${branchNote}`
}

function halfGoneGitDir(commonDir: string, record: WorktreeRecord): string | undefined {
  const id = path.basename(record.path)
  return adminDirs(commonDir).find(dir => {
    if (readRecordFile(dir)?.token === record.token || lockToken(lockOf(dir)) === record.token) return true
    const name = path.basename(dir)
    // git names the git dir after the folder, with a number added when that name is taken.
    const sameId = name === id || (name.startsWith(id) && /^\d+$/.test(name.slice(id.length)))
    return sameId && !fs.existsSync(path.join(dir, 'gitdir'))
  })
}

function reasonOf(verdict: Verdict): Reason {
  return verdict === 'keep-asked' ? 'asked' : verdict === 'keep-unknown' ? 'unknown' : 'unsaved'
}

function foreignMessage(where: string, found: Located, findings: Findings, kept: Kept): string {
  const why = found.unproven
    ? 'its lock and record are gone, so it cannot be proven to be the worktree this job entered'
    : `it is locked by someone else (${found.locked || 'no reason given'})`
  const next = found.unproven ? 'Look at it, and remove it by hand if nothing there is needed.' : 'Unlock it with git worktree unlock if it should go.'
  return `Kept ${where}: ${why}; it has ${describeFindings(findings)}.${kept.rescue?.summary ? ` ${kept.rescue.summary}` : ''} ${next}`
}

function keepMessage(folder: string, moved: string, verdict: Verdict, findings: Findings, kept: Kept): string {
  const where = folder + moved
  const detached = kept.detached
    ? ` It was detached from its branch ${kept.detached} at the same commit, so that the next actions/checkout on this runner can delete branches; git -C ${folder} switch ${kept.detached} goes back.`
    : ''
  const rescued = kept.rescue?.summary ? ` ${kept.rescue.summary}` : ''
  switch (verdict) {
    case 'keep-asked':
      return `Kept ${where} as on-exit: keep asked; it has ${describeFindings(findings)}${findings.error ? ` (state not fully known: ${findings.error})` : ''}.${rescued}${detached}`
    case 'keep-unknown':
      return `Kept ${where}: its state could not be determined (${findings.error}), so nothing was removed.${rescued} Look at it, and remove it by hand if nothing there is needed.${detached}`
    default:
      return `Kept ${where}: it has ${describeFindings(findings)}.${rescued} Commit and push the work, or exit with discard-changes: true to remove it anyway.${detached}`
  }
}
