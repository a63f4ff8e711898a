// The main step: check every input, enter the worktree, and say where it is.
import { core } from '../runner/toolkit.js'
import { enterWorktree } from '../enter/enter.js'
import { handleCancellation } from '../git/git-command-manager.js'
import { ENV_ORIGINAL_PATH, ENV_WORKTREE_PATH } from '../record/state-helper.js'
import { noteEntered } from '../record/entered.js'
import { claimState } from '../runner/step-state.js'
import { actFate } from '../runner/act.js'
import { getEnterSettings } from '../runner/inputs.js'
import { CODEX_PROFILE } from '../sandbox/configs.js'
import { reportEntered, reportRestored } from '../runner/report/enter.js'

export async function run(): Promise<void> {
  handleCancellation()
  claimState()
  try {
    const settings = getEnterSettings()
    setOutputs(await enterWorktree(settings))
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error))
  }
}

function setOutputs({ record, gitDir, commonDir, restored, sandbox }: Awaited<ReturnType<typeof enterWorktree>>): void {
  core.setOutput('worktree-path', record.path)
  core.setOutput('original-path', record.repository)
  core.setOutput('name', record.name)
  core.setOutput('branch', restored?.onBranch === false ? '' : record.branch)
  core.setOutput('base-sha', record.baseSha)
  core.setOutput('git-dir', gitDir)
  core.setOutput('git-common-dir', commonDir)
  core.setOutput('created', String(record.created))
  core.setOutput('restored', String(restored !== undefined))
  core.setOutput('restored-from', restored?.name ?? '')
  core.setOutput('sandbox', JSON.stringify(sandbox.paths))
  core.setOutput('codex-home', sandbox.codexHome)
  core.setOutput('codex-permission-profile', CODEX_PROFILE)
  core.setOutput('srt-settings', sandbox.srtSettings)
  core.exportVariable(ENV_WORKTREE_PATH, record.path)
  core.exportVariable(ENV_ORIGINAL_PATH, record.repository)
  noteEntered(record.path, record.madeFolder)
  reportEntered({ ...record, branch: restored?.onBranch === false ? '' : record.branch }, actFate(record))
  if (restored) reportRestored(restored, record)
}
