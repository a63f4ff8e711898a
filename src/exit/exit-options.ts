// How an exit goes, from the record of enter: the post's as the main step was told; the exit sub-action's by its
// own inputs where it has them, else as the main step was told.
import type { OnExit, PullRequestRequest, Reclaim, RescueTarget } from '../record/settings.js'
import { canSeal, type WorktreeRecord } from '../record/state-helper.js'
import type { ExitOptions } from './exit-worktree.js'

/**
 * How long the post waits for another step's hold on the repository: it runs under the main step's time
 * limit, and after a cancel the runner gives it little time. Past that it keeps the worktree, and the
 * sweep of a later job finishes. An exit step waits as long.
 */
export const POST_LOCK_TIMEOUT_MS = 30_000

/** What an exit step's own inputs say: undefined, as the main step was told. */
export interface ExitStep {
  onExit?: OnExit
  discardChanges: boolean
  rescue?: RescueTarget[]
  /** The branch to push to, checked; false: nothing is pushed. */
  pushTo?: string | false
  reclaim?: Reclaim
  /** The record carries this job's seal. */
  sealed: boolean
}

/** The exit of the post (no `step`), or of an exit step. */
export function exitOptionsOf(record: WorktreeRecord, step?: ExitStep): ExitOptions {
  if (!step)
    return {
      onExit: record.onExit,
      discardChanges: record.discardChanges,
      step: 'post',
      rescue: record.rescue,
      lockTimeoutMs: POST_LOCK_TIMEOUT_MS,
      pushTo: record.pushTo,
      reclaim: reclaimOf(record)
    }
  return {
    // Without an on-exit of its own: the main step's, when it was given; else remove what was created, keep
    // what was entered by path.
    onExit: step.onExit ?? (record.onExitGiven ? record.onExit : record.created ? 'remove' : 'keep'),
    discardChanges: step.discardChanges,
    step: 'exit',
    rescue: step.rescue ?? record.rescue,
    lockTimeoutMs: POST_LOCK_TIMEOUT_MS,
    pushTo: step.pushTo === undefined ? record.pushTo : step.pushTo || undefined,
    reclaim: step.reclaim ?? reclaimOf(record),
    // Where no step could seal a record (no runtime token, no RUNNER_TEMP for a seal key): the push goes where the record says.
    pushTarget: !step.sealed && !canSeal() ? record.push : undefined
  }
}

/** What a kept worktree gives back, as the main step was told; a record from before the input: CACHEDIR.TAG folders. */
export function reclaimOf(record: Pick<WorktreeRecord, 'reclaim'>): Reclaim {
  return record.reclaim ?? { patterns: [], tagged: true }
}

/**
 * The pull request an exit opens: as the exit step's own inputs ask, else as the main step's did, under the title
 * given last; none when nothing is pushed.
 */
export function pullRequestAsked(
  record: WorktreeRecord,
  pushTo: string | undefined,
  step?: { pullRequest?: { draft: boolean } | false; pullRequestTitle?: string }
): PullRequestRequest | undefined {
  const asked = step?.pullRequest === undefined ? record.pullRequest : step.pullRequest || undefined
  if (!pushTo || !asked) return undefined
  return { draft: asked.draft, title: step?.pullRequestTitle ?? record.pullRequest?.title }
}
