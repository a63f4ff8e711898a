// What a new user meets first, through the committed bundles as the runner runs them: an exit after the
// worktree is gone, a post whose main step made nothing, what a clean removal leaves, a rescue whose remote
// is gone, and a rescue bound of zero.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'
import { Job, type StepResult } from '../../scripts/runner.mjs'

let repos: Repos
let job: Job

beforeEach(() => {
  repos = makeRepos()
  job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner-temp'), env: { GITHUB_RUN_ID: '7', GITHUB_JOB: 'agents', RUNNER_NAME: 'r' } })
})
afterEach(() => repos.cleanup())

function errorOf(step: StepResult): string {
  return step.annotations.find(a => a.level === 'error')?.message ?? ''
}

describe('the exit sub-action after the worktree is gone', () => {
  it('is green after an earlier exit removed it, and says there is nothing left to do, as the post does', async () => {
    const { outputs } = await job.uses('.', { name: 'twice' })
    expect((await job.uses('exit')).outputs.removed).toBe('true')
    const again = await job.uses('exit')
    expect(again.exitCode).toBe(0)
    expect(again.annotations).toEqual([])
    expect(again.outputs).toMatchObject({
      action: 'keep',
      removed: 'false',
      reason: 'gone',
      'worktree-path': outputs['worktree-path'],
      'original-path': repos.clone
    })
    expect(again.outputs.message).toBe(
      `Nothing to do: \`${outputs['worktree-path']}\` is no longer a worktree of \`${repos.clone}\`: an earlier exit removed it, or git worktree remove did.`
    )
    expect(again.stdout).toContain(again.outputs.message)
    const [post] = await job.runPosts()
    expect(post.stdout).toContain('Nothing to do')
  })

  it('is green after the agent ran git worktree remove itself', async () => {
    const { outputs } = await job.uses('.', { name: 'by-hand' })
    git(repos.clone, 'worktree', 'remove', '--force', '--force', outputs['worktree-path'])
    const exit = await job.uses('exit')
    expect(exit.exitCode).toBe(0)
    expect(exit.outputs.reason).toBe('gone')
  })

  it('still fails for a worktree the agent moved (git worktree move), naming where it is now', async () => {
    const { outputs } = await job.uses('.', { name: 'moved' })
    const to = path.join(repos.root, 'moved-here')
    git(repos.clone, 'worktree', 'move', '--force', '--force', outputs['worktree-path'], to)
    const exit = await job.uses('exit')
    expect(exit.exitCode).toBe(1)
    expect(errorOf(exit)).toContain(`the worktree was moved to \`${to}\`. Give its new path.`)
    expect(fs.existsSync(to)).toBe(true)
  })

  it('is green for a worktree an earlier main step of the job entered, exited by its path after a later one entered another', async () => {
    const first = await job.uses('.', { name: 'first' })
    await job.uses('.', { name: 'second' })
    const wt = first.outputs['worktree-path']
    expect((await job.uses('exit', { path: wt })).outputs.removed).toBe('true')
    const again = await job.uses('exit', { path: wt })
    expect(again.exitCode, again.stdout).toBe(0)
    expect(again.outputs).toMatchObject({ reason: 'gone', 'worktree-path': wt })
  })

  it('fails for a path where nothing is and no step of the job entered a worktree: an input error that names the input', async () => {
    const { outputs } = await job.uses('.', { name: 'typo' })
    const mistyped = `${outputs['worktree-path']}-typo`
    const exit = await job.uses('exit', { path: mistyped })
    expect(exit.exitCode).toBe(1)
    expect(errorOf(exit)).toBe(
      `Input 'path' has the value \`${mistyped}\`: nothing is there, and no agent-worktree step of this job entered a worktree there. Give the worktree-path output of this job's agent-worktree step.`
    )
    expect(exit.outputs.reason).toBeUndefined()
    expect(fs.existsSync(outputs['worktree-path'])).toBe(true)
    // The run sub-action likewise, before anything is confined or run.
    const run = await job.uses('run', { path: mistyped, command: 'true' })
    expect(run.exitCode).toBe(1)
    expect(errorOf(run)).toMatch(/^Input 'path' has the value `[^`]+-typo`: nothing is there, and no agent-worktree step of this job entered/)
  })

  it('the run sub-action in a worktree that is gone: an input error that names the input, and says why', async () => {
    const { outputs } = await job.uses('.', { name: 'ran-late' })
    expect((await job.uses('exit')).outputs.removed).toBe('true')
    const run = await job.uses('run', { command: 'true' })
    expect(run.exitCode).toBe(1)
    expect(errorOf(run)).toBe(
      `Input 'path (from AGENT_WORKTREE_PATH)' has the value \`${outputs['worktree-path']}\`: the worktree is gone (an earlier exit removed it, or git worktree remove did), so there is nothing to run the command in. Run the command before the exit sub-action, or give the worktree-path output of a worktree that is still there.`
    )
  })

  it('still fails for a path where something else is: a folder that is no worktree', async () => {
    await job.uses('.', { name: 'other' })
    const folder = path.join(repos.root, 'not-a-worktree')
    fs.mkdirSync(folder)
    const exit = await job.uses('exit', { path: folder })
    expect(exit.exitCode).toBe(1)
    expect(errorOf(exit)).toContain("Input 'path'")
  })
})

it('a post whose main step made nothing says so in one line', async () => {
  const main = await job.uses('.', { 'on-exit': 'later' })
  expect(main.exitCode).toBe(1)
  const [post] = await job.runPosts()
  expect(post.exitCode).toBe(0)
  expect(post.stdout.trim()).toBe('The main step created nothing: nothing to exit.')
})

describe('the folder of worktrees beside the checkout', () => {
  const folder = (): string => `${repos.clone}.worktrees`

  it('goes with the last worktree a clean removal removes, and stays while another leg has one in it', async () => {
    const first = await job.uses('.', { name: 'first' })
    const second = await job.uses('.', { name: 'second' })
    expect((await job.uses('exit', { path: first.outputs['worktree-path'] })).outputs.removed).toBe('true')
    expect(fs.readdirSync(folder())).toEqual(['second'])
    expect((await job.uses('exit', { path: second.outputs['worktree-path'] })).outputs.removed).toBe('true')
    expect(fs.existsSync(folder())).toBe(false)
    // The next leg makes it again.
    const third = await job.uses('.', { name: 'third' })
    expect(third.outputs['worktree-path']).toBe(path.join(folder(), 'third'))
    await job.runPosts()
    expect(fs.existsSync(folder())).toBe(false)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })

  it('stays when it holds anything else, and a worktrees-dir the workflow named that was there before is left as it is', async () => {
    const kept = await job.uses('.', { name: 'kept' })
    write(folder(), 'notes.txt', 'not a worktree\n')
    const named = path.join(repos.root, 'named')
    fs.mkdirSync(named)
    await job.uses('.', { name: 'named', 'worktrees-dir': named })
    const posts = await job.runPosts()
    expect(posts.every(post => warnings(post).length === 0)).toBe(true)
    expect(fs.existsSync(kept.outputs['worktree-path'])).toBe(false)
    expect(fs.readdirSync(folder())).toEqual(['notes.txt'])
    expect(fs.readdirSync(named)).toEqual([])
  })

  it('a worktrees-dir the workflow named and the main step made goes with its last worktree, and the folders it made above it', async () => {
    const made = path.join(repos.root, 'made')
    const named = path.join(made, 'by', 'the-step')
    const first = await job.uses('.', { name: 'first', 'worktrees-dir': named })
    const second = await job.uses('.', { name: 'second', 'worktrees-dir': named })
    expect(first.outputs['worktree-path']).toBe(path.join(named, 'first'))
    expect((await job.uses('exit', { path: first.outputs['worktree-path'] })).outputs.removed).toBe('true')
    expect(fs.readdirSync(named)).toEqual(['second'])
    const [post] = await job.runPosts()
    expect(post.stdout).toContain('Removed')
    expect(fs.existsSync(second.outputs['worktree-path'])).toBe(false)
    expect(fs.existsSync(made)).toBe(false)
    expect(fs.readdirSync(repos.root)).not.toContain('made')
  })
})

it('a rescue to a branch whose remote is gone says so, and does not blame the permissions', async () => {
  const { outputs } = await job.uses('.', { name: 'orphan', rescue: 'branch' })
  write(outputs['worktree-path'], 'work.txt', 'unsaved\n')
  fs.rmSync(repos.origin, { recursive: true, force: true })
  const [post] = await job.runPosts()
  const said = warnings(post).join('\n')
  expect(said).toContain('Rescue to a branch failed: git push `origin` `agent-worktree-rescue/orphan/')
  expect(said).toContain('is gone or does not answer; use rescue: artifact')
  expect(said).not.toContain('permission')
  expect(fs.readFileSync(path.join(outputs['worktree-path'], 'work.txt'), 'utf8')).toBe('unsaved\n')
})

it('rescue-max-size: 0 is refused before anything is made, with the way to rescue nothing', async () => {
  const main = await job.uses('.', { 'rescue-max-size': '0' })
  expect(main.exitCode).toBe(1)
  expect(errorOf(main)).toBe(
    "Input 'rescue-max-size' has the value `0`: a rescue of no bytes would hold nothing. To rescue nothing, set rescue: none; else give a size such as 100MB."
  )
  expect(worktreePaths(repos.clone)).toEqual([repos.clone])
})
