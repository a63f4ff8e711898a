// What every worktree of a repository shares (branches, tags, the stash, the config, hooks), recorded at enter
// and compared at exit, through the committed bundles as the runner runs them. Each test has its own origin
// and clone, so they run concurrently.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../scripts/runner.mjs'
import { compareShared, fromElsewhere, type SharedState } from '../src/shared-state.js'
import { commit, git, makeRepos, write, type Repos } from './helpers/repos.js'
import { warnings } from './helpers/steps.js'

function reposFor(t: TestContext): Repos {
  const repos = makeRepos()
  t.onTestFinished(() => repos.cleanup())
  return repos
}

function job(repos: Repos, runner: string): Job {
  return new Job({ workspace: repos.clone, temp: path.join(repos.root, runner, '_temp'), env: { RUNNER_NAME: runner, GITHUB_RUN_ID: '7', GITHUB_JOB: runner } })
}

async function enter(j: Job, inputs: Record<string, string>): Promise<{ main: StepResult; wt: string }> {
  const main = await j.uses('.', inputs)
  expect(main.exitCode, main.stdout).toBe(0)
  return { main, wt: main.outputs['worktree-path'] }
}

const sharedWarnings = (step: StepResult): string[] => warnings(step).filter(w => w.startsWith('What every worktree of'))
const sharedInfo = (step: StepResult): string[] => step.stdout.split('\n').filter(line => line.startsWith('Changed meanwhile in what every worktree'))

describe.concurrent('what every worktree shares, at exit', () => {
  it('names each kind of change: a branch force-moved, a tag deleted and one made, a stash, a config key, hooks', async t => {
    const repos = reposFor(t)
    const release = git(repos.clone, 'rev-parse', 'HEAD')
    git(repos.clone, 'branch', 'release')
    git(repos.clone, 'tag', 'v1.0.0')
    write(repos.clone, '.git/hooks/post-checkout', '#!/bin/sh\n')
    const j = job(repos, 'one')
    const { wt } = await enter(j, { name: 'kinds' })
    const moved = commit(wt, 'agent.txt')
    git(wt, 'branch', '--force', 'release', moved)
    git(wt, 'tag', '--delete', 'v1.0.0')
    git(wt, 'tag', 'v2.0.0')
    write(wt, 'README.md', 'stashed edit\n')
    git(wt, 'stash')
    git(wt, 'config', 'user.email', 'agent@example.com')
    write(repos.clone, '.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n')
    write(repos.clone, '.git/hooks/post-checkout', '#!/bin/sh\necho changed\n')
    const exit = await j.uses('exit', { 'discard-changes': 'true' })
    const [warning] = sharedWarnings(exit)
    for (const named of [
      `refs/heads/release moved from ${release.slice(0, 12)} to ${moved.slice(0, 12)}`,
      `refs/tags/v1.0.0 deleted (it was at ${release.slice(0, 12)})`,
      `refs/tags/v2.0.0 created at ${moved.slice(0, 12)}`,
      'refs/stash created at',
      'reflog: "WIP on worktree-kinds',
      'config user.email added',
      `hook ${repos.clone}/.git/hooks/pre-commit added`,
      `hook ${repos.clone}/.git/hooks/post-checkout changed`,
      'may come from another job running at the same time',
      'Nothing was put back'
    ])
      expect(warning, exit.stdout).toContain(named)
    // Its own branch, its commits and its removal are the worktree's own.
    expect(warning).not.toContain('worktree-kinds ')
    const changes = JSON.parse(exit.outputs['shared-changes']) as { kind: string; name: string; change: string; from?: string; to?: string }[]
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'ref', name: 'refs/heads/release', change: 'moved', from: release, to: moved }))
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'config', name: 'user.email', change: 'added' }))
    expect(changes.map(c => c.name)).toEqual(expect.arrayContaining(['refs/tags/v1.0.0', 'refs/tags/v2.0.0', 'refs/stash']))
    expect(exit.summary).toContain(`Changed in what every worktree of ${repos.clone} shares (7)`)
    // Nothing is put back, and the decision is the gate's alone.
    expect(git(repos.clone, 'rev-parse', 'release')).toBe(moved)
    expect(exit.outputs.reason).toBe('clean')
  })

  it('is said by the post too', async t => {
    const repos = reposFor(t)
    const j = job(repos, 'post')
    const { wt } = await enter(j, {})
    git(wt, 'tag', 'made-by-the-agent')
    const [post] = await j.runPosts()
    expect(sharedWarnings(post)[0]).toContain('refs/tags/made-by-the-agent created at')
    expect(post.summary).toContain('shares (1)')
    expect(post.stdout).toContain('Removed')
  })

  it('reports nothing for a clean job: its branch, its push, a fetched base, sparse settings', async t => {
    const repos = reposFor(t)
    // A newer origin/main, which fetch: true moves the remote-tracking branch to.
    const elsewhere = path.join(repos.root, 'elsewhere')
    git(repos.root, 'clone', '--quiet', repos.origin, elsewhere)
    commit(elsewhere, 'newer.txt')
    git(elsewhere, 'push', '--quiet', 'origin', 'main')
    const j = job(repos, 'clean')
    const { wt } = await enter(j, { name: 'clean', 'base-ref': 'origin/main', fetch: 'true', 'sparse-paths': 'src' })
    commit(wt, 'src/work.txt')
    git(wt, 'push', '--quiet', '--set-upstream', 'origin', 'HEAD')
    const exit = await j.uses('exit')
    expect(exit.outputs.reason, exit.stdout).toBe('clean')
    expect(warnings(exit)).toEqual([])
    expect(sharedInfo(exit)).toEqual([])
    expect(exit.outputs['shared-changes']).toBe('[]')
    expect(exit.summary).not.toContain('shares')
  })

  it('says which changes another job in the same clone made, where its worktree or a reflog tells', async t => {
    const repos = reposFor(t)
    git(repos.clone, 'branch', 'release')
    const first = job(repos, 'first')
    await enter(first, { name: 'first' })
    const second = job(repos, 'second')
    const { wt } = await enter(second, { name: 'second' })
    // The second job's agent commits on release in its worktree, goes back to its branch, and makes a tag.
    git(wt, 'switch', '--quiet', 'release')
    const moved = commit(wt, 'second.txt')
    git(wt, 'switch', '--quiet', 'worktree-second')
    git(wt, 'tag', 'from-second')
    const [post] = await first.runPosts()
    // Placed in the other job's worktree: said in the log, not warned about.
    const [info] = sharedInfo(post)
    expect(info, post.stdout).toContain(`refs/heads/release moved`)
    expect(info).toContain(`made in the worktree ${wt}, which another job holds (run 7 attempt 1 job second runner second`)
    expect(info).toContain(`refs/heads/worktree-second created at`)
    expect(info).toContain(`the branch of the worktree ${wt}`)
    // A tag has no reflog: it cannot be placed, and may be this job's.
    const [warning] = sharedWarnings(post)
    expect(warning).toContain('refs/tags/from-second created at')
    expect(warning).toContain('may come from another job')
    expect(warning).not.toContain('release')
    // The second job's own post says the move was made in its worktree.
    const [own] = await second.runPosts()
    expect(sharedWarnings(own)[0]).toContain(`refs/heads/release moved`)
    expect(sharedWarnings(own)[0]).toContain(`made in this job's worktree`)
    expect(git(repos.clone, 'rev-parse', 'release')).toBe(moved)
  })

  it('keeps a record of 10,000 refs out of the state, and believes it only as the main step wrote it', async t => {
    const repos = reposFor(t)
    const lines = Array.from({ length: 10_000 }, (_, i) => `create refs/tags/t${i} HEAD\n`).join('')
    execFileSync('git', ['update-ref', '--stdin'], { cwd: repos.clone, input: lines })
    git(repos.clone, 'pack-refs', '--all')
    const j = job(repos, 'many')
    const { main, wt } = await enter(j, {})
    expect(main.state.worktree.length).toBeLessThan(8 * 1024)
    git(wt, 'tag', '--delete', 't5000')
    const exit = await j.uses('exit')
    expect(sharedWarnings(exit)[0]).toContain('refs/tags/t5000 deleted')

    // A record file that is not what the main step wrote is not believed: nothing is reported from it.
    const other = job(repos, 'tampered')
    const entered = await enter(other, {})
    const record = JSON.parse(entered.main.state.worktree) as { shared: { file: string } }
    const written = JSON.parse(fs.readFileSync(record.shared.file, 'utf8')) as SharedState
    fs.writeFileSync(record.shared.file, JSON.stringify({ ...written, refs: '' }))
    const [post] = await other.runPosts()
    expect(post.stdout).toContain('Removed')
    expect(sharedWarnings(post)).toEqual([])
  })
})

describe('comparing what is shared', () => {
  const state = (refs: string[], config: Record<string, string> = {}, hooks: Record<string, string> = {}): SharedState => ({
    at: 0,
    refs: refs.join('\n'),
    configFile: JSON.stringify(config),
    config,
    hooks,
    holders: {}
  })

  it('names refs created, moved and deleted, config keys and hooks added, changed and removed', () => {
    const [a, b] = ['a'.repeat(40), 'b'.repeat(40)]
    const before = state(
      [`${a} refs/heads/moved`, `${a} refs/tags/gone`, `${a} refs/heads/same`],
      { 'user.email': '1', 'core.x': '1' },
      { '/h/pre-commit': 'file 755 x' }
    )
    const after = state(
      [`${b} refs/heads/moved`, `${a} refs/heads/same`, `${b} refs/stash`],
      { 'user.email': '2', 'user.name': '1' },
      { '/h/pre-push': 'file 755 y' }
    )
    expect(compareShared(before, after).map(c => `${c.kind} ${c.name} ${c.change}`)).toEqual([
      'ref refs/heads/moved moved',
      'ref refs/tags/gone deleted',
      'ref refs/stash created',
      'config user.email changed',
      'config core.x removed',
      'config user.name added',
      'hook /h/pre-commit removed',
      'hook /h/pre-push added'
    ])
    expect(compareShared(before, before)).toEqual([])
  })

  it('leaves to the log what another job or the remote explains', () => {
    const change = { kind: 'ref' as const, name: 'refs/remotes/origin/main', change: 'moved' as const }
    expect(fromElsewhere({ ...change, origin: { reflog: 'fetch: fast-forward' } })).toBe(true)
    expect(fromElsewhere({ ...change, name: 'refs/heads/main', origin: { reflog: 'fetch: fast-forward' } })).toBe(false)
    expect(fromElsewhere({ ...change, origin: { holder: { folder: '/w', whose: 'other-job' }, how: 'made' } })).toBe(true)
    expect(fromElsewhere({ ...change, origin: { holder: { folder: '/w', whose: 'this-job' }, how: 'made' } })).toBe(false)
  })
})
