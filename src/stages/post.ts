// The root action's post step: exit the worktree the main step entered, as the main step recorded.
import { core } from '../runner/toolkit.js'
import * as fs from 'node:fs'
import { evidenceOf } from '../exit/evidence.js'
import { exitWorktree } from '../exit/exit-worktree.js'
import { exitOptionsOf, POST_LOCK_TIMEOUT_MS, pullRequestAsked } from '../exit/exit-options.js'
import { Git, handleCancellation } from '../git/git-command-manager.js'
import { report, reportExitFailure } from '../runner/report/exit.js'
import { writeSummary } from '../runner/report/summary.js'
import { pinRecorded } from '../git/git-setup.js'
import { settle } from '../git/repository-lock.js'
import { listConfig } from '../git/repository.js'
import { dropKeptRef } from '../rescue/snapshot.js'
import { isRestoreRef } from '../record/refs.js'
import { loadState } from '../runner/step-state.js'
import { pullRequestAsk } from '../runner/pull-request.js'

/** Post step: never fails the job; a problem becomes a warning and the worktree stays. */
export async function run(): Promise<void> {
  handleCancellation()
  const { record, commonDir, restoreRef } = loadState()
  try {
    // Before any git call: git as the job had it set up at enter, whatever GITHUB_ENV and GITHUB_PATH say now.
    if (record?.git) await pinRecorded(record.git, fs.existsSync(record.repository) ? record.repository : record.commonDir, listConfig)
    // A main step killed while it held the repository lock leaves the lock file, and maybe a git call, behind.
    if (commonDir) await settle(commonDir, { timeoutMs: POST_LOCK_TIMEOUT_MS })
    // What a restore fetched, when its main step was cut short before it deleted the ref.
    if (commonDir && isRestoreRef(restoreRef)) await dropKeptRef(new Git(commonDir), commonDir, restoreRef)
    if (!record) return core.info('The main step created nothing: nothing to exit.')
    // The main step opened the repository; its record is this step's own state, which no agent can write.
    const cwd = fs.existsSync(record.repository) ? record.repository : record.commonDir
    const repo = { toplevel: record.repository, commonDir: record.commonDir, git: new Git(cwd) }
    const options = { ...exitOptionsOf(record), pullRequest: pullRequestAsk(pullRequestAsked(record, record.pushTo), record.pullBase) }
    const result = await exitWorktree(evidenceOf(record, 'state'), options, repo)
    report(result)
    await writeSummary(result)
  } catch (error) {
    reportExitFailure(record?.path, error as Error)
  }
}
