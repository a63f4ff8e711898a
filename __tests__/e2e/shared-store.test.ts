// Covers: src/git/shared-store.ts, src/enter/enter.ts, src/sandbox/paths.ts through the committed bundles.
// An agent of an earlier job on a shared clone writes the object store every worktree of it shares: a pack whose
// index names the blob of the base's ci/build.sh for a script of its own hands the next job's worktree, new or taken
// from the pool, that agent's script with `git status` clean. The main step verifies, before it makes
// anything, what the store gained since it last listed it: the forged pack is named and nothing is made. What git
// itself wrote (a gc) passes and is listed.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { forgePack } from '../helpers/forged-pack.js'
import { branchExists, commit, git, makeRepos, readOrNull, type Repos } from '../helpers/repos.js'

function reposFor(t: TestContext): Repos {
  const repos = makeRepos()
  t.onTestFinished(() => repos.cleanup())
  return repos
}

/** A job of the runner `runner`, whose workspace is not the shared clone: the clone is given as repository-path. */
function job(repos: Repos, runner: string): Job {
  const workspace = path.join(repos.root, runner, 'workspace')
  fs.mkdirSync(workspace, { recursive: true })
  return new Job({ workspace, temp: path.join(repos.root, runner, '_temp'), env: { RUNNER_NAME: runner, GITHUB_RUN_ID: '7', GITHUB_JOB: runner } })
}

async function enter(j: Job, inputs: Record<string, string>): Promise<StepResult> {
  const main = await j.uses('.', inputs)
  expect(main.exitCode, main.stdout).toBe(0)
  return main
}

/** The base, with a script the workflow's later steps run, pushed: what every job starts from. */
function baseWithScript(repos: Repos): void {
  commit(repos.clone, 'ci/build.sh', 'echo build\n')
  git(repos.clone, 'push', '--quiet', 'origin', 'main')
}

/**
 * The base's ci/build.sh, made in the shared store at `repo` to stand for a script of the last agent's: its blob goes
 * in as git writes it (a loose object, what it says), the forged index as a pack. git checks no blob's hash when it
 * checks files out, and `git status` then finds them clean. Returns the pack.
 */
function forgeScript(repo: string): string {
  const common = path.join(repo, '.git')
  const theirs = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: repo, input: 'echo the last agent\n', encoding: 'utf8' }).trim()
  const pack = forgePack(common, path.join(common, 'objects'), theirs, git(repo, 'rev-parse', 'HEAD:ci/build.sh'))
  // What the next job would start on: the base, with the last agent's script.
  expect(git(repo, 'cat-file', 'blob', 'HEAD:ci/build.sh')).toBe('echo the last agent')
  return pack
}

/** The script a worktree the main step entered starts with, and what git status says of it. */
function startedOn(main: StepResult): string {
  const wt = main.outputs['worktree-path']
  return wt ? `${readOrNull(path.join(wt, 'ci', 'build.sh'))} (git status: "${git(wt, 'status', '--porcelain')}")` : ''
}

const REFUSED =
  /holds a file that is not what it says \(the pack pack\/pack-[0-9a-f]{40}\.pack does not hold what its index says.*an agent of an earlier job.*Nothing was created.*git fsck.*isolation: clone/s

describe.concurrent('the shared object store at enter', () => {
  it("a forged script of the base left by an earlier job's agent: the next job's enter refuses, names the pack and makes nothing", async t => {
    const repos = reposFor(t)
    baseWithScript(repos)
    const first = job(repos, 'first')
    await enter(first, { 'repository-path': repos.clone, name: 'one' })
    const pack = forgeScript(repos.clone)
    await first.runPosts()
    const second = job(repos, 'second')
    const refused = await second.uses('.', { 'repository-path': repos.clone, name: 'two' })
    // Without the check, the new worktree holds the last agent's script, and git status calls it clean.
    expect(refused.exitCode, startedOn(refused)).toBe(1)
    expect(refused.stdout).toMatch(REFUSED)
    expect(refused.stdout).toContain(path.basename(pack))
    expect(fs.existsSync(path.join(`${repos.clone}.worktrees`, 'two'))).toBe(false)
    expect(branchExists(repos.clone, 'worktree-two')).toBe(false)
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).not.toContain('two')
    await second.runPosts()
  })

  it('a parked worktree of the shared store: the next job with recycle: true refuses too, and takes nothing from the pool', async t => {
    const repos = reposFor(t)
    baseWithScript(repos)
    const first = job(repos, 'pool-1')
    const one = (await enter(first, { 'repository-path': repos.clone, recycle: 'true', name: 'one' })).outputs['worktree-path']
    expect((await first.runPosts())[0].stdout).toContain(`Parked \`${one}\` in the pool`)
    forgeScript(repos.clone)
    const second = job(repos, 'pool-2')
    const refused = await second.uses('.', { 'repository-path': repos.clone, recycle: 'true', name: 'two' })
    expect(refused.exitCode, startedOn(refused)).toBe(1)
    expect(refused.stdout).toMatch(REFUSED)
    expect(refused.stdout).not.toContain('from the pool')
    // Still parked, as it was: no job took it.
    expect(fs.readFileSync(path.join(repos.clone, '.git', 'worktrees', path.basename(one), 'locked'), 'utf8')).toMatch(/park/i)
    expect(fs.readFileSync(path.join(one, 'ci', 'build.sh'), 'utf8')).toBe('echo build\n')
    await second.runPosts()
  })

  it('a worktree entered by path refuses too, before it locks it for the job', async t => {
    const repos = reposFor(t)
    baseWithScript(repos)
    const first = job(repos, 'path-1')
    await enter(first, { 'repository-path': repos.clone, name: 'one' })
    await first.runPosts()
    const wt = path.join(repos.root, 'by-hand')
    git(repos.clone, 'worktree', 'add', '--quiet', '--detach', wt)
    forgeScript(repos.clone)
    const second = job(repos, 'path-2')
    const refused = await second.uses('.', { 'repository-path': repos.clone, path: wt })
    expect(refused.exitCode).toBe(1)
    expect(refused.stdout).toMatch(REFUSED)
    expect(fs.existsSync(path.join(repos.clone, '.git', 'worktrees', 'by-hand', 'locked'))).toBe(false)
    await second.runPosts()
  })

  it("an agent's gc between two jobs is what git wrote: the exit that verified it lists it, and the next enter goes on", async t => {
    const repos = reposFor(t)
    const first = job(repos, 'gc-1')
    const wt = (await enter(first, { 'repository-path': repos.clone, name: 'one' })).outputs['worktree-path']
    commit(wt, 'work.txt')
    git(wt, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent/gc')
    git(wt, 'gc', '--quiet', '--prune=now')
    const [post] = await first.runPosts()
    expect(post.stdout).toContain('Removed')
    const list = path.join(repos.clone, '.git', 'agent-worktree-objects.json')
    // The exit verified the gc's pack before it removed the worktree, and listed it: the next enter hashes nothing.
    const gcPacks = fs.readdirSync(path.join(repos.clone, '.git', 'objects', 'pack')).filter(f => f.endsWith('.pack'))
    expect(Object.keys(JSON.parse(fs.readFileSync(list, 'utf8')) as object)).toEqual(expect.arrayContaining(gcPacks.map(p => `pack/${p}`)))
    const second = job(repos, 'gc-2')
    const main = await enter(second, { 'repository-path': repos.clone, name: 'two' })
    // The list is read-only in every sandbox list the main step hands out.
    const real = fs.realpathSync(list)
    expect((JSON.parse(main.outputs.sandbox) as { readOnly: string[] }).readOnly).toContain(real)
    expect(fs.readFileSync(main.outputs['srt-settings'], 'utf8')).toContain(real)
    expect(fs.readFileSync(path.join(main.outputs['codex-home'], 'config.toml'), 'utf8')).toContain(real)
    const packs = fs.readdirSync(path.join(repos.clone, '.git', 'objects', 'pack')).filter(f => f.endsWith('.pack'))
    expect(packs.length).toBeGreaterThan(0)
    const listed = JSON.parse(fs.readFileSync(list, 'utf8')) as Record<string, string>
    for (const pack of packs) expect(Object.keys(listed)).toContain(`pack/${pack}`)
    await second.runPosts()
  })
})
