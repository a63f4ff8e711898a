// One lock per git common dir, across processes: git's worktree and ref commands race when several
// jobs share one repository (a half-written commondir, packed-refs.lock, config.lock).
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { isAlive, pidSpace } from '../os/processes.js'
import { readSmall } from '../os/untrusted-files.js'
import { mayBeOurs, moveAsideUnlessOurs } from './lock-aside.js'
import { quoted } from '../os/quote.js'

export const LOCK_FILE = 'agent-worktree.lock'

export interface LockOptions {
  /** How long to wait for the lock before failing. */
  timeoutMs: number
  /** A holder that has not refreshed the lock for this long is gone (a killed process, another host). */
  staleMs: number
}

const DEFAULTS: LockOptions = { timeoutMs: 180_000, staleMs: 30_000 }

export class LockTimeoutError extends Error {}

interface Holder {
  pid: number
  host: string
  /** Where its pid names it (processes.ts pidSpace): a runner in another container that shares the host's name has its own pids. */
  space?: string
  id: string
  /** The git process the holder is running, which may outlive a killed holder by a moment. */
  child?: number
}

/** The lock this process holds, if any. */
let held: { file: string; holder: Holder } | undefined

export function lockHeld(): boolean {
  return held !== undefined
}

/** Records the git process now running under the lock: until it ends, the lock is not stale. */
export function noteLockChild(pid: number): void {
  if (!held) return
  held.holder.child = pid
  // Replaced whole by a rename, so that a reader never sees half a record.
  const temp = `${held.file}.${held.holder.id}.tmp`
  try {
    fs.writeFileSync(temp, JSON.stringify(held.holder))
    fs.renameSync(temp, held.file)
  } catch {
    // A full disk: the lock stays, judged by its age, which the holder keeps fresh.
    fs.rmSync(temp, { force: true })
  }
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Whether the holder's pid can be looked up here: this host, and the pid namespace and boot it was written in. */
function lookedUpHere(holder: Holder): boolean {
  return holder.host === os.hostname() && holder.space !== undefined && holder.space === pidSpace()
}

/**
 * What a lock file holds, and how old its time says it is. That time is anyone's to set who can write the common
 * dir (the agent's `touch -d 2099-01-01`): one in the future counts as old as one as far in the past, so that
 * beyond the staleness bound (what it allows for clocks apart) a lock is stale either way.
 */
function readHolder(file: string): { holder?: Holder; text: string; mtimeMs: number; ageMs: number } | undefined {
  try {
    // The lock lives in the common git dir, which the agent can write: a pipe in its place is never read.
    const text = readSmall(file) ?? ''
    const { mtimeMs } = fs.lstatSync(file)
    const ageMs = Math.abs(Date.now() - mtimeMs)
    try {
      return { holder: JSON.parse(text) as Holder, text, mtimeMs, ageMs }
    } catch {
      return { text, mtimeMs, ageMs } // still being written, or torn by a crash: judged by age
    }
  } catch {
    return undefined
  }
}

/** Since when, by this process's clock, a waiter has seen the lock as it is now (its text and time). */
interface Watch {
  seen?: string
  since: number
}

/**
 * Removes a lock whose holder is gone: dead by its pid, or not refreshed for the staleness bound, by its time or
 * by how long this waiter has watched it not change (a live holder refreshes its time). Stealers take a second,
 * short-lived lock first and check that the lock is still the one they judged stale, so that two of them never
 * remove a lock a third just took.
 */
function stealIfStale(file: string, options: LockOptions, watch: Watch): void {
  const seen = readHolder(file)
  if (!seen) return
  const now = `${seen.mtimeMs} ${seen.text}`
  if (watch.seen !== now) Object.assign(watch, { seen: now, since: Date.now() })
  const holder = seen.holder
  const deadHere = holder !== undefined && lookedUpHere(holder) && !isAlive(holder.pid) && !(holder.child && isAlive(holder.child))
  // A lock is a regular file a step can read: anything else in its place (a folder, a named pipe, a link) is no step's lock.
  const notALock = !mayBeOurs(file)
  const unchangedMs = Date.now() - watch.since
  if (!deadHere && !notALock && seen.ageMs < options.staleMs && unchangedMs < options.staleMs) return
  const guard = `${file}.steal`
  try {
    fs.writeFileSync(guard, String(process.pid), { flag: 'wx' })
  } catch {
    // Another stealer is at work; a guard left by a killed stealer is old and goes; no guard of ours is anything but a file.
    const guardAge = readHolder(guard)?.ageMs ?? 0
    if (moveAsideUnlessOurs(guard) && guardAge > options.staleMs) fs.rmSync(guard, { force: true })
    return
  }
  try {
    if (notALock) moveAsideUnlessOurs(file)
    else if (readHolder(file)?.text === seen.text) fs.rmSync(file, { force: true })
  } finally {
    fs.rmSync(guard, { force: true })
  }
}

/** An error that names the disk and the folder when the disk is full, the plain error otherwise. */
export function diskError(error: NodeJS.ErrnoException, dir: string): Error {
  if (error.code !== 'ENOSPC' && !diskFull(dir)) return error
  return new Error(
    `The disk that holds ${quoted(dir)} is full (no space left on device): ${error.message.trim().split('\n')[0]}. Free space on it, for example by removing worktrees or build output that earlier jobs left there, or set worktrees-dir to a folder on a disk with room.`
  )
}

/** Whether the disk that holds `dir` (or its nearest existing parent) has less than a megabyte left. */
export function diskFull(dir: string): boolean {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      const stats = fs.statfsSync(at)
      return stats.bavail * stats.bsize < 1024 * 1024
    } catch {
      if (path.dirname(at) === at) return false
    }
  }
}

/**
 * Waits until no step holds the lock, taking over one that a killed step left: afterwards the repository
 * is as the last git call left it, and no lock file of a crash stays behind.
 */
export async function settle(commonDir: string, options: Partial<LockOptions> = {}): Promise<void> {
  // Nothing of the lock's there, in the usual case: no need to take it.
  if (!fs.readdirSync(commonDir).some(name => name.startsWith(LOCK_FILE))) return
  await withRepositoryLock(commonDir, () => Promise.resolve(), options)
}

/** Runs `fn` holding the lock of the repository whose common git dir is `commonDir`. */
/** A step killed while it waited, or while it rewrote its record, leaves a draft: the holder clears old ones. */
function clearOldDrafts(commonDir: string, staleMs: number): void {
  for (const name of fs.readdirSync(commonDir)) {
    if (!name.startsWith(`${LOCK_FILE}.`) || !name.endsWith('.tmp')) continue
    const draftFile = path.join(commonDir, name)
    if (!moveAsideUnlessOurs(draftFile)) continue
    const seen = readHolder(draftFile)
    // Half-written means its writer was killed, or is writing it now and will write it again.
    const writerGone = !seen?.holder || (lookedUpHere(seen.holder) && !isAlive(seen.holder.pid))
    if (seen && (writerGone || seen.ageMs > staleMs)) fs.rmSync(draftFile, { force: true })
  }
}

export async function withRepositoryLock<T>(commonDir: string, fn: () => Promise<T>, given: Partial<LockOptions> = {}): Promise<T> {
  const options = { ...DEFAULTS, ...given }
  const file = path.join(commonDir, LOCK_FILE)
  const me: Holder = { pid: process.pid, host: os.hostname(), space: pidSpace(), id: randomBytes(6).toString('hex') }
  const started = Date.now()
  // Written aside, then linked into place, which fails when the lock exists: a lock file is never half-written.
  // On a full disk there is no room for the draft: an empty lock file, judged by its age, has to do.
  const draft = `${file}.${me.id}.tmp`
  const writeDraft = (): boolean => {
    try {
      fs.writeFileSync(draft, JSON.stringify(me))
      return true
    } catch (error) {
      fs.rmSync(draft, { force: true })
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
      return false
    }
  }
  let drafted = writeDraft()
  const watch: Watch = { since: started }
  for (let attempt = 0; ; attempt++) {
    try {
      if (drafted) fs.linkSync(draft, file)
      else fs.closeSync(fs.openSync(file, 'wx'))
      fs.rmSync(draft, { force: true })
      break
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // A holder clears old drafts, a long wait's among them: write it again.
      if (code === 'ENOENT') drafted = writeDraft()
      else if (code !== 'EEXIST') {
        fs.rmSync(draft, { force: true })
        throw diskError(error as NodeJS.ErrnoException, commonDir)
      }
    }
    stealIfStale(file, options, watch)
    if (Date.now() - started > options.timeoutMs) {
      fs.rmSync(draft, { force: true })
      const seen = readHolder(file)
      const who = seen?.holder ? `process ${seen.holder.pid} on ${seen.holder.host}` : 'another process'
      throw new LockTimeoutError(
        `Timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for ${quoted(file)}, held by ${who}. ` +
          'Another agent-worktree step is working on this repository; if none is, delete that file.'
      )
    }
    // Short, growing, jittered waits: most holds last tens of milliseconds.
    await sleep(Math.min(20 * 2 ** Math.min(attempt, 4), 250) * (0.5 + Math.random()))
  }
  held = { file, holder: me }
  clearOldDrafts(commonDir, options.staleMs)
  // A holder refreshes the lock, so that a long hold (a fetch) is never taken for a dead one.
  const heartbeat = setInterval(() => {
    const now = new Date()
    fs.utimes(file, now, now, () => undefined)
  }, options.staleMs / 3)
  heartbeat.unref()
  try {
    return await fn()
  } finally {
    clearInterval(heartbeat)
    held = undefined
    if (readHolder(file)?.holder?.id === me.id) fs.rmSync(file, { force: true })
  }
}
