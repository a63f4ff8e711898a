// Covers: src/remote/tips.ts, src/gate/safety-gate.ts through the bundles (exit, post, sweep, pool).
// A pull request's head on the remote of enter is on the remote: GitHub keeps refs/pull/<n>/head after a squash
// merge deleted the branch. The origin here is a bare repository written as GitHub writes those refs.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { branchExists, commit, git, makeRepos, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
let jobs = 0
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

function job(runner = `runner-${++jobs}`, run = jobs): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'temp', `${++jobs}`),
    env: { GITHUB_RUN_ID: String(run), GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: runner }
  })
}

/**
 * The worktree's HEAD goes to the remote as pull request `n` (its branch and refs/pull/<n>/head), is squash-merged
 * into main (one new commit with its tree), and its branch is deleted, as GitHub does with auto-delete.
 */
function squashMerged(wt: string, n: number): void {
  const branch = `agent-${n}`
  // Pushed by URL: no remote-tracking branch, which would show as a change to what the worktrees share.
  git(wt, 'push', '--quiet', repos.origin, `HEAD:refs/heads/${branch}`, `HEAD:refs/pull/${n}/head`)
  const squash = git(repos.origin, 'commit-tree', `refs/pull/${n}/head^{tree}`, '-p', 'refs/heads/main', '-m', `squashed (#${n})`)
  git(repos.origin, 'update-ref', 'refs/heads/main', squash)
  git(repos.origin, 'update-ref', '-d', `refs/heads/${branch}`)
}

describe("a pull request's head on the remote of enter is on the remote", () => {
  it('exit removes a worktree whose branch was squash-merged and deleted', async () => {
    const j = job()
    const wt = (await j.uses('.', { name: 'merged' })).outputs['worktree-path']
    commit(wt, 'feature.txt')
    commit(wt, 'more.txt')
    squashMerged(wt, 1)
    const exit = await j.uses('exit')
    expect(exit.outputs, exit.stdout).toMatchObject({ removed: 'true', reason: 'clean', 'unsaved-commits': '0' })
    expect(fs.existsSync(wt)).toBe(false)
  })

  it('keeps a commit made past the head, and only that one counts', async () => {
    const j = job()
    const wt = (await j.uses('.', { name: 'past' })).outputs['worktree-path']
    commit(wt, 'feature.txt')
    squashMerged(wt, 1)
    commit(wt, 'after-the-merge.txt')
    const exit = await j.uses('exit')
    expect(exit.outputs, exit.stdout).toMatchObject({ removed: 'false', reason: 'unsaved', 'unsaved-commits': '1' })
    expect(warnings(exit)[0]).toMatch(/Unsaved commits: [0-9a-f]{12} `add after-the-merge.txt`$/)
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('a pull request head on another remote saves nothing', async () => {
    const fork = path.join(repos.root, 'fork.git')
    git(repos.root, 'clone', '--quiet', '--bare', repos.origin, fork)
    git(repos.clone, 'remote', 'add', 'fork', fork)
    const j = job()
    const wt = (await j.uses('.', { name: 'elsewhere' })).outputs['worktree-path']
    commit(wt, 'feature.txt')
    git(wt, 'push', '--quiet', 'fork', 'HEAD:refs/pull/1/head', 'HEAD:refs/heads/agent-1')
    git(repos.clone, 'fetch', '--quiet', 'fork', '+refs/pull/*/head:refs/remotes/fork/pull/*')
    const [post] = await j.runPosts()
    expect(
      warnings(post).some(w => w.includes('it has 1 unsaved commit.')),
      post.stdout
    ).toBe(true)
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('the sweep of a later job removes a leftover whose work was merged so', async () => {
    const earlier = job('runner-1', 1)
    const left = (await earlier.uses('.', { name: 'leftover' })).outputs
    commit(left['worktree-path'], 'feature.txt')
    squashMerged(left['worktree-path'], 7)
    // Its post never runs: the runner was killed.
    const later = await job('runner-1', 2).uses('.', { name: 'next' })
    expect(later.exitCode, later.stdout).toBe(0)
    expect(warnings(later)).toEqual([])
    expect(fs.existsSync(left['worktree-path'])).toBe(false)
    expect(branchExists(repos.clone, left.branch)).toBe(false)
  })

  it('the pool parks a worktree whose work was merged so', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { name: 'pooled', recycle: 'true' })
    commit(outputs['worktree-path'], 'feature.txt')
    squashMerged(outputs['worktree-path'], 3)
    const [post] = await j.runPosts()
    expect(warnings(post), post.stdout).toEqual([])
    expect(post.stdout).toContain('Parked')
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).toContain('locked agent-worktree parked ')
    expect(branchExists(repos.clone, outputs.branch)).toBe(false)
  })
})
