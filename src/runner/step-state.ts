// The main step's state, which the runner hands to the post step (STATE_<key>): the record, the common dir, the
// restore ref.
import * as core from '@actions/core'
import { MAX_STATE_BYTES, STATE_COMMON_DIR, STATE_RECORD, STATE_RESTORE_REF, type WorktreeRecord } from '../record/state-helper.js'

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

export function loadRecordState(): WorktreeRecord | undefined {
  const text = core.getState(STATE_RECORD)
  return text ? (JSON.parse(text) as WorktreeRecord) : undefined
}
