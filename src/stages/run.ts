// The run sub-action: the workflow's command, confined to the worktree this job entered (sandbox/run-confined.ts).
// What it may write is worked out here from git's own registration of the worktree, never from a file the agent
// can write. Its own bundle (src/run.ts) loads nothing the command does not need to wait for: what speaks to the
// runner (runner/toolkit.ts) only to say something, sandbox-runtime only to confine.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { findRecord, setupOfEnter, targetOf, type Gone } from '../exit/find-record.js'
import { pinProgram } from '../git/git-setup.js'
import { folderOf } from '../git/repository.js'
import { realPath } from '../os/paths.js'
import { childEnvironment } from '../os/processes.js'
import { getRunSettings } from '../runner/inputs.js'
import type { Toolkit } from '../runner/toolkit.js'
import { sandboxFacts, sandboxPaths } from '../sandbox/paths.js'
import { handOut } from '../sandbox/stand-ins.js'
import { runConfined } from '../sandbox/run-confined.js'
import { InputError } from '../record/settings.js'

/** A worktree this job entered, gone (an exit removed it, or the agent did): the input names nothing to run in. */
const gone = ({ gone, input }: Pick<Gone, 'gone' | 'input'>): Error =>
  new InputError(
    input,
    gone,
    'the worktree is gone (an earlier exit removed it, or git worktree remove did), so there is nothing to run the command in',
    'Run the command before the exit sub-action, or give the worktree-path output of a worktree that is still there.'
  )

export async function run(): Promise<void> {
  try {
    const settings = getRunSettings()
    const enter = setupOfEnter(settings.path)
    if ('gone' in enter) throw gone(enter)
    if (enter.setup) pinProgram(enter.setup)
    const found = await findRecord(settings.path)
    if ('gone' in found) throw gone(found)
    const { record, repo } = found
    const clone = record.isolation === 'clone'
    // A clone is a repository of its own: the registration in the original names its folder.
    const gitDir = clone ? path.join(record.path, '.git') : path.join(repo.commonDir, 'worktrees', record.id!)
    const worktree = clone ? record.path : folderOf(gitDir)
    if (!worktree || !fs.existsSync(worktree)) {
      const { target, input } = targetOf(settings.path)
      throw gone({ gone: target, input })
    }
    // Every folder by its real path, as enter gives them: sandbox-runtime skips a write path that resolves somewhere
    // else, and bubblewrap 0.12 refuses to mount across a link.
    const real = { worktree: realPath(worktree), gitDir: realPath(gitDir), commonDir: realPath(repo.commonDir) }
    const rerere = async (): Promise<boolean> => (await repo.git.run(['config', '--type=bool', '--get', 'rerere.enabled'])).stdout.trim() === 'true'
    const paths = await handOut(sandboxPaths({ ...sandboxFacts(real.worktree, real.gitDir, real.commonDir), clone }), rerere)
    // The record is checked (its seal takes the runtime token): from here on no program this step starts
    // (sandbox-runtime's helpers among them) gets what the runner gives only to actions.
    const kept = childEnvironment(process.env)
    for (const key of Object.keys(process.env)) if (!(key in kept)) delete process.env[key]
    // The command keeps the step's PATH (what GITHUB_PATH added: setup-node's node, say); the programs this step
    // starts outside the sandbox (bubblewrap, socat, ripgrep, sandbox-runtime's lookups) are those PATH named at enter.
    const step = { ...process.env }
    if (enter.setup?.env.PATH !== undefined) process.env.PATH = enter.setup.env.PATH
    const ran = await runConfined({ ...settings, worktree: real.worktree, commonDir: real.commonDir, paths }, step)
    if (ran.unconfined) (await speak()).warning(`The command ran unconfined (allow-unconfined: true): ${ran.unconfined}.`, { title: 'agent-worktree: run' })
    if (ran.exitCode !== 0) {
      const core = await speak()
      core.error(`The command exited with code ${ran.exitCode}.`)
      process.exitCode = ran.exitCode
    }
  } catch (error) {
    const core = await speak()
    core.setFailed((error as Error).message)
  }
}

let speaker: Toolkit | undefined

/**
 * What speaks to the runner, loaded when there is something to say. It starts on a line of its own: the command's
 * output (or sandbox-runtime's, when its clean-up fails) may end mid-line, and the runner reads a workflow command
 * only at the start of a line.
 */
async function speak(): Promise<Toolkit> {
  if (!speaker) {
    process.stdout.write(os.EOL)
    speaker = (await import('../runner/toolkit.js')).core
  }
  return speaker
}
