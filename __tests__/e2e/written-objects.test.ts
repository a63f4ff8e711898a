// Covers: src/git/object-store.ts, src/exit/exit-worktree.ts, src/exit/worktree-pool.ts, src/enter/enter.ts through
// the committed bundles.
// An agent writes the object store: in a shared clone, the one every worktree shares; with isolation: clone, its
// clone's own, whose packs git reads before what it borrows. A pack there whose index names an object by the id of
// another (the base's parent, for a commit whose parent is unpushed work) makes a walk from the base reach that
// work: the post verifies what was written since the agent got it, and keeps on a mismatch; a parked clone's own
// objects are verified before the next job takes it. What git itself writes (a gc) passes.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { forgePack } from '../helpers/forged-pack.js'
import { branchExists, commit, git, makeRepos, type Repos } from '../helpers/repos.js'

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

/** The base's parent, made to stand for a commit whose parent is `unpushed`, in the object store at `objects`. */
function forgeParent(repo: string, gitDir: string, objects: string, base: string, unpushed: string): void {
  const parent = git(repo, 'rev-parse', `${base}^`)
  const forged = git(repo, 'commit-tree', `${parent}^{tree}`, '-p', unpushed, '-m', 'forged')
  forgePack(gitDir, objects, forged, parent)
  expect(git(repo, 'rev-list', base)).toContain(unpushed)
}

describe.concurrent('objects an agent wrote', () => {
  it("in a shared clone: another job's unpushed commit, reached from the base through a forged parent, keeps its worktree and branch", async t => {
    const repos = reposFor(t)
    const base = commit(repos.clone, 'second.txt')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const [theirs, agent] = [job(repos, 'theirs'), job(repos, 'agent')]
    const wt = (await enter(theirs, { 'repository-path': repos.clone, name: 'theirs' })).outputs['worktree-path']
    await enter(agent, { 'repository-path': repos.clone, name: 'agent' })
    const unpushed = commit(wt, 'work.txt')
    forgeParent(repos.clone, path.join(repos.clone, '.git'), path.join(repos.clone, '.git', 'objects'), base, unpushed)
    const [post] = await theirs.runPosts()
    expect(post.stdout).toMatch(
      /its state could not be determined \(the object store .* holds objects that are not what their ids say \(the pack pack\/pack-[0-9a-f]{40}\.pack does not hold what its index says/
    )
    expect(fs.existsSync(path.join(wt, 'work.txt'))).toBe(true)
    expect(branchExists(repos.clone, 'worktree-theirs')).toBe(true)
  })

  it("with isolation: clone, a pack in the clone's own store that makes its commit look saved keeps the clone; it is never parked", async t => {
    const repos = reposFor(t)
    const base = commit(repos.clone, 'second.txt')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const j = job(repos, 'clone')
    const clone = (await enter(j, { 'repository-path': repos.clone, isolation: 'clone', recycle: 'true', name: 'own' })).outputs['worktree-path']
    const unpushed = commit(clone, 'work.txt')
    forgeParent(clone, path.join(clone, '.git'), path.join(clone, '.git', 'objects'), base, unpushed)
    const [post] = await j.runPosts()
    // Kept: the commit that would mark it kept in the original cannot be brought there, whose git checks every hash.
    expect(post.stdout).toMatch(/could not exit .* and left it as it is: .*hash mismatch/)
    expect(post.stdout).not.toContain('Parked')
    expect(git(clone, 'cat-file', '-t', unpushed)).toBe('commit')
  })

  it("a parked clone whose own store gained a forged tree of the base is held back: the next job gets a new clone, not the last agent's files", async t => {
    const repos = reposFor(t)
    const first = job(repos, 'pool-1')
    const one = (await enter(first, { 'repository-path': repos.clone, isolation: 'clone', recycle: 'true', name: 'one' })).outputs['worktree-path']
    expect((await first.runPosts())[0].stdout).toContain(`Parked \`${one}\` in the pool`)
    // Written after the park (a process of the last agent's that outlived its step): the base's tree, with a script.
    const base = git(one, 'rev-parse', 'HEAD')
    const scratch = path.join(repos.root, 'scratch')
    git(repos.root, 'clone', '--quiet', '--shared', one, scratch)
    fs.mkdirSync(path.join(scratch, 'ci'))
    fs.writeFileSync(path.join(scratch, 'ci', 'build.sh'), 'echo the last agent\n')
    git(scratch, 'add', 'ci/build.sh')
    const tree = git(scratch, 'write-tree')
    git(scratch, 'commit', '--quiet', '-m', 'scratch')
    git(scratch, 'repack', '-a', '-q')
    fs.mkdirSync(path.join(one, '.git', 'objects', 'pack'), { recursive: true })
    for (const file of fs.readdirSync(path.join(scratch, '.git', 'objects', 'pack')))
      fs.copyFileSync(path.join(scratch, '.git', 'objects', 'pack', file), path.join(one, '.git', 'objects', 'pack', file))
    forgePack(path.join(one, '.git'), path.join(one, '.git', 'objects'), tree, git(one, 'rev-parse', `${base}^{tree}`))
    const second = job(repos, 'pool-2')
    const main = await enter(second, { 'repository-path': repos.clone, isolation: 'clone', recycle: 'true', name: 'two' })
    expect(main.stdout).toContain('A parked worktree gained work while it was parked')
    expect(main.stdout).toContain('holds objects that are not what their ids say')
    const two = main.outputs['worktree-path']
    expect(fs.existsSync(path.join(two, 'ci'))).toBe(false)
    expect(fs.existsSync(one)).toBe(true)
  })

  it("an agent's gc, which packs the whole store anew, is what git wrote: the worktree goes", async t => {
    const repos = reposFor(t)
    const j = job(repos, 'gc')
    const wt = (await enter(j, { 'repository-path': repos.clone, name: 'gc' })).outputs['worktree-path']
    commit(wt, 'work.txt')
    git(wt, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent/gc')
    git(wt, 'gc', '--quiet', '--prune=now')
    const [post] = await j.runPosts()
    expect(post.stdout, post.stdout).toContain('Removed')
    expect(fs.existsSync(wt)).toBe(false)
  })
})
