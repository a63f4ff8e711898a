// The exit sub-action: leave a worktree in the middle of a job; the post step never overrides it.
import * as core from '@actions/core'
import { evidenceOf } from '../exit/evidence.js'
import { exitWorktree } from '../exit/exit-worktree.js'
import { findRecord, setupOfEnter } from '../exit/find-record.js'
import { CancelledError, handleCancellation } from '../git/git-command-manager.js'
import type { PushRequest } from '../record/settings.js'
import { pushBranch } from '../enter/plan.js'
import { getExitSettings } from '../runner/inputs.js'
import { POST_LOCK_TIMEOUT_MS } from './post.js'
import { pushFailure, report, reportGone, setCancelledOutputs, setExitOutputs } from '../runner/report/exit.js'
import { writeSummary } from '../runner/report/summary.js'
import { pinRecorded } from '../git/git-setup.js'
import { listConfig, type Repository } from '../git/repository.js'
import { ENV_WORKTREE_PATH, type WorktreeRecord } from '../record/state-helper.js'

export async function run(): Promise<void> {
  handleCancellation()
  try {
    const settings = getExitSettings()
    const enter = setupOfEnter(settings.path)
    if ('gone' in enter) return reportGone(enter.gone, enter.repository)
    if (enter.setup) await pinRecorded(enter.setup, settings.path ?? process.env[ENV_WORKTREE_PATH]!, listConfig)
    const found = await findRecord(settings.path)
    if ('gone' in found) return reportGone(found.gone, found.repository)
    const { record, repo, sealed } = found
    // Without an on-exit of its own: the main step's, when it was given; else remove what was created, keep
    // what was entered by path.
    const onExit = settings.onExit ?? (record.onExitGiven ? record.onExit : record.created ? 'remove' : 'keep')
    const options = {
      onExit,
      discardChanges: settings.discardChanges,
      step: 'exit' as const,
      rescue: settings.rescue ?? record.rescue,
      lockTimeoutMs: POST_LOCK_TIMEOUT_MS,
      pushTo: await pushTo(settings.push, record, repo),
      // Outside a runner no step has a runtime token, so no record is sealed: the push goes where the record says.
      pushTarget: !sealed && !process.env.ACTIONS_RUNTIME_TOKEN ? record.push : undefined
    }
    const result = await exitWorktree(evidenceOf(record, sealed ? 'sealed' : 'hint'), options, repo)
    report(result)
    setExitOutputs(result)
    await writeSummary(result)
    // A push asked for and not made fails the step: what the workflow does next expects the branch there.
    if (result.pushed && 'failed' in result.pushed) core.setFailed(pushFailure(result.pushed))
  } catch (error) {
    // A cancelled exit leaves the worktree as it was: the outputs say so, for a step that runs always().
    if (error instanceof CancelledError) setCancelledOutputs(error.message)
    core.setFailed((error as Error).message)
  }
}

/** The branch to push to: the exit's own push input, else the main step's. */
async function pushTo(push: PushRequest | false | undefined, record: WorktreeRecord, repo: Repository): Promise<string | undefined> {
  if (push === undefined) return record.pushTo
  return push === false ? undefined : pushBranch(repo, push, record.branch)
}
