// The main step's state, which the runner hands to the post step (STATE_<key>): the record, the common dir, the
// restore ref. Saved and read here only.
import { core } from './toolkit.js'
import type { WorktreeRecord } from '../record/state-helper.js'

/** State key of the main step: the worktree record, saved before anything is created, and again as it grows. */
const STATE_RECORD = 'worktree'
/** State key of the main step: the repository's common git dir, saved before its lock is taken. */
const STATE_COMMON_DIR = 'common-dir'
/** State key of the main step: the ref a restore fetches into, saved before the fetch; the post deletes what is left. */
const STATE_RESTORE_REF = 'restore-ref'

/** Each state value reaches the post as one environment variable, and Linux refuses one over 128 KiB. */
const MAX_STATE_BYTES = 32 * 1024

/**
 * Saves every state key of the main step, empty, before anything else: the runner applies a step's state after
 * the environment, so a STATE_<key> that a later step exports through GITHUB_ENV never reaches the post.
 */
export function claimState(): void {
  for (const key of [STATE_RECORD, STATE_COMMON_DIR, STATE_RESTORE_REF]) core.saveState(key, '')
}

export function saveRecordState(record: WorktreeRecord): void {
  const text = JSON.stringify(record)
  if (Buffer.byteLength(text) > MAX_STATE_BYTES)
    throw new Error(`the worktree's record is ${Buffer.byteLength(text)} bytes, more than the ${MAX_STATE_BYTES} a step's state may hold`)
  core.saveState(STATE_RECORD, text)
}

export function saveCommonDirState(commonDir: string): void {
  core.saveState(STATE_COMMON_DIR, commonDir)
}

export function saveRestoreRefState(ref: string): void {
  core.saveState(STATE_RESTORE_REF, ref)
}

/** What the main step saved, for its post: '' for what it did not get to save. */
export function loadState(): { record?: WorktreeRecord; commonDir: string; restoreRef: string } {
  const text = core.getState(STATE_RECORD)
  return {
    record: text ? (JSON.parse(text) as WorktreeRecord) : undefined,
    commonDir: core.getState(STATE_COMMON_DIR),
    restoreRef: core.getState(STATE_RESTORE_REF)
  }
}
