// The exit sub-action: leave a worktree in the middle of a job; the post step never overrides it.
import { core } from '../runner/toolkit.js'
import { evidenceOf } from '../exit/evidence.js'
import { exitWorktree } from '../exit/exit-worktree.js'
import { findRecord, setupOfEnter } from '../exit/find-record.js'
import { CancelledError, handleCancellation } from '../git/git-command-manager.js'
import { pushBranch } from '../enter/plan.js'
import { checkPullRequest, getExitSettings } from '../runner/inputs.js'
import { exitOptionsOf, pullRequestAsked } from '../exit/exit-options.js'
import { pushFailure, report, reportGone, setCancelledOutputs, setExitOutputs } from '../runner/report/exit.js'
import { pullRequestAsk } from '../runner/pull-request.js'
import { pullRequestFailure, unopened } from '../runner/report/pull-request.js'
import { writeSummary } from '../runner/report/summary.js'
import { pinRecorded } from '../git/git-setup.js'
import { listConfig } from '../git/repository.js'
import { ENV_WORKTREE_PATH } from '../record/state-helper.js'

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
    // The exit's own push input, checked; the main step's was checked at enter.
    const pushTo = settings.push && (await pushBranch(repo, settings.push, record.branch))
    const { onExit, discardChanges, rescue, reclaim } = settings
    const options = exitOptionsOf(record, { onExit, discardChanges, rescue, pushTo, sealed, reclaim })
    checkPullRequest(settings.pullRequest, options.pushTo !== undefined, settings.pullRequestTitle, record.pullRequest)
    options.pullRequest = pullRequestAsk(pullRequestAsked(record, options.pushTo, settings), record.pullBase)
    const result = await exitWorktree(evidenceOf(record, sealed ? 'sealed' : 'hint'), options, repo)
    report(result)
    setExitOutputs(result)
    await writeSummary(result)
    // A push asked for and not made fails the step: what the workflow does next expects the branch there.
    if (result.pushed && 'failed' in result.pushed) core.setFailed(pushFailure(result.pushed))
    // So does a pull request asked for and not opened.
    const notOpened = unopened(result)
    if (notOpened) core.setFailed(pullRequestFailure(result, notOpened))
  } catch (error) {
    // A cancelled exit leaves the worktree as it was: the outputs say so, for a step that runs always().
    if (error instanceof CancelledError) setCancelledOutputs(error.message)
    core.setFailed((error as Error).message)
  }
}
