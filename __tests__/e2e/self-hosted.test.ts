// Covers: src/enter/sweep.ts, src/exit/ through the bundles, on a reused machine.
// What a reused self-hosted machine adds: leftovers of earlier jobs, a long-lived clone, credentials.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { branchExists, commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

let jobs = 0
/** A job on `runner` whose posts never run, as when a runner is killed or a post is cancelled. */
function job(runner: string, run: number, env: Record<string, string> = {}): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'temp', `${++jobs}`),
    env: { GITHUB_RUN_ID: String(run), GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: runner, ...env }
  })
}

describe('the sweep at enter', () => {
  it('cleans what earlier jobs of this runner left, keeps and reports unsaved work, and touches nothing else', async () => {
    const earlier = job('runner-1', 1)
    const clean = (await earlier.uses('.', { name: 'clean-leftover' })).outputs
    const dirty = (await earlier.uses('.', { name: 'dirty-leftover' })).outputs
    write(dirty['worktree-path'], 'unsaved.txt', 'x\n')
    const gone = (await earlier.uses('.', { name: 'folder-gone' })).outputs
    fs.rmSync(gone['worktree-path'], { recursive: true, force: true })
    const goneWithWork = (await earlier.uses('.', { name: 'folder-gone-work' })).outputs
    commit(goneWithWork['worktree-path'], 'work.txt')
    fs.rmSync(goneWithWork['worktree-path'], { recursive: true, force: true })
    const kept = (await earlier.uses('.', { name: 'kept-on-purpose', 'on-exit': 'keep' })).outputs
    const otherRunner = (await job('runner-2', 1).uses('.', { name: 'other-runner' })).outputs
    const foreign = path.join(repos.root, 'made-by-hand')
    git(repos.clone, 'worktree', 'add', '--quiet', '--lock', '-b', 'by-hand', foreign)

    const later = job('runner-1', 2)
    const first = await later.uses('.', { name: 'this-job-first' })
    expect(first.exitCode).toBe(0)
    // A clean leftover goes, with its branch; so does a registration whose folder is gone.
    expect(fs.existsSync(clean['worktree-path'])).toBe(false)
    expect(branchExists(repos.clone, clean.branch)).toBe(false)
    expect(worktreePaths(repos.clone)).not.toContain(gone['worktree-path'])
    expect(branchExists(repos.clone, gone.branch)).toBe(false)
    // Unsaved work stays, and the job is told.
    expect(fs.readFileSync(path.join(dirty['worktree-path'], 'unsaved.txt'), 'utf8')).toBe('x\n')
    expect(
      warnings(first).some(
        w =>
          w.startsWith('Left by an earlier job of this runner (run `1` attempt `1` job `agents` runner `runner-1`') &&
          w.includes(`: Kept \`${dirty['worktree-path']}\`: it has 1 uncommitted file.`)
      )
    ).toBe(true)
    expect(branchExists(repos.clone, goneWithWork.branch)).toBe(true)
    expect(warnings(first).some(w => w.includes(`Kept \`${goneWithWork['worktree-path']}\`: it has 1 unsaved commit.`))).toBe(true)
    // Kept on purpose, another runner's, not made by this action: untouched.
    for (const untouched of [kept['worktree-path'], otherRunner['worktree-path'], foreign]) {
      expect(fs.existsSync(untouched)).toBe(true)
    }

    // A second enter in the same job does not take the first for a leftover.
    const second = await later.uses('.', { name: 'this-job-second' })
    expect(second.exitCode).toBe(0)
    expect(fs.existsSync(first.outputs['worktree-path'])).toBe(true)
  })

  it('touches nothing when the runner has no name (outside a runner)', async () => {
    const earlier = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'temp', 'a'), env: {} })
    const left = (await earlier.uses('.', { name: 'left' })).outputs
    const later = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'temp', 'b'), env: {} })
    expect((await later.uses('.', { name: 'next' })).exitCode).toBe(0)
    expect(fs.existsSync(left['worktree-path'])).toBe(true)
  })
})

describe('fetch', () => {
  it('starts a long-lived clone from the newest commit of the remote branch', async () => {
    const other = path.join(repos.root, 'other-clone')
    git(repos.root, 'clone', '--quiet', repos.origin, other)
    const newest = commit(other, 'newer.txt')
    git(other, 'push', '--quiet', 'origin', 'main')
    const stale = await job('r', 1).uses('.', { name: 'stale', 'base-ref': 'origin/main' })
    expect(stale.outputs['base-sha']).not.toBe(newest)
    const fresh = await job('r', 1).uses('.', { name: 'fresh', 'base-ref': 'origin/main', fetch: 'true' })
    expect(fresh.exitCode).toBe(0)
    expect(fresh.outputs['base-sha']).toBe(newest)
    expect(fs.existsSync(path.join(fresh.outputs['worktree-path'], 'newer.txt'))).toBe(true)
    // No FETCH_HEAD, no configuration: nothing shared is written besides the remote-tracking ref.
    expect(fs.existsSync(path.join(repos.clone, '.git', 'FETCH_HEAD'))).toBe(false)
  })

  it('refuses a base that is not a remote-tracking branch, and a remote branch that does not exist', async () => {
    const local = await job('r', 1).uses('.', { 'base-ref': 'main', fetch: 'true' })
    expect(local.exitCode).toBe(1)
    expect(local.annotations[0].message).toContain("Input 'base-ref' has the value `main`: fetch: true needs a remote-tracking branch")
    const missing = await job('r', 1).uses('.', { 'base-ref': 'origin/nope', fetch: 'true' })
    expect(missing.exitCode).toBe(1)
    expect(missing.annotations[0].message).toContain('git fetch `origin` `nope` failed')
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })
})

describe('credentials persisted by actions/checkout', () => {
  // actions/checkout v6 keeps credentials in a file under RUNNER_TEMP, included by gitdir.
  function persistCredentials(patterns: string[]): void {
    const file = path.join(repos.root, 'runner-temp-git-credentials.config')
    fs.writeFileSync(file, '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic dGVzdA==\n')
    for (const pattern of patterns) git(repos.clone, 'config', '--local', `includeIf.gitdir:${pattern}.path`, file)
  }
  const header = (dir: string): string => git(dir, 'config', '--default', '', '--get', 'http.https://github.com/.extraheader')

  it('reach a push from inside the worktree with checkout 6.0.1 and later', async () => {
    persistCredentials([path.join(repos.clone, '.git'), path.join(repos.clone, '.git', 'worktrees', '*')])
    const { outputs } = await job('r', 1).uses('.', { name: 'creds' })
    expect(header(repos.clone)).toBe('AUTHORIZATION: basic dGVzdA==')
    expect(header(outputs['worktree-path'])).toBe('AUTHORIZATION: basic dGVzdA==')
  })

  it('do not, with checkout 6.0.0, whose include names the main git dir only', async () => {
    persistCredentials([path.join(repos.clone, '.git')])
    const { outputs } = await job('r', 1).uses('.', { name: 'creds-old' })
    expect(header(outputs['worktree-path'])).toBe('')
  })
})
