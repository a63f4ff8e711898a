// Covers: src/gate/safety-gate.ts through the bundles.
// The safety gate through the committed bundles, as the runner runs them: what an agent, or a later step of
// its job, does to its environment that must never make the post take unsaved work for nothing.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { commit, git, makeRepos, readOrNull, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos({ '.gitignore': '*.log\nbuild/\n.claude/\n', 'README.md': '# sample\n', 'src/app.txt': 'app\n' })
})
afterEach(() => repos.cleanup())

function job(run = 1, runner = 'runner-1'): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runners', runner, '_temp'),
    env: { GITHUB_RUN_ID: String(run), GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: runner }
  })
}

async function enter(j: Job, inputs: Record<string, string> = {}): Promise<StepResult['outputs']> {
  const main = await j.uses('.', inputs)
  expect(main.exitCode).toBe(0)
  return main.outputs
}

/** Everything about a clone that a misdirected git call could change. */
function fingerprint(clone: string): string {
  return [
    git(clone, 'for-each-ref'),
    git(clone, 'status', '--porcelain=v2', '--branch', '--untracked-files=all', '--ignored'),
    git(clone, 'worktree', 'list', '--porcelain'),
    fs.readFileSync(path.join(clone, '.git', 'config'), 'utf8'),
    fs.existsSync(path.join(clone, '.git', 'index')) ? fs.readFileSync(path.join(clone, '.git', 'index')).toString('base64') : ''
  ].join('\n')
}

describe('1. variables a later step exports through GITHUB_ENV', () => {
  /** A global config file with these lines, exported as GIT_CONFIG_GLOBAL. */
  function globalConfig(j: Job, lines: string): void {
    const config = path.join(repos.root, 'global-config')
    fs.writeFileSync(config, `[core]\n${lines}`)
    j.exported.GIT_CONFIG_GLOBAL = config
  }
  function fsmonitorHook(body: string): string {
    const hook = path.join(repos.root, 'fsmonitor.sh')
    fs.writeFileSync(hook, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
    return hook
  }
  const cases: [string, (j: Job) => void][] = [
    [
      'GIT_DIR, naming another clone',
      j => {
        j.exported.GIT_DIR = path.join(repos.root, 'other-clone', '.git')
      }
    ],
    [
      'GIT_CONFIG_GLOBAL, whose core.excludesFile ignores *.txt',
      j => {
        const excludes = path.join(repos.root, 'global-excludes')
        fs.writeFileSync(excludes, '*.txt\n')
        globalConfig(j, `\texcludesFile = ${excludes}\n`)
      }
    ],
    [
      'GIT_CONFIG_GLOBAL, whose core.fsmonitor is a script printing nothing',
      j => globalConfig(j, `\tfsmonitor = ${fsmonitorHook('exit 0')}\n\tuntrackedCache = true\n`)
    ],
    [
      'GIT_CONFIG_GLOBAL, whose core.fsmonitor reports that nothing changed',
      j => globalConfig(j, `\tfsmonitor = ${fsmonitorHook('printf "0\\0"')}\n\tuntrackedCache = true\n`)
    ]
  ]
  it.each(cases)('%s: the post still sees the untracked file and keeps it; the other clone is untouched', async (title, exportVariables) => {
    const other = path.join(repos.root, 'other-clone')
    git(repos.root, 'clone', '--quiet', repos.origin, other)
    const before = fingerprint(other)
    const j = job()
    const { 'worktree-path': wt } = await enter(j, { name: 'exported' })
    exportVariables(j)
    // The agent works in that environment: its git status records what the fsmonitor and the untracked
    // cache will vouch for afterwards.
    const fsmonitor = title.includes('fsmonitor')
    if (fsmonitor)
      for (let i = 0; i < 2; i++)
        execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: wt, env: { ...process.env, ...j.env }, stdio: 'ignore' })
    write(wt, 'notes.txt', 'the agent’s notes\n')
    if (fsmonitor) write(wt, 'src/app.txt', 'edited\n')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(readOrNull(path.join(wt, 'notes.txt'))).toBe('the agent’s notes\n')
    if (fsmonitor) expect(readOrNull(path.join(wt, 'src/app.txt'))).toBe('edited\n')
    expect(worktreePaths(repos.clone)).toContain(wt)
    const kept = warnings(post).find(w => w.includes(`Kept \`${wt}\``))
    expect(kept).toContain('notes.txt')
    if (fsmonitor) expect(kept).toContain('src/app.txt')
    expect(fingerprint(other)).toBe(before)
  })
})

describe('2. recycle: true and a tracked file marked --skip-worktree', () => {
  it('the next job that takes from the pool does not receive the hidden edit, and the edit survives', async () => {
    const first = job(1)
    const one = await enter(first, { name: 'one', recycle: 'true' })
    git(one['worktree-path'], 'update-index', '--skip-worktree', 'src/app.txt')
    write(one['worktree-path'], 'src/app.txt', 'hidden edit\n')
    expect(git(one['worktree-path'], 'status', '--porcelain')).toBe('')
    await first.runPosts()

    const second = job(2)
    const two = await enter(second, { name: 'two', recycle: 'true' })
    expect(readOrNull(path.join(two['worktree-path'], 'src/app.txt'))).toBe('app\n')
    expect(git(two['worktree-path'], 'ls-files', '-v', 'src/app.txt')).toMatch(/^H /)
    // The edit is still on this machine, in a worktree that was kept.
    const holders = worktreePaths(repos.clone).filter(wt => readOrNull(path.join(wt, 'src/app.txt')) === 'hidden edit\n')
    expect(holders).toHaveLength(1)
    expect(holders[0]).not.toBe(two['worktree-path'])
  })
})

describe('3. the worktree’s index deleted', () => {
  it('the post keeps the worktree and says its state is unknown', async () => {
    const j = job()
    const { 'worktree-path': wt } = await enter(j, { name: 'no-index' })
    write(wt, 'src/app.txt', 'work\n')
    fs.rmSync(path.join(git(wt, 'rev-parse', '--absolute-git-dir'), 'index'))
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(readOrNull(path.join(wt, 'src/app.txt'))).toBe('work\n')
    expect(worktreePaths(repos.clone)).toContain(wt)
    expect(warnings(post).some(w => w.includes(`Kept \`${wt}\``) && /could not be determined|unknown/i.test(w))).toBe(true)
  })
})

describe('4. commits made and stepped away from', () => {
  const cases: [string, (wt: string) => string][] = [
    [
      'a commit on a detached HEAD, then switch back',
      wt => {
        git(wt, 'switch', '--quiet', '--detach')
        const sha = commit(wt, 'detached.txt')
        git(wt, 'switch', '--quiet', '-')
        return sha
      }
    ],
    [
      'reset --hard HEAD~1',
      wt => {
        const sha = commit(wt, 'undone.txt')
        git(wt, 'reset', '--quiet', '--hard', 'HEAD~1')
        return sha
      }
    ],
    [
      'a commit only refs/worktree/x names',
      wt => {
        const sha = git(wt, 'commit-tree', '-p', 'HEAD', '-m', 'only a worktree ref has it', 'HEAD^{tree}')
        git(wt, 'update-ref', 'refs/worktree/x', sha)
        return sha
      }
    ]
  ]
  it.each(cases)('%s: kept', async (_title, stepAway) => {
    const j = job()
    const { 'worktree-path': wt } = await enter(j, { name: 'stepped' })
    const sha = stepAway(wt)
    expect(git(wt, 'status', '--porcelain')).toBe('')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(fs.existsSync(wt)).toBe(true)
    expect(worktreePaths(repos.clone)).toContain(wt)
    expect(git(wt, 'rev-list', '--all', '--reflog').split('\n')).toContain(sha)
    expect(warnings(post).some(w => w.includes(`Kept \`${wt}\``) && /unsaved commit/.test(w))).toBe(true)
  })
})

describe('5. the agent moves its worktree', () => {
  const moves: [string, (from: string, to: string) => void][] = [
    [
      'git worktree move, after unlocking it',
      (from, to) => {
        git(repos.clone, 'worktree', 'unlock', from)
        git(repos.clone, 'worktree', 'move', from, to)
      }
    ],
    [
      'mv, then git worktree repair',
      (from, to) => {
        fs.renameSync(from, to)
        git(repos.clone, 'worktree', 'repair', to)
      }
    ]
  ]
  const cases = moves.flatMap(([how, move]) => [true, false].map(work => ({ how, move, work })))
  it.each(cases)('by $how, with work: $work: found at its new place; its git dir never goes while its folder is there', async ({ move, work }) => {
    const j = job()
    const { 'worktree-path': wt, 'git-dir': gitDir } = await enter(j, { name: 'mover' })
    let sha = ''
    if (work) {
      sha = commit(wt, 'committed.txt')
      write(wt, 'notes.txt', 'notes\n')
    }
    const to = path.join(repos.root, 'moved-here')
    move(wt, to)
    expect(git(to, 'rev-parse', '--absolute-git-dir')).toBe(gitDir)
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    // Never a folder left without its git dir.
    if (fs.existsSync(to)) {
      expect(fs.existsSync(gitDir)).toBe(true)
      expect(git(to, 'rev-parse', '--absolute-git-dir')).toBe(gitDir)
      expect(worktreePaths(repos.clone)).toContain(to)
    }
    if (work) {
      expect(readOrNull(path.join(to, 'notes.txt'))).toBe('notes\n')
      expect(git(to, 'rev-parse', 'HEAD')).toBe(sha)
      expect(warnings(post).some(w => w.includes(`Kept \`${to}\``))).toBe(true)
    }
  })
})

describe('6. a nested worktree in an ignored folder', () => {
  it('with an uncommitted file: kept, and the nested file survives', async () => {
    const j = job()
    const { 'worktree-path': wt } = await enter(j, { name: 'outer' })
    expect(git(wt, 'check-ignore', '.claude/worktrees/x')).toBe('.claude/worktrees/x')
    git(wt, 'worktree', 'add', '--quiet', '-b', 'nested-x', '.claude/worktrees/x')
    const nested = path.join(wt, '.claude', 'worktrees', 'x')
    write(nested, 'nested-notes.txt', 'nested work\n')
    expect(git(wt, 'status', '--porcelain')).toBe('')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(fs.existsSync(wt)).toBe(true)
    expect(readOrNull(path.join(nested, 'nested-notes.txt'))).toBe('nested work\n')
    expect(warnings(post).some(w => w.includes(`Kept \`${wt}\``))).toBe(true)
  })
})
