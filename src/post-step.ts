// The root action's post step: exit the worktree the main step entered, as the main step recorded.
import * as core from '@actions/core'
import { exitWorktree } from './exit-worktree.js'
import { report, writeSummary } from './report.js'
import { Git } from './git-command-manager.js'
import { settle } from './repository-lock.js'
import { loadRecordState, STATE_COMMON_DIR } from './state-helper.js'

/** Post step: never fails the job; a problem becomes a warning and the worktree stays. */
export async function run(): Promise<void> {
  try {
    // A main step killed while it held the repository lock leaves the lock file, and maybe a git call, behind.
    const commonDir = core.getState(STATE_COMMON_DIR)
    if (commonDir) await settle(commonDir)
    const record = loadRecordState()
    if (!record) return core.debug('The main step created nothing: nothing to exit.')
    // The main step opened the repository; its facts need no git call again.
    const repo = commonDir ? { toplevel: record.repository, commonDir, git: new Git(record.repository) } : undefined
    const result = await exitWorktree(record, { onExit: record.onExit, discardChanges: record.discardChanges, step: 'post' }, repo)
    report(result)
    await writeSummary(result)
  } catch (error) {
    core.warning(`agent-worktree could not exit the worktree and left it as it was: ${(error as Error).message}`)
  }
}
