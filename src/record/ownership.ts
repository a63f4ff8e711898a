// Whose is a worktree, and is its job over? The runner identity that two runners on one host cannot
// share, the job identity that tells two jobs of one runner apart, and the rules by which a worktree of
// another job may be touched at all.
import * as os from 'node:os'
import * as path from 'node:path'
import { isSameProcessAlive, pidSpace, startTime, type ProcessRef } from '../os/processes.js'
import { quoted } from '../os/quote.js'

export interface Owner {
  /** RUNNER_NAME: self-hosted runners default it to the host name, so it is not unique by itself. */
  runner: string
  host: string
  /** The runner's work folder (where RUNNER_TEMP lives): two runners on one host never share it. */
  workFolder: string
  /** `<run id>-<attempt>`; legs of a matrix share it. */
  run: string
  job: string
  /** RUNNER_TRACKING_ID: one per job, also per leg of a matrix. */
  tracking: string
  /** The process that started the step (the runner's worker): alive exactly while the job runs. */
  worker?: ProcessRef
  /** Where the worker's pid names it: the pid namespace and boot of enter (processes.ts pidSpace). */
  pidSpace?: string
  /** When the job entered the worktree. */
  since: string
}

/** A job can run at most 5 days on a self-hosted runner; a worktree held longer is held by no live job. */
export const MAX_JOB_AGE_MS = 6 * 24 * 60 * 60 * 1000

export function currentOwner(env: NodeJS.ProcessEnv = process.env, now = new Date()): Owner {
  return {
    runner: env.RUNNER_NAME ?? '',
    host: os.hostname(),
    workFolder: env.RUNNER_TEMP ? path.dirname(path.resolve(env.RUNNER_TEMP)) : '',
    run: env.GITHUB_RUN_ID ? `${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT || '1'}` : '',
    job: env.GITHUB_JOB ?? '',
    tracking: env.RUNNER_TRACKING_ID ?? '',
    worker: { pid: process.ppid, start: startTime(process.ppid) },
    pidSpace: pidSpace(),
    since: now.toISOString()
  }
}

/** Inside a runner: without a runner name nothing tells one machine's jobs from another's. */
export function inRunner(me: Owner): boolean {
  return me.runner !== ''
}

/**
 * Whether a later job's sweep (enter's) finishes what a job leaves here: only on a machine that outlives its jobs and
 * is known as a runner's; not on a GitHub-hosted runner, whose machine goes with the job, nor outside a runner.
 */
export function sweepsHere(env: NodeJS.ProcessEnv = process.env): boolean {
  return !!env.RUNNER_NAME && env.RUNNER_ENVIRONMENT !== 'github-hosted'
}

export function sameRunner(a: Owner, b: Owner): boolean {
  return a.runner !== '' && a.runner === b.runner && a.host === b.host && a.workFolder === b.workFolder
}

function sameWorker(a: Owner, b: Owner): boolean {
  return a.worker !== undefined && b.worker !== undefined && a.worker.pid === b.worker.pid && a.worker.start === b.worker.start
}

export function sameJob(a: Owner, b: Owner): boolean {
  // Outside a runner (a local run), the process that started the steps is all that tells jobs apart.
  if (a.runner === '' && b.runner === '') return a.host === b.host && a.tracking === b.tracking && sameWorker(a, b)
  if (!sameRunner(a, b)) return false
  if (a.tracking && b.tracking) return a.tracking === b.tracking
  return a.run === b.run && a.job === b.job && sameWorker(a, b)
}

/**
 * Why the job that owns a worktree is provably over, or undefined when it may still run. One runner runs
 * one job at a time; on this host a job's worker process lives as long as the job, which a lookup proves only in
 * the pid namespace and boot that recorded it (a runner in another container sees none of ours, nor we its);
 * no job outlives MAX_JOB_AGE_MS. Outside a runner nothing is proven.
 */
export function jobOver(owner: Owner | undefined, me: Owner, now = Date.now()): string | undefined {
  if (!owner || !inRunner(me)) return undefined
  if (sameJob(owner, me)) return undefined
  if (sameRunner(owner, me)) return `an earlier job of this runner (${describeOwner(owner)})`
  if (owner.host === me.host && owner.worker && samePidSpace(owner, me) && !isSameProcessAlive(owner.worker))
    return `a job whose runner process has ended (${describeOwner(owner)})`
  const age = now - Date.parse(owner.since)
  if (age > MAX_JOB_AGE_MS) return `a job that started ${Math.floor(age / 86_400_000)} days ago (${describeOwner(owner)})`
  return undefined
}

function samePidSpace(a: Owner, b: Owner): boolean {
  return a.pidSpace !== undefined && a.pidSpace === b.pidSpace
}

/**
 * Who a job is, for people: each field quoted as a name (a record read from a git dir is anyone's to write, and so
 * are its fields: any text, or none). `name`: how a field is shown, as a name of the log by default.
 */
export function describeOwner(owner: Owner, name: (text: string) => string = quoted): string {
  const field = (value: unknown): string => (typeof value === 'string' ? value : '')
  const [run, job, runner] = [field(owner.run), field(owner.job), field(owner.runner)]
  const [runId, attempt = ''] = run.split('-')
  return [run && `run ${name(runId)} attempt ${name(attempt)}`, job && `job ${name(job)}`, runner && `runner ${name(runner)}`, `on ${name(field(owner.host))}`]
    .filter(Boolean)
    .join(' ')
}

// Lock reasons: the one place that knows their formats. A job's lock carries its token; the pool's name the
// time a worktree was parked, or why it was taken out of the pool.
const PREFIX = 'agent-worktree '
const PARKED = 'agent-worktree parked '
const HELD_BACK = 'agent-worktree: taken out of the pool: '
/** git's own lock while `git worktree add` runs. */
const INITIALIZING = 'initializing'

/** The lock reason of a job: the token proves the worktree its own; the rest is for people reading git worktree list. */
export function lockReason(token: string, owner: Owner): string {
  return `${PREFIX}${token}: ${describeOwner(owner, text => text)}`.replace(/[\r\n]/g, ' ')
}

/** The lock reason of a worktree parked in the pool at `since` (an ISO time). */
export function parkedLock(since: string): string {
  return `${PARKED}${since}`
}

/** The lock reason of a parked worktree that gained something: out of the pool, kept, `why`. */
export function heldBackLock(why: string): string {
  return `${HELD_BACK}${why}`.replace(/[\r\n]/g, ' ')
}

/** What a worktree's lock says, read from its reason (undefined: not locked). */
export type Lock =
  | { kind: 'unlocked' }
  | { kind: 'initializing' }
  | { kind: 'job'; token: string }
  | { kind: 'parked'; since?: number }
  | { kind: 'held-back' }
  | { kind: 'other'; reason: string }

export function parseLock(reason: string | undefined): Lock {
  if (reason === undefined) return { kind: 'unlocked' }
  if (reason === INITIALIZING) return { kind: 'initializing' }
  const token = /^agent-worktree ([0-9a-f]{16}):/.exec(reason)?.[1]
  if (token) return { kind: 'job', token }
  if (reason.startsWith(PARKED)) {
    const since = Date.parse(reason.slice(PARKED.length))
    return { kind: 'parked', since: Number.isNaN(since) ? undefined : since }
  }
  if (reason.startsWith(HELD_BACK)) return { kind: 'held-back' }
  return { kind: 'other', reason }
}

/** The token of an agent-worktree lock reason, or undefined for any other lock. */
export function lockToken(reason: string | undefined): string | undefined {
  const lock = parseLock(reason)
  return lock.kind === 'job' ? lock.token : undefined
}

/**
 * Whether a job's lock and a record carry one token: the record is the one the step that set the lock wrote (or
 * the lock is the one the record's step set). Both are files the agent can write: a hint until proven.
 */
export function recordMatchesLock<R extends { token: string }>(reason: string | undefined, record: R | undefined): record is R {
  const token = lockToken(reason)
  return token !== undefined && record?.token === token
}

/**
 * Whose a worktree's git dir is, for the job whose token is `token`, from its lock and the token of the record
 * in it (both of which the agent can write: a caller proves more before it removes anything):
 * - ours: the lock carries our token, or, unlocked or mid-add, the record does;
 * - initializing: git's add is under way, and no record says whose;
 * - parked, held-back: in the pool, or taken out of it;
 * - another-job: another job's agent-worktree lock;
 * - unlocked: no lock and no record of ours;
 * - foreign: locked by someone else, by hand or by another tool (never removed).
 */
export type Ownership = 'ours' | 'initializing' | 'parked' | 'held-back' | 'another-job' | 'unlocked' | 'foreign'

export function ownershipOf(lockReason: string | undefined, recordToken: string | undefined, token: string): Ownership {
  const lock = parseLock(lockReason)
  switch (lock.kind) {
    case 'job':
      return lock.token === token ? 'ours' : 'another-job'
    case 'unlocked':
    case 'initializing':
      return recordToken === token ? 'ours' : lock.kind
    case 'parked':
    case 'held-back':
      return lock.kind
    default:
      return 'foreign'
  }
}
