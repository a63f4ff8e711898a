// The exit sub-action: leave a worktree in the middle of a job; its decision is final for the post step.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import { exitWorktree } from './exit-worktree.js'
import { Git } from './git-command-manager.js'
import { getExitSettings, InputError } from './input-helper.js'
import { report, setExitOutputs, writeSummary } from './report.js'
import { adminDirOf, openRepository, type Repository } from './repository.js'
import { ENV_ORIGINAL_PATH, ENV_WORKTREE_PATH, readRecordFile, type WorktreeRecord } from './state-helper.js'

export async function run(): Promise<void> {
  try {
    const settings = getExitSettings()
    const { record, repo } = await findRecord(settings.path)
    const result = await exitWorktree(
      record,
      {
        // Like the root action: remove what was created, keep what was entered by path unless told otherwise.
        onExit: settings.onExit ?? (record.created ? 'remove' : 'keep'),
        discardChanges: settings.discardChanges,
        step: 'exit'
      },
      repo
    )
    report(result)
    setExitOutputs(result)
    await writeSummary(result)
  } catch (error) {
    core.setFailed((error as Error).message)
  }
}

/** The record that the main step left in the worktree's git dir. */
async function findRecord(given: string | undefined): Promise<{ record: WorktreeRecord; repo: Repository }> {
  const target = given ?? process.env[ENV_WORKTREE_PATH]
  const input = given ? 'path' : `path (from ${ENV_WORKTREE_PATH})`
  if (!target) {
    throw new InputError(
      'path',
      '',
      'no worktree was entered in this job',
      'Run the agent-worktree action before this step, or give the path of a worktree it entered.'
    )
  }
  // A folder the agent deleted is still registered in the repository the job came from.
  const start = fs.existsSync(target) ? target : process.env[ENV_ORIGINAL_PATH]
  const repo = start ? await openRepository(start, input).catch(() => undefined) : undefined
  const adminDir = repo && adminDirOf(repo.commonDir, target)
  const record = adminDir && readRecordFile(adminDir)
  if (!repo || !record) {
    throw new InputError(
      input,
      target,
      'it is not a worktree that agent-worktree entered (or it was already removed)',
      'Give the worktree-path output of an agent-worktree step.'
    )
  }
  // Opened from the worktree; git runs from the repository the job came from, which outlives the worktree.
  return { record, repo: { ...repo, toplevel: record.repository, git: new Git(record.repository) } }
}
