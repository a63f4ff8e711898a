// Covers: src/sandbox/run-confined.ts, src/stages/run.ts.
// The run sub-action on the layouts of self-hosted machines, through the committed bundles, with the real sandbox:
// a work folder reached through a link (RUNNER_TEMP, the worktrees-dir), a symlink-dirs link in the worktree, a
// root-owned folder the runner's user may enter but not read. Each with this machine's bubblewrap (Debian's 0.8.0)
// and with bubblewrap 0.12's checks of where it mounts, which a stand-in makes (helpers/sandboxes.ts standInBwrap).
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { git, makeRepos, type Repos } from '../helpers/repos.js'
import { sandboxesUnavailable, standInBwrap } from '../helpers/sandboxes.js'

const missing = sandboxesUnavailable()
if (missing) console.warn(`layouts.test: skipped, ${missing}`)

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

const JOB_ENV = { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }

/** The PATH of a job whose bubblewrap is this machine's, or the stand-in for 0.12 and later. */
function pathFor(bwrap: 'installed' | '0.12', root: string): string {
  return bwrap === 'installed' ? process.env.PATH! : `${path.dirname(standInBwrap(path.join(root, 'bwrap-0.12')))}:${process.env.PATH}`
}

/** A failure of the step's own: an error that says what was not run, and no word of an exit code. */
function errorsOf(step: { annotations: { level: string; message: string }[] }): string[] {
  return step.annotations.filter(a => a.level === 'error').map(a => a.message)
}

describe.skipIf(missing !== undefined)('run, on a self-hosted layout', () => {
  for (const bwrap of ['installed', '0.12'] as const) {
    it(`with RUNNER_TEMP reached through a link (the runner's work folder on another disk), the command runs with its home and temp folder (bubblewrap ${bwrap})`, async () => {
      const disk = path.join(repos.root, 'disk', 'work')
      fs.mkdirSync(disk, { recursive: true })
      const work = path.join(repos.root, 'runner-work')
      fs.symlinkSync(disk, work)
      const env = { ...JOB_ENV, HOME: path.join(repos.root, 'home'), PATH: pathFor(bwrap, repos.root) }
      const j = new Job({ workspace: repos.clone, temp: path.join(work, '_temp'), env })
      const main = await j.uses('.', { name: 'linked-temp' })
      expect(main.exitCode, main.stdout).toBe(0)
      // What actions/checkout keeps there.
      fs.writeFileSync(path.join(work, '_temp', 'git-credentials-1.config'), 'token\n')
      const command = 'echo x > "$HOME/.agentrc" && echo x > "$TMPDIR/t" && cat "$TMPDIR/t" && { cat "$RUNNER_TEMP/git-credentials-1.config" || echo hidden; }'
      const run = await j.uses('run', { command })
      expect(errorsOf(run), run.stderr).toEqual([])
      expect(run.exitCode, run.stderr).toBe(0)
      // RUNNER_TEMP, reached through its link, is out of reach as it is by its real path.
      expect(run.stdout).toBe('x\nhidden\n')
    })

    it(`with the worktrees-dir reached through a link, and a symlink-dirs link in the worktree, the agent commits (bubblewrap ${bwrap})`, async () => {
      const disk = path.join(repos.root, 'disk')
      fs.mkdirSync(disk)
      fs.symlinkSync(disk, path.join(repos.root, 'mnt'))
      fs.mkdirSync(path.join(repos.clone, 'node_modules', 'dep'), { recursive: true })
      fs.appendFileSync(path.join(repos.clone, '.git', 'info', 'exclude'), 'node_modules\n')
      const env = { ...JOB_ENV, HOME: path.join(repos.root, 'home'), PATH: pathFor(bwrap, repos.root) }
      const j = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner', '_temp'), env })
      const main = await j.uses('.', { name: 'linked-worktrees', 'worktrees-dir': path.join(repos.root, 'mnt', 'worktrees'), 'symlink-dirs': 'node_modules' })
      expect(main.exitCode, main.stdout).toBe(0)
      const run = await j.uses('run', {
        command: 'ls node_modules && echo a > a.txt && git add a.txt && git -c user.name=a -c user.email=a@example.com commit -qm a && echo committed'
      })
      expect(errorsOf(run), run.stderr).toEqual([])
      expect(run.exitCode, run.stderr).toBe(0)
      expect(run.stdout).toBe('dep\ncommitted\n')
      expect(git(main.outputs['worktree-path'], 'log', '-1', '--format=%s')).toBe('a')
    })
  }

  it("where the sandbox leaves out the step's own home and temp folder, the step fails as its own failure, never as the command's exit code", async () => {
    // As a sandbox that skipped them (sandbox-runtime skips a write path it cannot take): RUNNER_TEMP, denied, is empty inside.
    const bin = path.dirname(standInBwrap(path.join(repos.root, 'bwrap-skipping'), { drop: 'agent-worktree-run-' }))
    const env = { ...JOB_ENV, HOME: path.join(repos.root, 'home'), PATH: `${bin}:${process.env.PATH}` }
    const j = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner', '_temp'), env })
    await j.uses('.', { name: 'left-out' })
    const marker = path.join(repos.root, 'ran')
    const run = await j.uses('run', { command: `touch ${marker}`, 'allow-unconfined': 'true' })
    expect(run.exitCode).not.toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
    expect(errorsOf(run)).toEqual([
      expect.stringMatching(
        /^The command was not run: inside the sandbox, the step's own home and temp folder \(in `[^`]+agent-worktree-run-[^`]+`\) were missing or read-only\.$/
      )
    ])
  })
})

/**
 * A self-hosted machine as admins lay one out: a root-owned folder of mode 0711 (every user may enter it, none may
 * list it) holding a folder of the runner's user, where the worktrees go. The job runs as a second user (uid 65534);
 * the test makes the folders as root.
 */
describe.skipIf(missing !== undefined || process.getuid?.() !== 0)('run, below a folder the runner may enter but not read', () => {
  const user = { uid: 65534, gid: 65534 }
  let base: string
  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-0711-')))
    fs.chmodSync(base, 0o755)
    const work = path.join(base, 'work')
    git(base, 'clone', '--quiet', repos.origin, path.join(work, 'repo'))
    fs.mkdirSync(path.join(work, 'home'))
    fs.mkdirSync(path.join(base, 'agents', 'runner'), { recursive: true })
    fs.chmodSync(path.join(base, 'agents'), 0o711)
    for (const dir of [work, path.join(base, 'agents', 'runner')]) chownTree(dir, user)
  })
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

  function job(bwrap: 'installed' | '0.12'): Job {
    const env = { ...JOB_ENV, PATH: pathFor(bwrap, base) }
    return new Job({ workspace: path.join(base, 'work', 'repo'), temp: path.join(base, 'work', '_temp'), env, user })
  }

  it('with bubblewrap 0.12 and later, the step fails before the command, naming the folder and the fix', async () => {
    const j = job('0.12')
    const main = await j.uses('.', { name: 'closed', 'worktrees-dir': path.join(base, 'agents', 'runner', 'worktrees') })
    expect(main.exitCode, main.stdout).toBe(0)
    const marker = path.join(base, 'work', 'ran')
    const run = await j.uses('run', { command: `touch ${marker}`, 'allow-unconfined': 'true' })
    expect(run.exitCode).not.toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
    const folder = path.join(base, 'agents')
    expect(errorsOf(run)).toEqual([
      `The command was not run: bubblewrap cannot open \`${folder}\` (owned by root, mode 0711), a folder above the worktree, which the runner's user may enter but not read: ` +
        `bubblewrap 0.12 and later opens every folder above what it mounts. Let the runner's user read it (sudo chmod o+r ${folder}), ` +
        'or set worktrees-dir to a folder that user owns, below folders it can read (the default lies beside the checkout).'
    ])
  })

  it('with the bubblewrap installed here (0.8.0), which only looks the folders up, the command runs', async () => {
    const j = job('installed')
    const main = await j.uses('.', { name: 'closed', 'worktrees-dir': path.join(base, 'agents', 'runner', 'worktrees') })
    expect(main.exitCode, main.stdout).toBe(0)
    const run = await j.uses('run', {
      command: 'echo a > a.txt && git add a.txt && git -c user.name=a -c user.email=a@example.com commit -qm a && echo committed'
    })
    expect(errorsOf(run), run.stderr).toEqual([])
    expect(run.stdout).toBe('committed\n')
  })
})

function chownTree(dir: string, user: { uid: number; gid: number }): void {
  fs.chownSync(dir, user.uid, user.gid)
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name)
    if (entry.isDirectory()) chownTree(p, user)
    else fs.lchownSync(p, user.uid, user.gid)
  }
}
