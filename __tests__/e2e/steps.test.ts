// Covers: src/stages/ (main, post, exit) through the committed bundles.
// The committed bundles, run as the runner runs them, against real repositories.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { branchExists, commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'
import { Job } from '../../scripts/runner.mjs'

let repos: Repos
let job: Job

const JOB_ENV = { GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }

beforeEach(() => {
  repos = makeRepos()
  job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner-temp'), env: JOB_ENV })
})
afterEach(() => repos.cleanup())

describe('enter, then the post step', () => {
  it('creates an isolated worktree with all outputs and env, and removes it when clean', async () => {
    const head = git(repos.clone, 'rev-parse', 'HEAD')
    const main = await job.uses('.')
    expect(main.exitCode).toBe(0)
    const out = main.outputs
    expect(out.created).toBe('true')
    expect(out.name).toMatch(/^agents-4242-1-[0-9a-f]{12}$/)
    expect(out['original-path']).toBe(repos.clone)
    expect(out['worktree-path']).toBe(path.join(`${repos.clone}.worktrees`, out.name))
    expect(out.branch).toBe(`worktree-${out.name}`)
    expect(out['base-sha']).toBe(head)
    expect(out['git-common-dir']).toBe(path.join(repos.clone, '.git'))
    expect(git(out['worktree-path'], 'rev-parse', '--absolute-git-dir')).toBe(out['git-dir'])
    expect(git(out['worktree-path'], 'branch', '--show-current')).toBe(out.branch)
    expect(job.exported).toEqual({ AGENT_WORKTREE_PATH: out['worktree-path'], AGENT_WORKTREE_ORIGINAL_PATH: repos.clone })
    // Locked while the job works, so that no prune or clean-up takes it.
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).toMatch(/locked agent-worktree [0-9a-f]{16}: run 4242 attempt 1 job agents runner runner-1/)
    // The original checkout is untouched.
    expect(git(repos.clone, 'status', '--porcelain')).toBe('')

    const [post] = await job.runPosts()
    expect(post.exitCode).toBe(0)
    expect(warnings(post)).toEqual([])
    expect(post.stdout).toContain(`Removed \`${out['worktree-path']}\` and deleted its branch \`${out.branch}\`: nothing unsaved was found.`)
    expect(fs.existsSync(out['worktree-path'])).toBe(false)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    expect(branchExists(repos.clone, out.branch)).toBe(false)
    expect(post.summary).toContain(out.name)
    expect(post.summary).toContain('removed')
  })

  it('keeps a worktree with uncommitted files, and says what it found', async () => {
    const { outputs } = await job.uses('.', { name: 'dirty' })
    const wt = outputs['worktree-path']
    write(wt, 'new.txt', 'new\n')
    write(wt, 'src/app.txt', 'changed\n')
    write(wt, 'debug.log', 'ignored files are not work\n')
    const [post] = await job.runPosts()
    expect(post.exitCode).toBe(0)
    expect(warnings(post)).toHaveLength(1)
    expect(warnings(post)[0]).toContain(`Kept \`${wt}\`: it has 2 uncommitted files.`)
    expect(warnings(post)[0]).toContain('discard-changes: true')
    expect(warnings(post)[0]).toMatch(/Uncommitted: .*new\.txt/)
    expect(fs.readFileSync(path.join(wt, 'new.txt'), 'utf8')).toBe('new\n')
    expect(branchExists(repos.clone, 'worktree-dirty')).toBe(true)
    expect(post.summary).toContain('kept')
    expect(post.summary).toContain('new.txt')
  })

  it('keeps a worktree with a commit that is not pushed, and removes it once the commit is pushed', async () => {
    const first = await job.uses('.', { name: 'unpushed' })
    commit(first.outputs['worktree-path'], 'feature.txt')
    const [kept] = await job.runPosts()
    expect(warnings(kept)[0]).toContain('it has 1 unsaved commit.')
    expect(fs.existsSync(first.outputs['worktree-path'])).toBe(true)

    const pushed = await job.uses('.', { name: 'pushed' })
    commit(pushed.outputs['worktree-path'], 'feature2.txt')
    git(pushed.outputs['worktree-path'], 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent-work')
    const [removed] = await job.runPosts()
    expect(warnings(removed)).toEqual([])
    expect(fs.existsSync(pushed.outputs['worktree-path'])).toBe(false)
  })

  it('counts commits on its branch even when the agent switched away from it', async () => {
    const { outputs } = await job.uses('.', { name: 'switched' })
    const wt = outputs['worktree-path']
    commit(wt, 'on-branch.txt')
    git(wt, 'checkout', '--quiet', '--detach', outputs['base-sha'])
    const [post] = await job.runPosts()
    expect(warnings(post)[0]).toContain('1 unsaved commit')
    expect(branchExists(repos.clone, 'worktree-switched')).toBe(true)
  })

  it('removes unsaved work and the branch when discard-changes is true', async () => {
    const { outputs } = await job.uses('.', { name: 'discard', 'discard-changes': 'true' })
    const wt = outputs['worktree-path']
    commit(wt, 'lost.txt')
    write(wt, 'untracked.txt', 'x\n')
    const [post] = await job.runPosts()
    expect(warnings(post)).toEqual([])
    expect(post.stdout).toContain('discarding 1 uncommitted file and 1 unsaved commit as discard-changes asked')
    expect(fs.existsSync(wt)).toBe(false)
    expect(branchExists(repos.clone, 'worktree-discard')).toBe(false)
  })

  it('keeps a clean worktree when on-exit is keep, locked, without a warning', async () => {
    const { outputs } = await job.uses('.', { name: 'kept', 'on-exit': 'keep' })
    const [post] = await job.runPosts()
    expect(warnings(post)).toEqual([])
    expect(post.stdout).toContain('as on-exit: keep asked; it has nothing unsaved')
    expect(fs.existsSync(outputs['worktree-path'])).toBe(true)
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).toContain('locked agent-worktree')
  })

  it('names folder and branch with "+" for each "/" of the name', async () => {
    const { outputs } = await job.uses('.', { name: 'team/agent-1' })
    expect(outputs.name).toBe('team/agent-1')
    expect(path.basename(outputs['worktree-path'])).toBe('team+agent-1')
    expect(outputs.branch).toBe('worktree-team+agent-1')
  })

  it('starts from base-ref, takes a custom branch and worktrees-dir', async () => {
    const old = git(repos.clone, 'rev-parse', 'HEAD')
    commit(repos.clone, 'later.txt')
    const dir = path.join(repos.root, 'elsewhere')
    const { outputs } = await job.uses('.', { name: 'based', 'base-ref': old, branch: 'agent/task-7', 'worktrees-dir': dir })
    expect(outputs['base-sha']).toBe(old)
    expect(outputs.branch).toBe('agent/task-7')
    expect(outputs['worktree-path']).toBe(path.join(dir, 'based'))
    expect(git(outputs['worktree-path'], 'rev-parse', 'HEAD')).toBe(old)
    const [post] = await job.runPosts()
    expect(warnings(post)).toEqual([])
    expect(branchExists(repos.clone, 'agent/task-7')).toBe(false)
  })

  it('takes a worktree from a shared clone named by repository-path', async () => {
    const shared = path.join(repos.root, 'shared-clone')
    git(repos.root, 'clone', '--quiet', repos.origin, shared)
    const { outputs } = await job.uses('.', { name: 'shared', 'repository-path': shared, 'base-ref': 'origin/main' })
    expect(outputs['original-path']).toBe(shared)
    expect(outputs['worktree-path']).toBe(path.join(`${shared}.worktrees`, 'shared'))
    // A base on a remote-tracking branch writes no upstream configuration.
    expect(git(shared, 'config', '--list', '--local')).not.toContain('branch.worktree-shared')
    await job.runPosts()
    expect(worktreePaths(shared)).toEqual([shared])
  })

  it('runs posts last registered first, and removes both worktrees', async () => {
    const a = await job.uses('.', { name: 'first' })
    const b = await job.uses('.', { name: 'second' })
    const posts = await job.runPosts()
    expect(posts[0].stdout).toContain(b.outputs['worktree-path'])
    expect(posts[1].stdout).toContain(a.outputs['worktree-path'])
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })

  it('gives every leg of a matrix its own worktree although legs share run id and job', async () => {
    const names = new Set<string>()
    for (let leg = 0; leg < 3; leg++) {
      const legJob = new Job({ workspace: repos.clone, temp: path.join(repos.root, `leg-${leg}`), env: JOB_ENV })
      const { exitCode, outputs } = await legJob.uses('.')
      expect(exitCode).toBe(0)
      names.add(outputs.name)
    }
    expect(names.size).toBe(3)
  })

  it('is idempotent: a post run again finds nothing to do', async () => {
    const { outputs } = await job.uses('.', { name: 'twice' })
    const [first] = await job.runPosts()
    expect(first.stdout).toContain('Removed')
    const [second] = await job.runPosts()
    expect(second.exitCode).toBe(0)
    expect(warnings(second)).toEqual([])
    expect(second.stdout).toContain(`Nothing to do: \`${outputs['worktree-path']}\` is no longer a worktree`)
  })
})

describe('entering an existing worktree by path', () => {
  function addWorktree(name: string): string {
    const wt = path.join(repos.root, name)
    git(repos.clone, 'worktree', 'add', '--quiet', '-b', name, wt)
    return wt
  }

  it('enters it, keeps it by default, and never deletes its branch', async () => {
    const wt = addWorktree('existing')
    const { exitCode, outputs } = await job.uses('.', { path: wt })
    expect(exitCode).toBe(0)
    expect(outputs.created).toBe('false')
    expect(outputs['worktree-path']).toBe(wt)
    expect(outputs.branch).toBe('existing')
    const [post] = await job.runPosts()
    expect(warnings(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('removes it only with an explicit on-exit: remove, and keeps its branch', async () => {
    const wt = addWorktree('explicit')
    await job.uses('.', { path: wt, 'on-exit': 'remove' })
    const [post] = await job.runPosts()
    expect(warnings(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(false)
    expect(branchExists(repos.clone, 'explicit')).toBe(true)
  })

  it('refuses the main checkout', async () => {
    const main = await job.uses('.', { path: repos.clone })
    expect(main.exitCode).toBe(1)
    expect(main.annotations[0]).toMatchObject({ level: 'error' })
    expect(main.annotations[0].message).toContain("Input 'path'")
    expect(main.annotations[0].message).toContain('the checkout the job came from')
  })
})

describe('the exit sub-action', () => {
  it('cancelled before it decides: its outputs say so (reason cancelled, nothing removed), and the post exits the worktree', async () => {
    const { outputs } = await job.uses('.', { name: 'cancelled-exit' })
    write(outputs['worktree-path'], 'notes.txt', 'notes\n')
    const exit = await job.uses('exit', {}, { cancel: { onGit: '*status*', holdMs: 300 } })
    expect(exit.stoppedBy).toBe('cancel')
    expect(exit.outputs).toMatchObject({ action: 'keep', removed: 'false', reason: 'cancelled' })
    expect(exit.outputs.message).toMatch(/^Nothing was removed: the step was cancelled/)
    expect(fs.existsSync(outputs['worktree-path'])).toBe(true)
    const [post] = await job.runPosts()
    expect(warnings(post).join('\n')).toMatch(/Kept .*1 uncommitted file/)
  })

  it('removes a clean worktree mid-job, and the post then does nothing', async () => {
    const { outputs } = await job.uses('.', { name: 'mid' })
    const exit = await job.uses('exit')
    expect(exit.exitCode).toBe(0)
    expect(exit.outputs).toMatchObject({
      action: 'remove',
      removed: 'true',
      'worktree-path': outputs['worktree-path'],
      'original-path': repos.clone,
      branch: 'worktree-mid',
      'uncommitted-files': '0',
      'unsaved-commits': '0'
    })
    expect(exit.outputs.message).toContain('Removed')
    expect(exit.summary).toContain('removed')
    expect(fs.existsSync(outputs['worktree-path'])).toBe(false)
    const [post] = await job.runPosts()
    expect(post.exitCode).toBe(0)
    expect(warnings(post)).toEqual([])
    expect(post.stdout).toContain('Nothing to do')
  })

  it('keeps a dirty worktree with counts, and that decision is final for the post', async () => {
    const { outputs } = await job.uses('.', { name: 'final' })
    const wt = outputs['worktree-path']
    write(wt, 'a.txt', 'a\n')
    commit(wt, 'b.txt')
    const exit = await job.uses('exit')
    expect(exit.outputs).toMatchObject({ action: 'keep', removed: 'false', 'uncommitted-files': '1', 'unsaved-commits': '1' })
    expect(exit.outputs.message).toContain(`To save it, run \`cd ${wt} && git restore --source=refs/agent-worktree/kept/`)
    expect(exit.outputs.message).toContain(`&& git push origin HEAD:refs/heads/worktree-final\`. `)
    expect(exit.outputs.message).toContain('Or exit with discard-changes: true to remove it anyway.')
    // Even once the work is saved, the post does not undo the exit's decision.
    fs.rmSync(path.join(wt, 'a.txt'))
    git(wt, 'push', '--quiet', 'origin', 'HEAD:refs/heads/saved')
    const [post] = await job.runPosts()
    expect(post.stdout).toContain('the exit step already exited')
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('removes with discard-changes and reports the counts it discarded', async () => {
    const { outputs } = await job.uses('.', { name: 'drop' })
    write(outputs['worktree-path'], 'a.txt', 'a\n')
    const exit = await job.uses('exit', { 'discard-changes': 'true' })
    expect(exit.outputs).toMatchObject({ action: 'remove', removed: 'true', 'uncommitted-files': '1' })
    expect(branchExists(repos.clone, 'worktree-drop')).toBe(false)
  })

  it('exits the worktree named by path, not the last one', async () => {
    const a = await job.uses('.', { name: 'a' })
    const b = await job.uses('.', { name: 'b' })
    const exit = await job.uses('exit', { path: a.outputs['worktree-path'] })
    expect(exit.outputs.removed).toBe('true')
    expect(fs.existsSync(a.outputs['worktree-path'])).toBe(false)
    expect(fs.existsSync(b.outputs['worktree-path'])).toBe(true)
  })

  it('fails clearly when no worktree was entered, or the path is not one of ours', async () => {
    const none = await job.uses('exit')
    expect(none.exitCode).toBe(1)
    expect(none.annotations[0].message).toContain('no worktree was entered in this job')
    const foreign = await job.uses('exit', { path: repos.clone })
    expect(foreign.exitCode).toBe(1)
    expect(foreign.annotations[0].message).toContain('not a worktree that agent-worktree entered')
  })
})

describe('bad input fails the main step with a clear error and leaves nothing behind', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['an invalid name', { name: 'bad name' }, "Input 'name'"],
    ['a "..", segment', { name: 'a/../b' }, "Input 'name'"],
    ['a name over 64 characters', { name: 'x'.repeat(65) }, 'more than 64'],
    ['name together with path', { name: 'a', path: '/tmp' }, 'not both'],
    ['an unknown on-exit', { 'on-exit': 'delete' }, "Input 'on-exit'"],
    ['a boolean outside YAML 1.2 core', { 'discard-changes': 'yes' }, "Input 'discard-changes'"],
    ['a base that does not resolve', { 'base-ref': 'no-such-ref' }, "Input 'base-ref'"],
    ['a base that looks like an option', { 'base-ref': '--output=/tmp/x' }, "Input 'base-ref'"],
    ['an invalid branch', { branch: 'a..b' }, "Input 'branch'"],
    ['a branch that looks like an option', { branch: '-D' }, "Input 'branch'"],
    ['an existing branch', { branch: 'main' }, 'already exists'],
    ['a repository path that is not a repository', { 'repository-path': '/' }, "Input 'repository-path'"],
    ['a path that is not a worktree', { path: '/tmp' }, "Input 'path'"],
    ['a newline in an input', { name: 'a\nb' }, 'control character'],
    ['base-ref together with path', { path: '/tmp', 'base-ref': 'main' }, "Input 'base-ref'"]
  ]
  it.each(cases)('%s', async (_title, inputs, expected) => {
    const before = git(repos.clone, 'for-each-ref')
    const main = await job.uses('.', inputs)
    expect(main.exitCode).toBe(1)
    const errors = main.annotations.filter(a => a.level === 'error')
    expect(errors).toHaveLength(1)
    expect(errors[0].message).toContain(expected)
    expect(main.outputs).toEqual({})
    // The main step claims its state keys first (empty), so that none comes from GITHUB_ENV: no record in them.
    expect(main.state.worktree).toBe('')
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    expect(git(repos.clone, 'for-each-ref')).toBe(before)
    expect(fs.existsSync(`${repos.clone}.worktrees`)).toBe(false)
    // The post after a failed main is a quiet no-op.
    const [post] = await job.runPosts()
    expect(post.exitCode).toBe(0)
    expect(post.annotations).toEqual([])
  })

  it('a worktree name already in use', async () => {
    await job.uses('.', { name: 'taken', 'on-exit': 'keep' })
    const again = await job.uses('.', { name: 'taken' })
    expect(again.exitCode).toBe(1)
    expect(again.annotations[0].message).toContain('already exists')
    expect(again.annotations[0].message).toContain('enter the existing worktree with path')
  })
})
