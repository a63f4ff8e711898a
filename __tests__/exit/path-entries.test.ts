// Covers: src/enter/enter.ts (enter by path), src/exit/ through the bundles.
// Worktrees entered by path, the pool with the exit sub-action, and what "an explicit exit is final"
// means: the same proof as for created worktrees, through the committed bundles.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { branchExists, commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
let runs = 0
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

/** Jobs of one self-hosted runner, one after the other. */
function job(env: Record<string, string> = {}): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { RUNNER_NAME: 'runner-1', GITHUB_RUN_ID: String(++runs), GITHUB_JOB: 'agents', ...env }
  })
}

describe('a worktree entered by path', () => {
  it('counts commits made before entry that nobody pushed: on-exit: remove keeps it', async () => {
    const wt = path.join(repos.root, 'mywt')
    git(repos.clone, 'worktree', 'add', '--quiet', '--detach', wt)
    const before = commit(wt, 'before-entry.txt')
    const j = job()
    const main = await j.uses('.', { path: wt, 'on-exit': 'remove' })
    expect(main.exitCode, main.stdout).toBe(0)
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n')).toContain('1 unsaved commit')
    expect(fs.existsSync(wt)).toBe(true)
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(before)
  })

  it('is locked while the job works in it, and unlocked again when kept', async () => {
    const wt = path.join(repos.root, 'unlocked')
    git(repos.clone, 'worktree', 'add', '--quiet', '-b', 'by-hand', wt)
    const j = job()
    await j.uses('.', { path: wt })
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).toMatch(/locked agent-worktree [0-9a-f]{16}:/)
    await j.runPosts()
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).not.toMatch(/^locked/m)
  })

  it('can be taken over by a later job when the job that kept it has ended, and removed through the gate', async () => {
    const first = job()
    const { outputs } = await first.uses('.', { name: 'kept-for-later', 'on-exit': 'keep' })
    const wt = outputs['worktree-path']
    await first.runPosts()
    await first.end()
    const later = job()
    const entered = await later.uses('.', { path: wt, 'on-exit': 'remove' })
    expect(entered.exitCode, entered.stdout).toBe(0)
    expect(entered.stdout).toContain('Taking over')
    const [post] = await later.runPosts()
    expect(warnings(post)).toEqual([])
    expect(post.stdout).toContain('Removed')
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })

  it('refuses a worktree that a job still running holds', async () => {
    const holder = job()
    const { outputs } = await holder.uses('.', { name: 'held' })
    const other = new Job({
      workspace: repos.clone,
      temp: path.join(repos.root, 'runner-2', '_temp'),
      env: { RUNNER_NAME: 'runner-2', GITHUB_RUN_ID: '99', GITHUB_JOB: 'agents' }
    })
    const refused = await other.uses('.', { path: outputs['worktree-path'] })
    expect(refused.exitCode).toBe(1)
    expect(refused.annotations[0].message).toContain("Input 'path'")
    expect(refused.annotations[0].message).toContain('another job holds it')
    await holder.runPosts()
  })
})

describe('the pool and the exit sub-action', () => {
  it('agree about a parked worktree: the exit parks it, the post says nothing to do', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { name: 'pooled', recycle: 'true' })
    const exit = await j.uses('exit')
    expect(exit.outputs).toMatchObject({ removed: 'true', reason: 'parked' })
    const [post] = await j.runPosts()
    expect(warnings(post)).toEqual([])
    expect(post.stdout).toContain('Nothing to do')
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).toContain(`worktree ${outputs['worktree-path']}\n`)
  })
})

describe('an explicit exit', () => {
  it('follows the main step’s on-exit: keep when it has none of its own', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { name: 'keep-it', 'on-exit': 'keep' })
    const exit = await j.uses('exit')
    expect(exit.outputs).toMatchObject({ action: 'keep', reason: 'asked' })
    await j.runPosts()
    expect(fs.existsSync(outputs['worktree-path'])).toBe(true)
  })

  it('is final for the post; a later exit step decides again (the last explicit decision wins)', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { name: 'decided' })
    const wt = outputs['worktree-path']
    write(wt, 'work.txt', 'work\n')
    const first = await j.uses('exit')
    expect(first.outputs).toMatchObject({ action: 'keep', reason: 'unsaved' })
    // The workflow saved the work, then exits again.
    fs.rmSync(path.join(wt, 'work.txt'))
    const second = await j.uses('exit')
    expect(second.outputs).toMatchObject({ action: 'remove', removed: 'true' })
    const [post] = await j.runPosts()
    expect(post.stdout).toContain('Nothing to do')
    expect(branchExists(repos.clone, outputs.branch)).toBe(false)
  })
})
