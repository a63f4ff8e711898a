// Covers: src/stages/, src/record/ownership.ts, src/runner/act.ts through the bundles.
// What the real runner does that a naive emulation hides: state reaches the post as environment
// variables of bounded size, two runners on one host share a name, a post has a time limit, act keeps
// less than a runner, and what depends on how it runs. Through the committed bundles.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { spawnSync } from 'node:child_process'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { branchExists, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'
import { available } from '../helpers/tools.js'
import { POST_LOCK_TIMEOUT_MS } from '../../src/exit/exit-options.js'

const HAS_UNSHARE = available(
  'unshare --pid with root',
  ['unshare', '--pid', '--fork', '--mount-proc', 'true'],
  'the pid-namespace test of real-runner.test.ts'
)

/** How long a main step waits for the repository lock (src/git/repository-lock.ts). */
const MAIN_LOCK_TIMEOUT_MS = 180_000

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

/** A job of the runner installed at `runnerDir` (its work folder holds _temp), named `name`. */
function job(runnerDir: string, name: string, env: Record<string, string> = {}): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, runnerDir, '_work', '_temp'),
    env: { RUNNER_NAME: name, GITHUB_RUN_ID: '5', GITHUB_JOB: 'agents', ...env }
  })
}

/** The record the main step left in the worktree's git dir, for a test to age or point elsewhere. */
function editRecord(wt: string, edit: (record: Record<string, unknown> & { owner: Record<string, unknown> }) => void): void {
  const file = path.join(git(wt, 'rev-parse', '--absolute-git-dir'), 'agent-worktree.json')
  const record = JSON.parse(fs.readFileSync(file, 'utf8'))
  edit(record)
  fs.writeFileSync(file, JSON.stringify(record))
}

describe('state', () => {
  it('stays small whatever the checkout holds: 3,000 changed files before enter, and the post still starts', async () => {
    repos.cleanup()
    repos = makeRepos(Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`generated/output-with-a-long-descriptive-name-${i}.txt`, `${i}\n`])))
    for (let i = 0; i < 3000; i++) write(repos.clone, `generated/output-with-a-long-descriptive-name-${i}.txt`, `rebuilt ${i}\n`)
    const j = job('runner-a', 'host')
    const main = await j.uses('.', { name: 'big-checkout' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(Buffer.byteLength(main.state.worktree)).toBeLessThan(8 * 1024)
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(post.stdout).toContain('Removed')
    expect(fs.existsSync(main.outputs['worktree-path'])).toBe(false)
  })
})

describe('runner identity', () => {
  it('two runners on one host with one name (two registrations) never take each other for a leftover', async () => {
    const a = job('runner-a', 'build-host')
    const first = await a.uses('.', { name: 'a-at-work' })
    // Runner B, installed in another folder of the same host, starts a job while A's job still runs.
    const b = job('runner-b', 'build-host', { GITHUB_RUN_ID: '6' })
    const second = await b.uses('.', { name: 'b-enters' })
    expect(second.exitCode).toBe(0)
    expect(fs.existsSync(first.outputs['worktree-path'])).toBe(true)
    expect(branchExists(repos.clone, first.outputs.branch)).toBe(true)
    await b.runPosts()
    await a.runPosts()
  })

  it('recognises the leftover of an ephemeral runner on a shared clone by its dead runner process, or by its age', async () => {
    const gone = job('ephemeral-1', 'arc-runner-x7k2p')
    const dead = (await gone.uses('.', { name: 'dead-owner' })).outputs['worktree-path']
    const old = (await gone.uses('.', { name: 'old-owner' })).outputs['worktree-path']
    // The runner process of that job has ended; another host's job started a week ago.
    const ended = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
    editRecord(dead, r => (r.owner.worker = { pid: Number(ended.stdout) }))
    editRecord(old, r => Object.assign(r.owner, { host: 'another-host', since: new Date(Date.now() - 7 * 86_400_000).toISOString() }))
    const next = await job('ephemeral-2', 'arc-runner-q9m3z').uses('.', { name: 'next' })
    expect(next.exitCode).toBe(0)
    expect(next.stdout).toContain('a job whose runner process has ended')
    expect(next.stdout).toContain('a job that started 7 days ago')
    expect(fs.existsSync(dead)).toBe(false)
    expect(fs.existsSync(old)).toBe(false)
  })

  it.skipIf(!HAS_UNSHARE)(
    'a runner in a container of its own (another pid namespace, the host’s name) never takes a live job of another runner for an ended one',
    async () => {
      // Runner B's job runs (its runner process is this test's); runner A, in a container that shares the host's
      // name and the clone but not its processes, starts a job meanwhile. A sees no process of B's at all.
      const b = job('runner-b', 'build-host')
      const live = await b.uses('.', { name: 'b-at-work' })
      const a = new Job({
        workspace: repos.clone,
        temp: path.join(repos.root, 'runner-a', '_work', '_temp'),
        env: { RUNNER_NAME: 'build-host', GITHUB_RUN_ID: '6', GITHUB_JOB: 'agents' },
        pidNamespace: true
      })
      const entered = await a.uses('.', { name: 'a-in-a-container' })
      expect(entered.exitCode, entered.stdout).toBe(0)
      expect(entered.stdout).not.toContain('a job whose runner process has ended')
      expect(fs.existsSync(live.outputs['worktree-path'])).toBe(true)
      expect(branchExists(repos.clone, live.outputs.branch)).toBe(true)
      const pidSpaceOf = (wt: string): string =>
        JSON.parse(fs.readFileSync(path.join(git(wt, 'rev-parse', '--absolute-git-dir'), 'agent-worktree.json'), 'utf8')).owner.pidSpace
      expect(pidSpaceOf(entered.outputs['worktree-path'])).not.toBe(pidSpaceOf(live.outputs['worktree-path']))
      await a.runPosts()
      await b.runPosts()
      expect(fs.existsSync(live.outputs['worktree-path'])).toBe(false)
    }
  )

  it('skips the sweep on a GitHub-hosted runner, where a job never meets another', async () => {
    const earlier = job('runner-a', 'GitHub Actions 2')
    const left = (await earlier.uses('.', { name: 'left' })).outputs['worktree-path']
    const hosted = await job('runner-a', 'GitHub Actions 2', { RUNNER_ENVIRONMENT: 'github-hosted', GITHUB_RUN_ID: '9' }).uses('.', { name: 'fresh' })
    expect(hosted.exitCode).toBe(0)
    expect(fs.existsSync(left)).toBe(true)
  })
})

describe('a post within its time', () => {
  it('waits a bounded time for the repository lock, then keeps the worktree and says why, the job green', async () => {
    const j = job('runner-a', 'host')
    const { outputs } = await j.uses('.', { name: 'locked-out' })
    // Another step holds the lock, alive on another host: as a live holder does, it keeps the lock's time fresh
    // (every 2 s; a holder of ours does every 10 s). A lock dated ahead that never changes is no holder's: stale.
    const lock = path.join(repos.clone, '.git', 'agent-worktree.lock')
    fs.writeFileSync(lock, JSON.stringify({ pid: 1, host: 'another-host', id: 'x' }))
    const heartbeat = setInterval(() => fs.utimesSync(lock, new Date(), new Date()), 2000)
    try {
      const [post] = await j.runPosts()
      expect(post.exitCode).toBe(0)
      expect(warnings(post).join('\n')).toMatch(/Timed out after 30 s waiting for .*agent-worktree\.lock/)
      // It waited its own 30 s, and gave up long before a main step would (3 minutes), however busy the machine.
      expect(post.durationMs).toBeGreaterThanOrEqual(POST_LOCK_TIMEOUT_MS)
      expect(post.durationMs).toBeLessThan(MAIN_LOCK_TIMEOUT_MS - 60_000)
      expect(fs.existsSync(outputs['worktree-path'])).toBe(true)
    } finally {
      clearInterval(heartbeat)
      fs.rmSync(lock, { force: true })
    }
    // The sweep of the next job on this runner finishes it.
    const next = await job('runner-a', 'host', { GITHUB_RUN_ID: '6' }).uses('.', { name: 'next' })
    expect(next.exitCode).toBe(0)
    expect(fs.existsSync(outputs['worktree-path'])).toBe(false)
  }, 300_000)
})

describe('act in a container (its default): only the workspace can stay, and only with --bind', () => {
  it('warns when the worktree would live outside the workspace, which act removes with the container', async () => {
    const main = await job('runner-a', 'host', { ACT: 'true' }).uses('.', { name: 'under-act' })
    expect(main.exitCode).toBe(0)
    expect(warnings(main).join('\n')).toContain('Running under act in a container')
    expect(warnings(main).join('\n')).toContain('lies outside the workspace and goes with it')
  })

  it('does not warn with a worktrees-dir inside the workspace that git ignores, and says it stays only with --bind', async () => {
    write(repos.clone, '.gitignore', '*.log\nbuild/\n.worktrees/\n')
    git(repos.clone, 'commit', '--quiet', '-am', 'ignore .worktrees')
    const main = await job('runner-a', 'host', { ACT: 'true' }).uses('.', { name: 'inside', 'worktrees-dir': '.worktrees' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(warnings(main)).toEqual([])
    expect(main.stdout).toContain('stays only if act runs with --bind')
    expect(worktreePaths(repos.clone)).toContain(path.join(repos.clone, '.worktrees', 'inside'))
  })
})

describe('act in host mode: it deletes its job folder, workspace included, after a green job', () => {
  /**
   * A job as act runs it with -P <label>=-self-hosted: the workspace is act's copy of the repository in
   * <cache>/act/<hex>/hostexecutor, RUNNER_TEMP is <hex>/tmp; ACT=true, and no RUNNER_NAME.
   */
  function actJob(): { job: Job; workspace: string; folder: string } {
    const folder = path.join(repos.root, 'cache', 'act', '0123456789abcdef')
    const workspace = path.join(folder, 'hostexecutor')
    fs.mkdirSync(folder, { recursive: true })
    git(repos.root, 'clone', '--quiet', repos.origin, workspace)
    write(workspace, '.gitignore', '*.log\nbuild/\n.worktrees/\n')
    return { job: new Job({ workspace, temp: path.join(folder, 'tmp'), env: { ACT: 'true', GITHUB_RUN_ID: '1', GITHUB_JOB: 'agents' } }), workspace, folder }
  }

  it("warns that act's copy of the repository goes, worktree and branch, with the default worktrees-dir", async () => {
    const { job: j, folder } = actJob()
    const main = await j.uses('.', { name: 'copy' })
    expect(main.exitCode, main.stdout).toBe(0)
    const warned = warnings(main).join('\n')
    expect(warned).toContain(`Running under act in host mode, which deletes its job folder \`${folder}\` when the job succeeds`)
    expect(warned).toContain("its branch, commits and registration (in act's copy of the repository")
    expect(warned).toContain('give repository-path a clone outside it')
  })

  it('warns with worktrees-dir: .worktrees too: it is inside the workspace act deletes', async () => {
    const { job: j, workspace } = actJob()
    const main = await j.uses('.', { name: 'inside', 'worktrees-dir': '.worktrees' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(warnings(main).join('\n')).toContain(`the worktree \`${path.join(workspace, '.worktrees', 'inside')}\``)
  })

  it('is quiet for a repository-path outside the job folder: those worktrees stay', async () => {
    const { job: j } = actJob()
    const main = await j.uses('.', { name: 'own-clone', 'repository-path': repos.clone })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(warnings(main)).toEqual([])
    expect(main.stdout).not.toContain('Running under act')
    expect(worktreePaths(repos.clone)).toContain(`${repos.clone}.worktrees/own-clone`)
  })

  it('only informs when rescue: branch pushes unsaved work to the remote before act deletes the folder', async () => {
    const { job: j } = actJob()
    const main = await j.uses('.', { name: 'rescued', rescue: 'branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(warnings(main)).toEqual([])
    expect(main.stdout).toContain('rescue: branch pushes unsaved work to the remote before that')
  })
})
