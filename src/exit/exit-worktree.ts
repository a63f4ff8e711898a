// Exits a worktree, in phases: identify its git dir, settle a folder that a cut-short removal left, inspect it
// through the safety gate, decide, then keep it (rescuing a copy of unsaved work) or remove it. Shared by the
// post step, the exit sub-action and the sweep of later jobs, each of which hands in only the evidence it may
// believe. It returns what it found and did, as data: report.ts says it.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { isolationBreach, ownLinks } from './worktree-facts.js'
import type { Evidence } from './evidence.js'
import { throwIfCancelled } from '../git/git-command-manager.js'
import type { OnExit, Reclaim, RescueTarget } from '../record/settings.js'
import { kindFor, type Kind } from './kinds/kind.js'
import type { NextCheckoutFacts } from './next-checkout.js'
import { ownershipOf, recordMatchesLock, type Ownership } from '../record/ownership.js'
import { once } from '../os/once.js'
import { samePath } from '../os/paths.js'
import { residentsOf, type Resident } from '../os/processes.js'
import { clearCutShortAdd, putBack, removeWorktreeFolder, settleFolder, type Cleared, type CutShortAdd, type Outcome, type Settled } from './remove-worktree.js'
import { adminDirs, folderProblem, lockOf, type Repository } from '../git/repository.js'
import { LockTimeoutError, withRepositoryLock } from '../git/repository-lock.js'
import { rescue, type RescueFacts, type RescueResult } from '../rescue/rescue.js'
import { advertisedTips, remoteTips } from '../remote/tips.js'
import { keptRef } from '../record/refs.js'
import { keepSnapshot, type SnapshotFacts } from '../rescue/snapshot.js'
import { inspect, viewSettings, type GateInput } from '../gate/safety-gate.js'
import { decide, hasUnsavedWork, type Findings, type Verdict } from '../gate/findings.js'
import { type OnRemote } from '../remote/tips.js'
import { confirmedByRemote, sharedChanges, type SharedChange } from '../shared/shared-state.js'
import { readRecordFile, writeHints, type RecordHints, type PushTarget } from '../record/state-helper.js'
import { readSmall, writeReplacing } from '../os/untrusted-files.js'
import { park } from './worktree-pool.js'
import { shallowIdentity } from '../git/shallow-file.js'
import { storeProblem } from '../git/object-store.js'
import { listVerified } from '../git/shared-store.js'
import { isOwnPush, pushWorktree, type Pushed } from './push.js'
import { reclaim, type Reclaimed } from './reclaim.js'
import { quoted } from '../os/quote.js'
import { branchCommits, pullRequestAfter, type PullRequestAsk } from './pull-request.js'
import type { PullRequestOutcome } from '../remote/pull-request.js'
import type { UnsavedCommit } from '../gate/findings.js'

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

export interface ExitOptions {
  onExit: OnExit
  discardChanges: boolean
  /** Who exits: the post honours an earlier exit step's keep; the sweep reports no isolation breach. */
  step: 'post' | 'exit' | 'sweep'
  rescue: RescueTarget[]
  /** How long the repository lock is waited for before the worktree is kept and reported. */
  lockTimeoutMs?: number
  /** The branch of the remote to push the worktree's HEAD to first (the push input). */
  pushTo?: string
  /**
   * Where to push when the record is not sealed because no step has a runtime token to seal with (outside a runner:
   * act, a local run). A push is never a removal: what it sent is saved only as the remote of enter says.
   */
  pushTarget?: PushTarget
  /** The remote to ask where the evidence names none of its own: the sweep asks its own main step's remote of enter. */
  onRemote?: () => Promise<OnRemote>
  /** What a kept worktree gives back of its ignored folders; none: nothing. */
  reclaim?: Reclaim
  /** A pull request of what the push sent, once the worktree is judged (the pull-request input). */
  pullRequest?: PullRequestAsk
}

/** What an exit found and did. */
export interface ExitResult {
  evidence: Evidence
  /** Who exited: the exit sub-action while the job runs, or the post or a sweep once it is over. */
  step: ExitOptions['step']
  /** Where the worktree is: the agent may have moved it since enter. */
  path: string
  /** Where the record had it, when git has it registered elsewhere now. */
  movedFrom?: string
  action: OnExit
  removed: boolean
  reason: Reason
  findings?: Findings
  verdict?: Verdict
  /** What the agent changed in the original checkout, which it should have left alone: one line each, its file quoted. */
  breach: string[]
  /** What changed in what every worktree of the repository shares (refs, config, hooks): the job's agent, or another job. */
  shared: SharedChange[]
  rescue?: RescueResult
  /** What the push input pushed first, or why it could not. */
  pushed?: Pushed
  /** Kept: the ignored folders it gave back (the reclaim input). */
  reclaimed?: Reclaimed
  /** The commits the pushed branch brings, oldest first, when a pull request was asked for. */
  commits?: UnsavedCommit[]
  /** The pull request of the pushed branch, or why there is none. */
  pullRequest?: PullRequestOutcome
  /** Kept: the ref that holds its commits (and its snapshot), which the next actions/checkout leaves alone. */
  keptRef?: string
  /** Kept at the end of the job: the branch it was detached from, as the next actions/checkout deletes every branch. */
  detached?: string
  /** Kept whatever was asked, for it is not provably this job's: the lock of someone else, or none at all (unproven). */
  foreign?: { lock?: string; unproven: boolean }
  /** What the removal did, or why the worktree stayed. */
  outcome?: Outcome
  /** Gone: what a cut-short add had left, cleared. */
  cleared?: Cleared
  /** Already exited by an exit step, as what. */
  exited?: string
  /** A person should look: work was kept back, or something went wrong. */
  warning: boolean
}

export async function exitWorktree(evidence: Evidence, options: ExitOptions, repo: Repository): Promise<ExitResult> {
  const result = await exitOnce(evidence, options, repo)
  return options.pullRequest && result.pushed ? { ...result, pullRequest: await pullRequestAfter(result, options.pullRequest) } : result
}

async function exitOnce(evidence: Evidence, options: ExitOptions, repo: Repository): Promise<ExitResult> {
  const base = { evidence, step: options.step, path: evidence.path, breach: [], shared: [], action: 'keep' as const, removed: false }
  const found = locate(repo.commonDir, evidence)
  if (!found) {
    const cleared = evidence.believed.ownAdd
      ? await withRepositoryLock(repo.commonDir, () => clearCutShortAdd(repo, cutShortAdd(evidence)), lockOptions(options))
      : undefined
    return { ...base, reason: 'gone', cleared, warning: false }
  }
  const exited = await exitedBefore(repo, evidence, found, options)
  if (exited) return { ...base, ...(await exitedFacts(repo, evidence, found, options, exited)) }
  const { kind } = found
  const settled = await settleFolder(found.folder, kind.pointer(found.gitDir), found.hints?.removing === true)
  // Pushed first, so that the remote has what went when the gate asks it; never a worktree that is not provably this job's.
  const pushed =
    options.pushTo && mayRemove(found)
      ? await pushWorktree(repo, evidence, kind.own(repo, found.gitDir), found.gitDir, options.pushTo, options.pushTarget)
      : undefined
  // What a pull request lists, read before a removal takes a clone's objects along.
  const commits = options.pullRequest ? await pushedCommits(kind.own(repo, found.gitDir).git, pushed, evidence.believed.base) : undefined
  const onRemote = remoteOf(repo, evidence, found, options)
  const { gate, links } = await gateFor(repo, evidence, found, settled, onRemote)
  const nothingLeft: Findings = { uncommitted: [], unsavedCommits: [], nested: [], tips: [] }
  const [findings, { breach, shared }] = await Promise.all([
    // A clone whose folder is gone took all it had with it: nothing is left to keep.
    kind.ownRepository && settled.state === 'missing' ? nothingLeft : inspect(gate),
    changedBeside(repo, evidence, options, found, pushed)
  ])
  findings.error ??= stateProblem(settled, found, evidence, gate)
  // Locked by someone else, or not provably ours: never removed; but judged, and its work rescued.
  const foreign = !mayRemove(found) && options.onExit === 'remove'
  const decided = decide(foreign ? 'keep' : options.onExit, options.discardChanges, findings)
  const verdict = await verifiedFirst(decided, evidence, findings, settled.state === 'missing' && kind.ownRepository ? undefined : gate.commonDir)
  throwIfCancelled()
  const judged = { ...base, findings, breach, shared, verdict, pushed, commits, movedFrom: samePath(found.folder, evidence.path) ? undefined : evidence.path }
  if (verdict === 'remove-clean' || verdict === 'remove-discard') {
    const outcome = await removeIt({ repo, evidence, options, found, onRemote }, settled, { gate, links, findings, verdict })
    return { ...judged, ...outcomeFacts(outcome, verdict), path: found.folder, outcome }
  }
  const keptAt = await putBack(settled, found.folder, kind.pointer(found.gitDir))
  const kept = await keep({ repo, evidence, options, found, onRemote }, keptAt, { findings, verdict })
  const reclaimed = await reclaimIn(found, settled, gate, findings, options)
  return { ...judged, ...kept, reclaimed, path: keptAt, ...keptFacts(found, foreign, verdict, kept.rescue) }
}

/** The commits a pull request lists: none where nothing was pushed. */
function pushedCommits(
  git: Parameters<typeof branchCommits>[0],
  pushed: Awaited<ReturnType<typeof pushWorktree>> | undefined,
  base: string | undefined
): ReturnType<typeof branchCommits> | Promise<undefined> {
  return pushed && 'commit' in pushed ? branchCommits(git, pushed, base) : Promise.resolve(undefined)
}

/**
 * A removal of what the gate calls clean rests on history read from the object store: what was written there since
 * the agent got it is verified first, and what is not what its id says leaves the state unknown (set in `findings`).
 * Nothing to verify where nothing would go (kept anyway, or discarded as asked), or where nothing is left (`commonDir`).
 */
async function verifiedFirst(verdict: Verdict, evidence: Evidence, findings: Findings, commonDir: string | undefined): Promise<Verdict> {
  if (verdict !== 'remove-clean' || commonDir === undefined) return verdict
  findings.error = await storeProblem(path.join(commonDir, 'objects'), evidence.believed.objects)
  return findings.error === undefined ? verdict : 'keep-unknown'
}

/** What a step cut short in the middle of its add may have left: its path, branch and token, and the base it planned. */
function cutShortAdd(evidence: Evidence): CutShortAdd {
  return { id: evidence.id, path: evidence.path, branch: evidence.branch, token: evidence.token, base: evidence.believed.base }
}

/** Kept by an exit step: decided; what the end of the job does to a kept worktree is still to do. */
async function exitedFacts(
  repo: Repository,
  evidence: Evidence,
  found: Located,
  options: ExitOptions,
  exited: string
): Promise<Pick<ExitResult, 'path' | 'reason' | 'exited' | 'keptRef' | 'detached' | 'warning'>> {
  const kept = exited === 'keep' && mayRemove(found)
  const protectedFrom = kept ? await found.kind.surviveNextCheckout(repo, nextCheckoutFacts(evidence), found.gitDir, found.folder, lockOptions(options)) : {}
  const keptMark = kept ? keptRef(found.entry, evidence.token) : undefined
  return { path: found.folder, reason: 'exited', exited, keptRef: keptMark, ...protectedFrom, warning: false }
}

/**
 * What changed beside the worktree while the job ran: in the original checkout, which the agent should have left
 * alone, and in what every worktree of the repository shares (but what the exit's own push did). The sweep reports
 * neither: it was not there while that job ran.
 */
async function changedBeside(
  repo: Repository,
  evidence: Evidence,
  options: ExitOptions,
  found: Located,
  pushed: Pushed | undefined
): Promise<{ breach: string[]; shared: SharedChange[] }> {
  if (options.step === 'sweep') return { breach: [], shared: [] }
  const own = { id: path.basename(found.entry), branch: evidence.branch, token: evidence.token }
  const [breach, shared] = await Promise.all([
    isolationBreach(evidence),
    sharedChanges(evidence.believed.shared, repo.git, repo.commonDir, own)
      .then(all => all.filter(c => !isOwnPush(pushed, c)))
      .then(changes => confirmedByRemote(changes, repo.commonDir, evidence.believed.push))
  ])
  return { breach, shared }
}

/** Why a worktree was kept, and whether a person should look. */
function keptFacts(found: Located, foreign: boolean, verdict: Verdict, rescue: RescueResult | undefined): Pick<ExitResult, 'reason' | 'foreign' | 'warning'> {
  return {
    reason: found.unproven ? 'unknown' : foreign ? 'foreign' : reasonOf(verdict),
    foreign: foreign ? { lock: found.lock, unproven: found.unproven === true } : undefined,
    warning: foreign || verdict !== 'keep-asked' || rescueWarns(rescue)
  }
}

/** What decides how a kept worktree is made safe from the next actions/checkout. */
function nextCheckoutFacts(evidence: Evidence): NextCheckoutFacts {
  return { ephemeral: evidence.believed.ephemeral, inWorkspace: evidence.believed.inWorkspace, created: evidence.created }
}

/** A rescue a person should hear about: it failed, sent nothing, or left something out. */
function rescueWarns(rescue: RescueResult | undefined): boolean {
  return (
    !!rescue &&
    (!!rescue.failures.length || rescue.unmade !== undefined || !!rescue.withheld || !!rescue.snapshot?.leftOut.length || !!rescue.lfsUnread?.length)
  )
}

/** One exit under way: what it was handed, and the git dir it found. */
interface Exiting {
  repo: Repository
  evidence: Evidence
  options: ExitOptions
  found: Located
  /** What the remote of enter has, asked once. */
  onRemote: () => Promise<OnRemote>
}

/** What the gate found, and what was decided from it. */
interface Judged {
  findings: Findings
  verdict: Verdict
}

interface Located {
  /** A worktree, or a clone of the agent's own (isolation: clone). */
  kind: Kind
  /** Where git keeps its state: the worktree's git dir, or the clone's own .git. */
  gitDir: string
  /** Where this action keeps its lock and record: the worktree's git dir, or the clone's folder of ours in the original. */
  entry: string
  /** Where git has the folder registered. */
  folder: string
  /** Its lock reason, as written. */
  lock?: string
  ownership: Ownership
  /** Hints in its record file, when the record is ours (same token). */
  hints?: RecordHints
  /** Found only by the git dir the post's record names: maybe ours, not provably. */
  unproven?: boolean
}

/**
 * The worktree git dir that is provably the one this record entered: its lock or its record carries the
 * record's token. Known by its git dir, not by its path, so that a worktree the agent moved is found.
 */
export function locate(commonDir: string, evidence: Evidence): Located | undefined {
  const kind = kindFor(evidence)
  // Only ever a folder under <common dir>/worktrees or the clones' folder: an id is a single name.
  const own = evidence.id && isPlainName(evidence.id) ? kind.entry(commonDir, evidence.id) : undefined
  // A clone's entry is the one its id names, where it is known: nothing moves a clone's entry.
  const entries = kind.ownRepository && own ? [] : kind.entries(commonDir)
  for (const entry of own ? [own, ...entries] : entries) {
    const lock = lockOf(entry)
    const file = readRecordFile(entry)
    // A clone's folder is the one its record names (the post's own, the exit's sealed, the sweep's proven made):
    // the entry's gitdir is anyone's to write, and would lead the exit to any folder.
    const folder = kind.folder(entry, evidence.path)
    if (!folder) continue
    const ownership = ownershipOf(lock, file?.token, evidence.token)
    // git marks a worktree "initializing" until its add finishes: at the path planned under the lock, with
    // no record yet, that is this step's own add, cut short.
    const cutShort = evidence.believed.ownAdd && ownership === 'initializing' && !file && samePath(folder, evidence.path)
    if (ownership === 'ours' || file?.token === evidence.token || cutShort)
      return { kind, gitDir: kind.gitDir(entry, folder), entry, folder, lock, ownership, hints: file?.token === evidence.token ? file : undefined }
  }
  return own === undefined ? undefined : unprovenOwn(kind, own, evidence)
}

/**
 * The post's own record names the git dir; neither lock nor record carries a token any more (the agent
 * unlocked it and deleted the record?): it may well be ours, but it cannot be proven. Kept, never removed.
 */
function unprovenOwn(kind: Kind, own: string, evidence: Evidence): Located | undefined {
  const folder = fs.existsSync(own) ? kind.folder(own, evidence.path) : undefined
  if (!evidence.believed.ownAdd || !folder || !samePath(folder, evidence.path) || lockOf(own) || readRecordFile(own)) return undefined
  return { kind, gitDir: kind.gitDir(own, folder), entry: own, folder, ownership: 'unlocked', unproven: true }
}

/** Why what the gate found cannot be believed: a folder that is not the worktree git registered, or history git is told to cut. */
function stateProblem(settled: Settled, found: Located, evidence: Evidence, gate: GateInput): string | undefined {
  return folderProblem(settled.state, found.gitDir) ?? shallowProblem(evidence, gate.commonDir)
}

/** The shallow file of the repository the gate walks is not what it was when the agent got the worktree: history there is not git's. */
function shallowProblem(evidence: Evidence, commonDir: string): string | undefined {
  const then = evidence.believed.shallow
  if (then === undefined || shallowIdentity(commonDir) === then) return undefined
  return `${quoted(path.join(commonDir, 'shallow'))} changed since the agent got the worktree (it tells git where history stops, and can hide commits from the count)`
}

/** Asks the remote of enter, once, what it has; a clone's pushed commits are in its own objects, which its word is checked against. */
function remoteOf(repo: Repository, evidence: Evidence, found: Located, options: ExitOptions): () => Promise<OnRemote> {
  const has = found.kind.own(repo, found.gitDir).git
  return evidence.believed.push || !options.onRemote ? once(() => remoteTips(repo, evidence.believed.push, has)) : options.onRemote
}

/**
 * Asks the remote a submodule had at enter, by its path, what it has: at most once per remote and exit. None for a
 * submodule whose remote of enter is not known (one the agent added, one deeper down, or a record that is a hint).
 */
function submoduleRemotesOf(repo: Repository, evidence: Evidence): (submodule: string) => Promise<OnRemote> | undefined {
  const urls = evidence.believed.submodules ?? {}
  const asked = new Map<string, Promise<OnRemote>>()
  return submodule => {
    if (!Object.hasOwn(urls, submodule)) return undefined
    const url = urls[submodule]
    if (!asked.has(url)) asked.set(url, advertisedTips(repo.commonDir, url, `(${quoted(submodule)}'s remote of enter)`))
    return asked.get(url)
  }
}

function isPlainName(id: string): boolean {
  return id !== '.' && id !== '..' && !/[/\\]/.test(id)
}

/** Its lock leaves it to this job: ours (by the lock's token, or, unlocked, by its record's), or git's own mid-add. */
function mayRemove(found: Located): boolean {
  return !found.unproven && (found.ownership === 'ours' || found.ownership === 'initializing')
}

/** An exit step's decision holds for the post; the mark in the git dir is only believed with what backs it. */
async function exitedBefore(repo: Repository, evidence: Evidence, found: Located, options: ExitOptions): Promise<string | undefined> {
  if (found.hints?.exited === 'parked') return found.ownership === 'parked' ? 'parked' : undefined
  if (found.hints?.exited !== 'keep' || options.step !== 'post') return undefined
  const mark = await repo.git.run(['rev-parse', '--verify', '--quiet', keptRef(found.entry, evidence.token)])
  return mark.exitCode === 0 ? 'keep' : undefined
}

async function gateFor(
  repo: Repository,
  evidence: Evidence,
  found: Located,
  settled: Settled,
  onRemote: () => Promise<OnRemote>
): Promise<{ gate: GateInput; links: string[] }> {
  const { kind } = found
  const intact = settled.state === 'intact'
  const links = intact ? ownLinks(evidence.repository, settled.here, evidence.links) : []
  // A clone's git dir is inside its folder, wherever a removal cut short left it.
  const gitDir = kind.gitDir(found.entry, settled.here)
  const gate: GateInput = {
    repository: repo.git,
    // What a clone borrowed: as its main step recorded it, or (a hint) as the original's ref keeps it.
    ...(await kind.gateFacts(repo, found.entry, gitDir, evidence.believed.borrowed)),
    gitDir,
    folder: intact ? settled.here : undefined,
    fileMode: evidence.fileMode,
    pinned: evidence.pinned,
    filters: evidence.believed.filters,
    excludes: evidence.believed.brought?.excludes,
    included: evidence.believed.brought?.included,
    restored: evidence.believed.brought?.restored,
    baseSha: evidence.believed.base,
    // A clone's branches are its own: they go with it.
    branchesToDelete: kind.ownRepository ? [] : await branchToDelete(repo, evidence, found.gitDir),
    onRemote,
    onSubmoduleRemote: submoduleRemotesOf(repo, evidence),
    machineStays: !evidence.believed.ephemeral,
    localRefsSurvive: !kind.ownRepository && !evidence.believed.ephemeral && !evidence.believed.inWorkspace,
    since: evidence.believed.since,
    ownLinks: links,
    expectIndex: !evidence.believed.checkoutUnfinished,
    sparse: fs.existsSync(path.join(gitDir, 'info', 'sparse-checkout')),
    tolerateDeletions: settled.finishing,
    // Filled by the first pass, read by the check again just before a removal.
    indexMemo: {}
  }
  return { gate, links }
}

/**
 * The branch that goes with the worktree: the one its main step created, when the evidence vouches for it;
 * otherwise only if the worktree has it checked out now. Never one that another worktree has checked out.
 */
async function branchToDelete(repo: Repository, evidence: Evidence, gitDir: string): Promise<string[]> {
  if (!evidence.created || !evidence.branch) return []
  const ref = `ref: refs/heads/${evidence.branch}`
  const head = (dir: string): string => readSmall(path.join(dir, 'HEAD'))?.trim() ?? ''
  if (!evidence.believed.ownBranch && head(gitDir) !== ref) return []
  if ([repo.commonDir, ...adminDirs(repo.commonDir)].some(dir => !samePath(dir, gitDir) && head(dir) === ref)) return []
  // Checked out here, it exists; otherwise ask.
  return head(gitDir) === ref || (await repo.git.branchExists(evidence.branch)) ? [evidence.branch] : []
}

function reasonOf(verdict: Verdict): Reason {
  return verdict === 'keep-asked' ? 'asked' : verdict === 'keep-unknown' ? 'unknown' : 'unsaved'
}

/** How long a process still working inside the folder is waited for before the worktree is kept. */
const RESIDENT_WAIT_MS = 3_000

/** Removes (or parks) the worktree under the repository lock, unless something still works inside it. */
async function removeIt(
  { repo, evidence, options, found }: Exiting,
  settled: Settled,
  { gate, links, findings, verdict }: Judged & { gate: GateInput; links: string[] }
): Promise<Outcome> {
  // The links go first, by unlink, which never touches what they point to.
  for (const link of links) fs.unlinkSync(path.join(settled.here, link))
  const parkable =
    verdict === 'remove-clean' &&
    evidence.recycle &&
    evidence.created &&
    gate.folder !== undefined &&
    !settled.finishing &&
    !gate.sparse &&
    !fs.existsSync(path.join(found.gitDir, 'modules'))
  try {
    return await withRepositoryLock(
      repo.commonDir,
      async (): Promise<Outcome> => {
        // What the verification of its agent's objects hashed in the shared store, the next enter need not.
        if (verdict === 'remove-clean' && !found.kind.ownRepository) listVerified(repo.commonDir)
        const residents = gate.folder ? await waitForResidents(gate.folder) : []
        if (residents.length) return { reason: 'busy', residents }
        if (parkable && (await park(found.kind, repo, evidence.token, found, findings, gate))) return { reason: 'parked' }
        return removeWorktreeFolder(repo, found.kind, found.entry, evidence, findings, gate)
      },
      lockOptions(options)
    )
  } catch (error) {
    if (!(error instanceof LockTimeoutError)) throw error
    return { reason: 'busy', lockTimeout: error.message }
  }
}

function outcomeFacts(outcome: Outcome, verdict: Verdict): Pick<ExitResult, 'reason' | 'removed' | 'action' | 'warning'> {
  switch (outcome.reason) {
    case 'clean':
      return { reason: verdict === 'remove-discard' ? 'discarded' : 'clean', removed: true, action: 'remove', warning: false }
    case 'parked':
      return { reason: 'parked', removed: true, action: 'remove', warning: false }
    default:
      return { reason: outcome.reason, removed: false, action: 'keep', warning: true }
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

/**
 * Keeps the worktree: unsaved work is first copied into one commit that a ref keeps alive (and off the
 * machine, where rescue asks); where the worktree is provably this job's, it is marked kept, an entered one
 * gets its lock back, and the exit's decision is noted for the post. While the job runs (the exit sub-action)
 * it stays as the agent has it; at the end of the job (the post, a later sweep) it is made safe from the next
 * actions/checkout.
 */
async function keep(exiting: Exiting, folder: string, judged: Judged): Promise<Pick<ExitResult, 'rescue' | 'keptRef' | 'detached'>> {
  const { repo, evidence, options, found } = exiting
  const { findings } = judged
  const rescued = await copyUnsaved(exiting, folder, judged)
  if (!mayRemove(found)) return { rescue: rescued }
  let mark = rescued?.snapshot?.ref
  if (!rescued && findings.head) {
    mark = keptRef(found.entry, evidence.token)
    // A clone's HEAD may be a commit of its own: it comes into the original.
    await found.kind.bringIn(repo, found.gitDir, findings.head, mark)
  }
  giveBackLock(evidence, found)
  // Kept on purpose from now on: the post after an exit does not decide again, and later sweeps only report it.
  writeHints(found.entry, { exited: 'keep' }, evidence.own)
  const protectedFrom =
    options.step === 'exit' ? {} : await found.kind.surviveNextCheckout(repo, nextCheckoutFacts(evidence), found.gitDir, folder, lockOptions(options))
  return { rescue: rescued, keptRef: mark, ...protectedFrom }
}

/** Unsaved work (or a state that could not be read) goes into one commit a ref keeps, and off the machine where asked. */
async function copyUnsaved(
  { repo, evidence, options, found, onRemote }: Exiting,
  folder: string,
  { findings, verdict }: Judged
): Promise<RescueResult | undefined> {
  // Also an unknown state, and a branch without a commit yet: the files as they are on disk go into it.
  if (!(hasUnsavedWork(findings) || verdict === 'keep-unknown') || !(findings.head || fs.existsSync(folder))) return undefined
  const { believed } = evidence
  const facts: SnapshotFacts & RescueFacts = {
    token: evidence.token,
    name: evidence.name,
    path: evidence.path,
    owner: evidence.owner,
    leg: evidence.leg,
    links: evidence.links,
    fileMode: evidence.fileMode,
    pinned: evidence.pinned,
    rescueMaxBytes: evidence.rescueMaxBytes,
    filters: believed.filters,
    base: believed.base,
    brought: believed.brought,
    push: believed.push,
    unsealed: evidence.source === 'hint',
    onRemote: (await onRemote()).tips
  }
  const gitDir = found.kind.gitDir(found.entry, folder)
  // A clone's snapshot is made in the clone (its objects are there), then brought into the original, where the
  // rescue finds it and a later job can.
  const own = found.kind.own(repo, gitDir)
  const snapshot = await keepSnapshot({ repo: own, facts, gitDir, entry: found.entry, folder: fs.existsSync(folder) ? folder : undefined, findings })
  if (typeof snapshot !== 'string') await found.kind.bringIn(repo, gitDir, snapshot.commit, snapshot.ref, snapshot.ref)
  return rescue(snapshot, facts, options.rescue, repo)
}

/**
 * A kept worktree of this job's gives back the ignored folders the reclaim input names (reclaim.ts), but what the
 * gate counted as work; never one whose state could not be read. At the end of the job (the post, a sweep) that is
 * noted, so that no later sweep does it again.
 */
async function reclaimIn(
  found: Located,
  settled: Settled,
  gate: GateInput,
  findings: Findings,
  options: Pick<ExitOptions, 'reclaim' | 'step'>
): Promise<Reclaimed | undefined> {
  const rule = options.reclaim
  // Only in a worktree as the gate read it, in place: none that is missing, moved back, or half removed.
  if (settled.state !== 'intact' || settled.finishing) return undefined
  if (!rule || (!rule.patterns.length && !rule.tagged) || !gate.folder || findings.error !== undefined || !mayRemove(found)) return undefined
  const restored = (gate.restored ?? []).map(file => Buffer.from(file, 'latin1').toString('utf8'))
  const reclaimed = await reclaim(rule, {
    folder: gate.folder,
    commonDir: gate.commonDir,
    gitDir: gate.gitDir,
    head: findings.head,
    settings: viewSettings(gate),
    excludes: gate.excludes,
    ownLinks: gate.ownLinks,
    work: [
      ...findings.uncommitted.map(file => file.path),
      ...findings.nested.map(nested => nested.path),
      ...(findings.special ?? []).map(file => file.path),
      ...(findings.broughtChanged ?? []),
      ...restored
    ]
  })
  if (options.step !== 'exit') writeHints(found.entry, { reclaimed: new Date().toISOString() })
  return reclaimed
}

/**
 * A worktree an ended job kept on purpose gives back its ignored folders, once (the sweep, by its record's rule):
 * judged by the gate first, for what it counts stays. Its remote is not asked: only its files matter here.
 */
export async function reclaimLeftover(evidence: Evidence, repo: Repository, rule: Reclaim): Promise<Reclaimed | undefined> {
  if (!rule.patterns.length && !rule.tagged) return undefined
  const found = locate(repo.commonDir, evidence)
  if (!found || !mayRemove(found) || found.hints?.reclaimed) return undefined
  const settled = await settleFolder(found.folder, found.kind.pointer(found.gitDir), false)
  const notAsked = (): Promise<OnRemote> => Promise.resolve({ tips: [], unasked: 'only its files are judged' })
  const { gate } = await gateFor(repo, evidence, found, settled, notAsked)
  return reclaimIn(found, settled, gate, await inspect(gate), { reclaim: rule, step: 'sweep' })
}

/** A worktree entered by path gets back the lock it had. */
function giveBackLock(evidence: Evidence, found: Located): void {
  if (evidence.priorLock === undefined || !recordMatchesLock(found.lock, evidence)) return
  if (evidence.priorLock === '') fs.rmSync(path.join(found.entry, 'locked'), { force: true })
  else writeReplacing(path.join(found.entry, 'locked'), evidence.priorLock)
}
