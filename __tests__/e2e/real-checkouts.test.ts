// Covers: src/enter/, src/exit/ through the bundles, on what actions/checkout makes.
// Real checkouts: what actions/checkout, submodules, LFS, line endings, stalled remotes and full disks do
// to the action, through the committed bundles and the runner emulation. Each test asserts the safe
// behaviour: nothing kept for nothing, nothing removed that holds work, no step that hangs, and errors
// that name the input or the cause rather than a raw git or system error.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'
import { afterEach, describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { replayCheckout } from '../helpers/checkout.js'
import { branchExists, commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { available } from '../helpers/tools.js'

const NOBODY = { uid: 65534, gid: 65534 }
const HAS_LFS = available('git-lfs', ['git', 'lfs', 'version'], 'the 3 LFS tests of real-checkouts.test.ts')
const IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' }
/** Folders mounted by a test, unmounted after it. */
const mounted = new Set<string>()
let runs = 0

afterEach(() => {
  for (const dir of mounted) unmount(dir)
  mounted.clear()
})

function unmount(dir: string): void {
  if (spawnSync('umount', [dir]).status !== 0) spawnSync('umount', ['-l', dir])
}

/** Everything under `root`, whatever its depth, modes and mounts. */
function removeAll(root: string): void {
  for (const line of fs.readFileSync('/proc/mounts', 'utf8').split('\n')) {
    const point = line.split(' ')[1]
    if (point && point.startsWith(`${root}/`)) unmount(point)
  }
  spawnSync('chmod', ['-R', 'u+rwx', root])
  spawnSync('rm', ['-rf', root])
}

/** An origin and its clone, removed when the test ends. */
function reposFor(t: TestContext, files?: Record<string, string>): Repos {
  const repos = makeRepos(files)
  t.onTestFinished(() => removeAll(repos.root))
  return repos
}

interface JobOptions {
  env?: Record<string, string>
  workspace?: string
  user?: { uid: number; gid: number }
}

/** A job of the self-hosted runner `runner`: jobs of one runner share its name and its temp folder. */
function job(repos: Repos, runner: string, options: JobOptions = {}): Job {
  return new Job({
    workspace: options.workspace ?? repos.clone,
    temp: path.join(repos.root, runner, '_work', '_temp'),
    env: { RUNNER_NAME: runner, GITHUB_RUN_ID: String(++runs), GITHUB_JOB: 'agents', ...options.env },
    user: options.user
  })
}

function errors(step: StepResult): string {
  return step.annotations
    .filter(a => a.level === 'error')
    .map(a => a.message)
    .join('\n')
}

function warnings(step: StepResult): string {
  return step.annotations
    .filter(a => a.level === 'warning')
    .map(a => a.message)
    .join('\n')
}

/** git with an environment of the test's choosing (a HOME of its own, GIT_LFS_SKIP_SMUDGE). */
function gitEnv(cwd: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY, ...env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

async function until(what: string, condition: () => boolean, timeoutMs: number): Promise<void> {
  const started = Date.now()
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(20)
  }
}

/** Where a removal moves a folder before deleting it (remove-worktree.ts quarantinePath). */
function aside(folder: string): string {
  return path.join(path.dirname(folder), `.${path.basename(folder)}.agent-worktree-removing`)
}

/** Lock files and half-done removals left in the repository's git dir or beside the worktree. */
function leftovers(repo: string, worktree: string): string[] {
  const gitDir = path.join(repo, '.git')
  const found = fs.readdirSync(gitDir).filter(name => name.endsWith('.lock') || name.startsWith('agent-worktree.lock'))
  const worktrees = path.join(gitDir, 'worktrees')
  if (fs.existsSync(worktrees)) found.push(...fs.readdirSync(worktrees).map(id => `worktrees/${id}`))
  if (fs.existsSync(worktree)) found.push(worktree)
  if (fs.existsSync(aside(worktree))) found.push(aside(worktree))
  return found
}

/** A TCP listener that accepts every connection and never says a word: a stalled remote. */
async function stalledListener(t: TestContext): Promise<{ port: number; connections: () => number }> {
  const sockets = new Set<net.Socket>()
  let connections = 0
  const server = net.createServer(socket => {
    connections++
    sockets.add(socket)
    socket.on('error', () => undefined)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  t.onTestFinished(() => {
    for (const socket of sockets) socket.destroy()
    server.close()
  })
  return { port: (server.address() as net.AddressInfo).port, connections: () => connections }
}

/** A new commit on origin's main, made in a throwaway clone. */
function pushToOrigin(repos: Repos, file: string, content = `${file}\n`): string {
  const seed = path.join(repos.root, `seed-${++runs}`)
  git(repos.root, 'clone', '--quiet', repos.origin, seed)
  const sha = commit(seed, file, content)
  git(seed, 'push', '--quiet', 'origin', 'HEAD:main')
  fs.rmSync(seed, { recursive: true, force: true })
  return sha
}

/** A pull request's merge commit on origin, as GitHub makes one: refs/pull/<n>/merge, on no branch. */
function pullRequestRef(repos: Repos, n: number): string {
  const seed = path.join(repos.root, `pr-seed-${++runs}`)
  git(repos.root, 'clone', '--quiet', repos.origin, seed)
  git(seed, 'switch', '--quiet', '-c', 'feature')
  commit(seed, 'pr.txt')
  git(seed, 'switch', '--quiet', '--detach', 'origin/main')
  git(seed, 'merge', '--quiet', '--no-ff', '-m', 'Merge feature into main', 'feature')
  git(seed, 'push', '--quiet', 'origin', `HEAD:refs/pull/${n}/merge`)
  const merge = git(seed, 'rev-parse', 'HEAD')
  fs.rmSync(seed, { recursive: true, force: true })
  return merge
}

// 1. On a reused self-hosted runner the next job starts with actions/checkout of the same folder.
describe('a kept worktree and the next job’s actions/checkout', () => {
  /**
   * The workspace as actions/checkout made it in the first job (git init, a fetch at depth 1, no origin/HEAD),
   * of the branch main or of a pull request's merge commit; its post runs after the job's other posts.
   */
  function checkedOut(t: TestContext, pullRequest?: number, files?: Record<string, string>): { repos: Repos; checkoutPost: () => void } {
    const repos = reposFor(t, files)
    if (pullRequest !== undefined) pullRequestRef(repos, pullRequest)
    for (const name of fs.readdirSync(repos.clone)) fs.rmSync(path.join(repos.clone, name), { recursive: true, force: true })
    const checkout = replayCheckout(repos.clone, repos.origin, { pullRequest })
    return { repos, checkoutPost: checkout.post }
  }

  interface Kept {
    repos: Repos
    wt: string
    /** What the post said. */
    said: string
  }

  async function keptSurvivesCheckout(
    t: TestContext,
    inputs: Record<string, string>,
    work: (wt: string) => string,
    options: { pullRequest?: number; files?: Record<string, string> } = {}
  ): Promise<Kept> {
    const { repos, checkoutPost } = checkedOut(t, options.pullRequest, options.files)
    const first = job(repos, 'runner-1')
    const main = await first.uses('.', inputs)
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const gitDir = main.outputs['git-dir']
    const unpushed = work(wt)
    const [post] = await first.runPosts()
    checkoutPost()
    expect(post.exitCode).toBe(0)
    expect(fs.existsSync(wt), post.stdout).toBe(true)
    await first.end()
    const status = git(wt, 'status', '--porcelain', '--untracked-files=all')

    const checkout = replayCheckout(repos.clone, repos.origin)
    expect(checkout.recreated, checkout.log.join('\n')).toBe(false)
    expect(fs.existsSync(wt)).toBe(true)
    expect(fs.existsSync(gitDir)).toBe(true)
    expect(git(wt, 'log', '--format=%H')).toContain(unpushed)
    expect(git(wt, 'status', '--porcelain', '--untracked-files=all')).toBe(status)
    const fsck = spawnSync('git', ['fsck', '--no-progress'], { cwd: repos.clone, encoding: 'utf8' })
    expect(fsck.status, fsck.stderr + fsck.stdout).toBe(0)
    expect(fsck.stderr + fsck.stdout).not.toMatch(/error|missing|broken|invalid/i)

    const next = job(repos, 'runner-1')
    const entered = await next.uses('.', { name: 'next-job' })
    expect(entered.exitCode, entered.stdout).toBe(0)
    expect(`${entered.stdout}\n${warnings(entered)}`).toContain(wt)
    await next.runPosts()
    checkout.post()
    expect(git(wt, 'log', '--format=%H')).toContain(unpushed)
    return { repos, wt, said: `${post.stdout}\n${warnings(post)}` }
  }

  it('kept for unsaved work (an uncommitted file and an unpushed commit): not recreated; folder, git dir and commit survive; the next job reports it', async t => {
    await keptSurvivesCheckout(t, { name: 'unsaved-work' }, wt => {
      const sha = commit(wt, 'feature.txt')
      write(wt, 'draft.txt', 'draft\n')
      return sha
    })
  })

  it('kept by on-exit: keep: not recreated; folder, git dir and commit survive; the next job reports it', async t => {
    await keptSurvivesCheckout(t, { name: 'kept-on-purpose', 'on-exit': 'keep' }, wt => commit(wt, 'feature.txt'))
  })

  it('a pull_request job (its merge commit detached): kept for unsaved work, it survives the next job’s checkout of a branch', async t => {
    await keptSurvivesCheckout(t, { name: 'pull-request' }, wt => commit(wt, 'feature.txt'), { pullRequest: 1 })
  })

  it('a commit on a branch of the agent’s own in the workspace (git switch -c), not pushed: kept; the next checkout deletes the branch, the kept ref holds the commit, and the message names that ref', async t => {
    const { repos, wt, said } = await keptSurvivesCheckout(t, { name: 'own-branch' }, wt => {
      git(wt, 'switch', '--quiet', '-c', 'fix')
      return commit(wt, 'fix.txt')
    })
    expect(branchExists(repos.clone, 'fix')).toBe(false)
    const mark = /refs\/agent-worktree\/kept\/[^ ]+\/[0-9a-f]{16}/.exec(said)?.[0]
    expect(mark, said).toBeDefined()
    expect(git(repos.clone, 'log', '--format=%s', mark!)).toContain('add fix.txt')
    // The one command that saves it: the branch made again at the kept commit (the checkout deleted it), and pushed.
    expect(said).toContain(`\`cd ${wt} && git switch -C fix && git push origin fix\``)
    expect(said).not.toMatch(/switch (worktree-|fix)/)
  })

  it('a sparse worktree (sparse-paths), kept: still sparse after the next checkout disables sparse checkout and unsets extensions.worktreeConfig', async t => {
    const files = { 'README.md': '# sample\n', 'src/app.txt': 'app\n', 'docs/guide.md': 'guide\n' }
    const { wt } = await keptSurvivesCheckout(
      t,
      { name: 'sparse-kept', 'sparse-paths': 'src' },
      wt => {
        write(wt, 'src/draft.txt', 'draft\n')
        return git(wt, 'rev-parse', 'HEAD')
      },
      { files }
    )
    expect(fs.existsSync(path.join(wt, 'docs'))).toBe(false)
    expect(git(wt, 'sparse-checkout', 'list')).toBe('src')
    git(wt, 'sparse-checkout', 'add', 'docs')
    expect(fs.readFileSync(path.join(wt, 'docs', 'guide.md'), 'utf8')).toBe('guide\n')
    expect(fs.readFileSync(path.join(wt, 'src', 'draft.txt'), 'utf8')).toBe('draft\n')
  })

  it('kept by the exit sub-action mid-job: it stays on its branch while the job runs (git push origin HEAD works); the post detaches it, and it survives the next checkout', async t => {
    const { repos, checkoutPost } = checkedOut(t)
    const j = job(repos, 'runner-1')
    const main = await j.uses('.', { name: 'kept-mid-job' })
    const wt = main.outputs['worktree-path']
    const branch = main.outputs.branch
    commit(wt, 'first.txt')
    const exit = await j.uses('exit')
    expect(exit.outputs.removed, exit.stdout).toBe('false')
    expect(git(wt, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${branch}`)
    const later = commit(wt, 'later.txt')
    git(wt, 'push', '--quiet', 'origin', 'HEAD')
    expect(git(repos.origin, 'rev-parse', `refs/heads/${branch}`)).toBe(later)
    const after = commit(wt, 'after-push.txt')
    const [post] = await j.runPosts()
    checkoutPost()
    expect(post.exitCode).toBe(0)
    expect(post.stdout).toContain(`It was detached from its branch \`${branch}\` at the same commit`)
    expect(spawnSync('git', ['symbolic-ref', '--quiet', 'HEAD'], { cwd: wt }).status).toBe(1)
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(after)
    await j.end()
    const checkout = replayCheckout(repos.clone, repos.origin)
    expect(checkout.recreated, checkout.log.join('\n')).toBe(false)
    checkout.post()
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(after)
  })

  it('whose post never ran: checkout recreates the repository; the next job reports the orphaned folder, and the same name fails clearly', async t => {
    const { repos } = checkedOut(t)
    // The runner died under the job: no post, no clean-up.
    const crashed = job(repos, 'runner-1')
    const main = await crashed.uses('.', { name: 'never-posted' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    write(wt, 'draft.txt', 'draft\n')

    const checkout = replayCheckout(repos.clone, repos.origin)
    expect(checkout.recreated, checkout.log.join('\n')).toBe(true)
    expect(fs.existsSync(path.join(wt, 'draft.txt'))).toBe(true)

    const next = job(repos, 'runner-1')
    const entered = await next.uses('.', { name: 'next-job' })
    expect(entered.exitCode, entered.stdout).toBe(0)
    expect(warnings(entered)).toContain(wt)
    await next.runPosts()

    const again = await job(repos, 'runner-1').uses('.', { name: 'never-posted' })
    expect(again.exitCode).toBe(1)
    const error = errors(again)
    expect(error).toContain("Input 'name'")
    expect(error).toContain(wt)
    expect(error).toMatch(/exists/)
    expect(error).not.toMatch(/fatal:|error:|git worktree add|could not create/)
    expect(fs.readFileSync(path.join(wt, 'draft.txt'), 'utf8')).toBe('draft\n')
  })

  it('a shared clone outside the workspace (repository-path) keeps its local branches: a commit on one is saved there, and the worktree goes', async t => {
    const repos = reposFor(t)
    const workspace = path.join(repos.root, 'work', 'elsewhere', 'elsewhere')
    fs.mkdirSync(workspace, { recursive: true })
    const j = job(repos, 'runner-1', { workspace })
    const main = await j.uses('.', { name: 'shared-clone', 'repository-path': repos.clone })
    expect(main.exitCode, errors(main) || main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    git(wt, 'switch', '--quiet', '-c', 'fix')
    const sha = commit(wt, 'fix.txt')
    const [post] = await j.runPosts()
    expect(warnings(post)).toBe('')
    expect(fs.existsSync(wt)).toBe(false)
    expect(git(repos.clone, 'rev-parse', 'refs/heads/fix')).toBe(sha)
  })
})

// 2. A remote that accepts the connection and never answers.
describe.concurrent('a stalled remote hangs nobody', () => {
  async function fetchFromStalledRemote(t: TestContext, url: (port: number) => string): Promise<void> {
    const repos = reposFor(t)
    const { port, connections } = await stalledListener(t)
    git(repos.clone, 'remote', 'set-url', 'origin', url(port))
    const fetching = job(repos, 'runner-a')
    t.onTestFinished(async () => void (await fetching.end()))
    // timeout-minutes: 1 ends a step that hangs, so that an old action fails the test rather than hangs it.
    const pending = fetching.uses('.', { name: 'fetching', fetch: 'true', 'base-ref': 'origin/main' }, { timeoutMinutes: 1 })
    await until('the fetch to connect', () => connections() > 0, 20_000)

    // Meanwhile another runner's job enters the same repository, without fetch: the fetch holds no lock.
    const other = job(repos, 'runner-b')
    const entered = await other.uses('.', { name: 'meanwhile' })
    expect(entered.exitCode, entered.stdout).toBe(0)
    expect(entered.durationMs).toBeLessThan(10_000)

    const main = await pending
    const strays = fetching.strays()
    expect(main.stoppedBy).toBeUndefined()
    expect(main.durationMs).toBeLessThan(45_000)
    expect(main.exitCode).toBe(1)
    expect(errors(main)).toMatch(/base-ref/)
    expect(errors(main)).toMatch(/fetch/)
    expect(strays.map(p => p.command)).toEqual([])
    await other.runPosts()
    await fetching.runPosts()
  }

  // Each waits up to 45 s on a stalled remote, beside what its steps need on a loaded machine (vitest.config.ts).
  it('http: fetch: true fails within 45 s naming base-ref, leaves no git running, and another job enters meanwhile', async t => {
    await fetchFromStalledRemote(t, port => `http://127.0.0.1:${port}/x.git`)
  }, 165_000)

  it('ssh: fetch: true fails within 45 s naming base-ref, leaves no git running, and another job enters meanwhile', async t => {
    await fetchFromStalledRemote(t, port => `ssh://127.0.0.1:${port}/x.git`)
  }, 165_000)

  it('a partial clone whose remote stalls: enter fails within 45 s naming the partial clone, no git left running', async t => {
    const repos = reposFor(t)
    const { port, connections } = await stalledListener(t)
    git(repos.origin, 'config', 'uploadpack.allowFilter', 'true')
    fs.rmSync(repos.clone, { recursive: true, force: true })
    git(repos.root, 'clone', '--quiet', '--filter=blob:none', `file://${repos.origin}`, repos.clone)
    // A later commit arrives without its files, as in every fetch of a partial clone.
    pushToOrigin(repos, 'src/later.txt', 'later\n')
    git(repos.clone, 'fetch', '--quiet', 'origin')
    git(repos.clone, 'remote', 'set-url', 'origin', `http://127.0.0.1:${port}/x.git`)

    const j = job(repos, 'runner-a')
    t.onTestFinished(async () => void (await j.end()))
    const main = await j.uses('.', { name: 'partial', 'base-ref': 'origin/main' }, { timeoutMinutes: 1 })
    const strays = j.strays()
    expect(connections()).toBeGreaterThan(0)
    expect(main.stoppedBy).toBeUndefined()
    expect(main.durationMs).toBeLessThan(45_000)
    expect(main.exitCode).toBe(1)
    expect(errors(main)).toMatch(/partial clone/)
    expect(strays.map(p => p.command)).toEqual([])
    await j.runPosts()
  }, 165_000)
})

// 3. No false keeps: an untouched worktree goes.
describe('no false keeps: submodules', () => {
  /** A submodule lib whose pinned commit is on no branch of its origin: under a tag only, or on no ref. */
  function withSubmodule(repos: Repos, pinned: 'tag' | 'no-ref'): string {
    const sub = path.join(repos.root, 'lib.git')
    const seed = path.join(repos.root, 'lib-seed')
    git(repos.root, 'init', '--quiet', '--bare', '-b', 'main', sub)
    git(repos.root, 'init', '--quiet', '-b', 'main', seed)
    commit(seed, 'lib.txt')
    git(seed, 'push', '--quiet', sub, 'main')
    git(seed, 'checkout', '--quiet', '--detach')
    const sha = commit(seed, 'pinned.txt')
    if (pinned === 'tag') {
      git(seed, 'push', '--quiet', sub, `${sha}:refs/tags/v1`)
    } else {
      // Pushed, pinned, then its branch deleted: the commit is on no ref of the origin, and only a
      // fetch by its id brings it (a force-push that dropped it, on a host that allows that fetch).
      git(seed, 'push', '--quiet', sub, `${sha}:refs/heads/topic`)
      git(sub, 'update-ref', '-d', 'refs/heads/topic')
      git(sub, 'config', 'uploadpack.allowAnySHA1InWant', 'true')
    }
    fs.rmSync(seed, { recursive: true, force: true })
    git(repos.clone, '-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', `file://${sub}`, 'lib')
    git(path.join(repos.clone, 'lib'), '-c', 'protocol.file.allow=always', 'fetch', '--quiet', 'origin', sha)
    git(path.join(repos.clone, 'lib'), 'checkout', '--quiet', sha)
    git(repos.clone, 'add', 'lib')
    git(repos.clone, 'commit', '--quiet', '-m', 'pin lib')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    return sha
  }

  async function enterWithSubmodule(t: TestContext, pinned: 'tag' | 'no-ref'): Promise<{ repos: Repos; j: Job; wt: string; branch: string }> {
    const repos = reposFor(t)
    const sha = withSubmodule(repos, pinned)
    const j = job(repos, 'runner-1')
    const main = await j.uses('.', { name: `submodule-${pinned}` })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    // The agent initialises submodules as actions/checkout does with submodules: recursive.
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--recursive')
    expect(git(path.join(wt, 'lib'), 'rev-parse', 'HEAD')).toBe(sha)
    return { repos, j, wt, branch: main.outputs.branch }
  }

  it.for(['tag', 'no-ref'] as const)('a submodule pinned to a commit on no remote branch (%s), untouched: the post removes the worktree', async (pinned, t) => {
    const { repos, j, wt, branch } = await enterWithSubmodule(t, pinned)
    const [post] = await j.runPosts()
    expect(warnings(post)).toBe('')
    expect(post.stdout).toContain('Removed')
    expect(fs.existsSync(wt)).toBe(false)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    expect(branchExists(repos.clone, branch)).toBe(false)
  })

  it('a real new commit in that submodule still keeps the worktree', async t => {
    const { repos, j, wt, branch } = await enterWithSubmodule(t, 'tag')
    const work = commit(path.join(wt, 'lib'), 'agent-work.txt')
    const [post] = await j.runPosts()
    expect(warnings(post)).toMatch(/Kept/)
    expect(warnings(post)).toMatch(/unsaved commit/)
    expect(fs.existsSync(wt)).toBe(true)
    expect(git(path.join(wt, 'lib'), 'rev-parse', 'HEAD')).toBe(work)
    expect(worktreePaths(repos.clone)).toContain(wt)
    expect(branchExists(repos.clone, branch)).toBe(true)
  })
})

// 3b. Submodules two deep and nested repositories recorded as gitlinks: judged like the worktree itself.
describe.concurrent('submodules two deep, and nested repositories as gitlinks', () => {
  const FILE = ['-c', 'protocol.file.allow=always']

  /** origin pins lib, and lib pins inner: each a bare origin of its own, cloned into the worktree by the agent. */
  function twoDeep(t: TestContext): Repos {
    const repos = reposFor(t)
    for (const name of ['inner', 'lib']) {
      const seed = path.join(repos.root, `${name}-seed`)
      git(repos.root, 'init', '--quiet', '-b', 'main', seed)
      commit(seed, `${name}.txt`)
      if (name === 'lib') {
        git(seed, ...FILE, 'submodule', 'add', '--quiet', `file://${path.join(repos.root, 'inner.git')}`, 'inner')
        git(seed, 'commit', '--quiet', '-m', 'pin inner')
      }
      git(repos.root, 'clone', '--quiet', '--bare', seed, path.join(repos.root, `${name}.git`))
      fs.rmSync(seed, { recursive: true, force: true })
    }
    git(repos.clone, ...FILE, 'submodule', 'add', '--quiet', `file://${path.join(repos.root, 'lib.git')}`, 'lib')
    git(repos.clone, 'commit', '--quiet', '-m', 'pin lib')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    return repos
  }

  async function enter(t: TestContext, repos: Repos, name: string): Promise<{ j: Job; wt: string; branch: string }> {
    const j = job(repos, 'runner-1')
    t.onTestFinished(async () => void (await j.end()))
    const main = await j.uses('.', { name })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    // The agent initialises submodules as actions/checkout does with submodules: recursive.
    git(wt, ...FILE, 'submodule', 'update', '--init', '--recursive', '--quiet')
    return { j, wt, branch: main.outputs.branch }
  }

  it('untouched, at the pins the base records: the post removes the worktree', async t => {
    const repos = twoDeep(t)
    const { j, wt, branch } = await enter(t, repos, 'two-deep-clean')
    expect(fs.existsSync(path.join(wt, 'lib', 'inner', 'inner.txt'))).toBe(true)
    const [post] = await j.runPosts()
    expect(warnings(post)).toBe('')
    expect(post.stdout).toContain('Removed')
    expect(fs.existsSync(wt)).toBe(false)
    expect(branchExists(repos.clone, branch)).toBe(false)
  })

  it('commits in lib and lib/inner, their pins recorded, only the superproject pushed: the post keeps the worktree and names both', async t => {
    const repos = twoDeep(t)
    const { j, wt } = await enter(t, repos, 'two-deep-forgot')
    const lib = path.join(wt, 'lib')
    const inner = path.join(lib, 'inner')
    commit(inner, 'inner-work.txt')
    git(lib, 'add', 'inner')
    commit(lib, 'lib-work.txt')
    git(wt, 'add', 'lib')
    git(wt, 'commit', '--quiet', '-m', 'new pins')
    git(wt, 'push', '--quiet', 'origin', 'HEAD')
    expect(git(wt, 'status', '--porcelain')).toBe('')
    const [post] = await j.runPosts()
    expect(warnings(post)).toMatch(/Kept .*2 unsaved commits/)
    expect(warnings(post)).toMatch(/`lib`: [0-9a-f]+ `add lib-work\.txt`/)
    expect(warnings(post)).toMatch(/`lib\/inner`: [0-9a-f]+ `add inner-work\.txt`/)
    expect(fs.existsSync(path.join(inner, 'inner-work.txt'))).toBe(true)
  })

  it('a nested repository committed as a gitlink and pushed, its own commit only in its .git: the post keeps the worktree', async t => {
    const repos = reposFor(t)
    const { j, wt } = await enter(t, repos, 'gitlink')
    const nested = path.join(wt, 'vendor', 'tool')
    git(wt, 'init', '--quiet', '-b', 'main', nested)
    commit(nested, 'tool.txt')
    git(wt, 'add', 'vendor/tool')
    git(wt, 'commit', '--quiet', '-m', 'add vendor/tool')
    git(wt, 'push', '--quiet', 'origin', 'HEAD')
    const [post] = await j.runPosts()
    expect(warnings(post)).toMatch(/Kept .*1 unsaved commit/)
    expect(warnings(post)).toMatch(/`vendor\/tool`: [0-9a-f]+ `add tool\.txt`/)
    expect(fs.existsSync(path.join(nested, 'tool.txt'))).toBe(true)
  })
})

describe('no false keeps: line endings', () => {
  /** notes/crlf.txt committed with CRLF, then a .gitattributes that makes it text. */
  function crlfRepos(t: TestContext, attribute: string): Repos {
    const repos = reposFor(t, { 'README.md': '# sample\n', 'notes/crlf.txt': 'one\r\ntwo\r\n' })
    write(repos.clone, '.gitattributes', `*.txt ${attribute}\n`)
    git(repos.clone, 'add', '.gitattributes')
    git(repos.clone, 'commit', '--quiet', '-m', 'line endings')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    return repos
  }

  it.for(['text', 'text eol=crlf'])('a file committed with CRLF before `*.txt %s`: an untouched worktree is removed', async (attribute, t) => {
    const repos = crlfRepos(t, attribute)
    const j = job(repos, 'runner-1')
    const main = await j.uses('.', { name: 'crlf-untouched' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const [post] = await j.runPosts()
    expect(warnings(post)).toBe('')
    expect(post.stdout).toContain('Removed')
    expect(fs.existsSync(wt)).toBe(false)
    expect(branchExists(repos.clone, main.outputs.branch)).toBe(false)
  })

  it.for(['text', 'text eol=crlf'])('a file committed with CRLF before `*.txt %s`: a real edit of it keeps the worktree', async (attribute, t) => {
    const repos = crlfRepos(t, attribute)
    const j = job(repos, 'runner-1')
    const main = await j.uses('.', { name: 'crlf-edited' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes/crlf.txt', 'one\r\ntwo\r\nthree\r\n')
    const [post] = await j.runPosts()
    expect(warnings(post)).toMatch(/Kept .*1 uncommitted file/)
    expect(fs.readFileSync(path.join(wt, 'notes/crlf.txt'), 'utf8')).toBe('one\r\ntwo\r\nthree\r\n')
  })
})

// 4. Git LFS, with a HOME of the test's own so that nothing global changes.
describe.skipIf(!HAS_LFS)('LFS as the checkout left it', () => {
  interface LfsLab {
    repos: Repos
    env: Record<string, string>
    /** The real contents of the LFS files. */
    content: Record<string, Buffer>
  }

  /**
   * An origin with two LFS files (a.bin, b.bin) and a clone with the LFS server unreachable, holding
   * pointer files (actions/checkout's default lfs: false), the objects (lfs: true), or the objects but
   * one (a store pruned, a fetch cut short).
   */
  function lfsLab(t: TestContext, checkout: 'pointers' | 'objects' | 'missing-object'): LfsLab {
    const repos = reposFor(t)
    const home = path.join(repos.root, 'home')
    fs.mkdirSync(home)
    fs.writeFileSync(
      path.join(home, '.gitconfig'),
      '[user]\n\tname = Test\n\temail = test@example.com\n[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n'
    )
    const env = { HOME: home }
    const seed = path.join(repos.root, 'lfs-seed')
    gitEnv(repos.root, env, 'clone', '--quiet', repos.origin, seed)
    write(seed, '.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n')
    const content = { 'a.bin': Buffer.alloc(4096, 'a'), 'b.bin': Buffer.alloc(4096, 'b') }
    for (const [file, bytes] of Object.entries(content)) fs.writeFileSync(path.join(seed, file), bytes)
    gitEnv(seed, env, 'add', '-A')
    gitEnv(seed, env, 'commit', '--quiet', '-m', 'lfs files')
    // Pointers only: no LFS server takes the objects.
    gitEnv(seed, env, '-c', 'core.hooksPath=/dev/null', 'push', '--quiet', 'origin', 'HEAD:main')
    fs.rmSync(repos.clone, { recursive: true, force: true })
    gitEnv(repos.root, { ...env, GIT_LFS_SKIP_SMUDGE: '1' }, 'clone', '--quiet', repos.origin, repos.clone)
    gitEnv(repos.clone, env, 'config', 'lfs.url', 'http://127.0.0.1:1')
    if (checkout !== 'pointers') {
      fs.cpSync(path.join(seed, '.git', 'lfs', 'objects'), path.join(repos.clone, '.git', 'lfs', 'objects'), { recursive: true })
      gitEnv(repos.clone, env, 'lfs', 'checkout')
      for (const [file, bytes] of Object.entries(content)) expect(fs.readFileSync(path.join(repos.clone, file)).equals(bytes)).toBe(true)
    }
    if (checkout === 'missing-object') {
      // A later commit on origin/main adds c.bin, fetched as it is: its object is in no local store, and
      // no file of the checkout holds its content (git-lfs' clean filter would store it again).
      fs.writeFileSync(path.join(seed, 'c.bin'), Buffer.alloc(4096, 'c'))
      gitEnv(seed, env, 'add', 'c.bin')
      gitEnv(seed, env, 'commit', '--quiet', '-m', 'c.bin')
      gitEnv(seed, env, '-c', 'core.hooksPath=/dev/null', 'push', '--quiet', 'origin', 'HEAD:main')
      gitEnv(repos.clone, env, 'fetch', '--quiet', 'origin')
    }
    fs.rmSync(seed, { recursive: true, force: true })
    return { repos, env, content }
  }

  function lfsLogs(repos: Repos): string[] {
    const logs = path.join(repos.clone, '.git', 'lfs', 'logs')
    return fs.existsSync(logs) ? fs.readdirSync(logs) : []
  }

  it('pointer files and an unreachable server: the worktree gets the same pointers, nothing is downloaded, the post removes it', async t => {
    const { repos, env } = lfsLab(t, 'pointers')
    const pointer = fs.readFileSync(path.join(repos.clone, 'a.bin'), 'utf8')
    expect(pointer).toMatch(/^version https:\/\/git-lfs\.github\.com\/spec\/v1/)
    const j = job(repos, 'runner-1', { env })
    const main = await j.uses('.', { name: 'lfs-pointers' })
    expect(main.exitCode, errors(main) || main.stdout).toBe(0)
    expect(main.durationMs).toBeLessThan(10_000)
    const wt = main.outputs['worktree-path']
    expect(fs.readFileSync(path.join(wt, 'a.bin'), 'utf8')).toBe(pointer)
    expect(fs.readFileSync(path.join(wt, 'b.bin'), 'utf8')).toBe(fs.readFileSync(path.join(repos.clone, 'b.bin'), 'utf8'))
    // git-lfs logs every failed transfer: none was tried.
    expect(lfsLogs(repos)).toEqual([])
    const [post] = await j.runPosts()
    expect(warnings(post)).toBe('')
    expect(post.stdout).toContain('Removed')
    expect(fs.existsSync(wt)).toBe(false)
  })

  it('the objects in the checkout: the worktree gets the real content, offline', async t => {
    const { repos, env, content } = lfsLab(t, 'objects')
    const j = job(repos, 'runner-1', { env })
    const main = await j.uses('.', { name: 'lfs-objects' })
    expect(main.exitCode, errors(main) || main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    for (const [file, bytes] of Object.entries(content)) expect(fs.readFileSync(path.join(wt, file)).equals(bytes)).toBe(true)
    const [post] = await j.runPosts()
    expect(warnings(post)).toBe('')
    expect(fs.existsSync(wt)).toBe(false)
  })

  it('real content, but the base needs an LFS object that is not local and the server is unreachable: enter fails naming LFS and the fix, not a raw smudge error', async t => {
    const { repos, env } = lfsLab(t, 'missing-object')
    const j = job(repos, 'runner-1', { env })
    const main = await j.uses('.', { name: 'lfs-missing', 'base-ref': 'origin/main' })
    expect(main.exitCode).toBe(1)
    const error = errors(main)
    expect(error).toMatch(/LFS/)
    expect(error).toContain('lfs: true')
    expect(error).not.toMatch(/^(git |error:|fatal:)/)
    await j.runPosts()
  })
})

// 5. The runner's user is not root: what the step cannot delete, it cannot delete.
describe('removal that fails half-way, as a non-root user', () => {
  /** Repositories owned by nobody, reachable by nobody. */
  function nobodyRepos(t: TestContext): Repos {
    const repos = reposFor(t)
    fs.chmodSync(repos.root, 0o755)
    execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, repos.root])
    return repos
  }

  /** git as root in nobody's repository, which git would otherwise refuse as dubious ownership. */
  function rootGit(cwd: string, ...args: string[]): string {
    return git(cwd, '-c', 'safe.directory=*', ...args)
  }

  function registered(repos: Repos): string[] {
    return rootGit(repos.clone, 'worktree', 'list', '--porcelain')
      .split('\n')
      .filter(l => l.startsWith('worktree '))
      .map(l => l.slice('worktree '.length))
  }

  function hasBranch(repos: Repos, branch: string): boolean {
    return spawnSync('git', ['-c', 'safe.directory=*', 'show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repos.clone }).status === 0
  }

  /** A shell command run as nobody in `cwd`. */
  function asNobody(cwd: string, script: string): void {
    execFileSync('setpriv', [`--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups', '--', '/bin/sh', '-ec', script], { cwd, stdio: 'pipe' })
  }

  async function enterAsNobody(t: TestContext, name: string): Promise<{ repos: Repos; j: Job; wt: string; branch: string; gitDir: string }> {
    const repos = nobodyRepos(t)
    const j = job(repos, 'runner-1', { user: NOBODY })
    const main = await j.uses('.', { name })
    expect(main.exitCode, errors(main) || main.stdout).toBe(0)
    return { repos, j, wt: main.outputs['worktree-path'], branch: main.outputs.branch, gitDir: main.outputs['git-dir'] }
  }

  function removedFully(repos: Repos, wt: string, branch: string): void {
    expect(fs.existsSync(wt)).toBe(false)
    expect(fs.existsSync(aside(wt))).toBe(false)
    expect(registered(repos)).toEqual([repos.clone])
    expect(hasBranch(repos, branch)).toBe(false)
  }

  it("a worktrees-dir the runner's user cannot write: an input error that names it, and nothing is created", async t => {
    const repos = nobodyRepos(t)
    const locked = path.join(repos.root, 'root-owned')
    fs.mkdirSync(locked, { mode: 0o755 })
    const j = job(repos, 'runner-1', { user: NOBODY })
    const main = await j.uses('.', { name: 'no-room', 'worktrees-dir': path.join(locked, 'wts') })
    expect(main.exitCode).toBe(1)
    expect(errors(main)).toBe(
      `Input 'worktrees-dir' has the value \`${path.join(locked, 'wts')}\`: the runner's user (uid ${NOBODY.uid}) cannot create \`wts\` in \`${locked}\` (EACCES). Give a folder that user can write, or let it write there.`
    )
    expect(registered(repos)).toEqual([repos.clone])
    expect(hasBranch(repos, 'worktree-no-room')).toBe(false)
    await j.runPosts()
  })

  it('a read-only folder tree in an ignored folder (Go’s module cache): the post removes the worktree fully', async t => {
    const { repos, j, wt, branch } = await enterAsNobody(t, 'read-only')
    asNobody(
      wt,
      'mkdir -p build/mod/example.com/pkg@v1.0.0/internal && echo "package pkg" > build/mod/example.com/pkg@v1.0.0/pkg.go && echo x > build/mod/example.com/pkg@v1.0.0/internal/x.go && chmod 0444 build/mod/example.com/pkg@v1.0.0/pkg.go build/mod/example.com/pkg@v1.0.0/internal/x.go && chmod 0555 build/mod/example.com/pkg@v1.0.0/internal build/mod/example.com/pkg@v1.0.0 build/mod/example.com build/mod'
    )
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(warnings(post)).toBe('')
    expect(post.stdout).toContain('Removed')
    removedFully(repos, wt, branch)
  })

  it('an ignored folder nested deeper than PATH_MAX: the post removes the worktree fully', async t => {
    const { repos, j, wt, branch } = await enterAsNobody(t, 'deep')
    // Relative mkdir and chdir, one level at a time: 25 levels of 200 characters, past PATH_MAX (4096).
    const segment = 'd'.repeat(200)
    execFileSync(
      'setpriv',
      [
        `--reuid=${NOBODY.uid}`,
        `--regid=${NOBODY.gid}`,
        '--clear-groups',
        '--',
        process.execPath,
        '-e',
        `const fs = require('fs'); fs.mkdirSync('build'); process.chdir('build'); for (let i = 0; i < 25; i++) { fs.mkdirSync('${segment}'); process.chdir('${segment}') } fs.writeFileSync('leaf.txt', 'leaf')`
      ],
      { cwd: wt, stdio: 'pipe' }
    )
    expect(spawnSync('find', [path.join(wt, 'build'), '-name', 'leaf.txt'], { encoding: 'utf8' }).stdout.trim().length).toBeGreaterThan(4096)
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(warnings(post)).toBe('')
    expect(post.stdout).toContain('Removed')
    removedFully(repos, wt, branch)
  })

  /** A folder in the worktree that root owns, with a file in it: nobody cannot delete them. */
  function rootOwned(wt: string): void {
    const dir = path.join(wt, 'build', 'root-owned')
    fs.mkdirSync(dir, { recursive: true, mode: 0o755 })
    fs.chownSync(path.join(wt, 'build'), NOBODY.uid, NOBODY.gid)
    fs.writeFileSync(path.join(dir, 'cache.bin'), 'root\n', { mode: 0o644 })
  }

  /** What is left on disk of the worktree: its folder, or the folder it was moved to for removal. */
  function remaining(wt: string): string[] {
    return [wt, aside(wt)].filter(p => fs.existsSync(p))
  }

  it('something the step cannot delete: the post keeps registration and branch, says where the files are, exits 0; the next job’s sweep finishes', async t => {
    const { repos, j, wt, branch, gitDir } = await enterAsNobody(t, 'undeletable')
    rootOwned(wt)
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    const said = `${post.stdout}\n${warnings(post)}`
    const left = remaining(wt)
    expect(left.length).toBeGreaterThan(0)
    expect(said).toMatch(/could not finish removing/i)
    for (const folder of left) expect(said).toContain(folder)
    expect(said).not.toMatch(/Removed /)
    expect(said).not.toMatch(/left it as it (is|was)/)
    expect(fs.existsSync(gitDir)).toBe(true)
    expect(registered(repos)).toContain(wt)
    expect(hasBranch(repos, branch)).toBe(true)

    await j.end()

    // The next job of this runner, while the files still cannot be deleted: its sweep tries again and
    // says the same, never "Removed" while a folder remains.
    const second = job(repos, 'runner-1', { user: NOBODY })
    const swept = await second.uses('.', { name: 'second-job' })
    expect(swept.exitCode, errors(swept) || swept.stdout).toBe(0)
    expect(remaining(wt).length).toBeGreaterThan(0)
    expect(`${swept.stdout}\n${warnings(swept)}`).not.toMatch(new RegExp(`Removed ${wt}`))
    expect(fs.existsSync(gitDir)).toBe(true)
    expect(registered(repos)).toContain(wt)
    expect(hasBranch(repos, branch)).toBe(true)
    await second.runPosts()
    await second.end()

    // Once the files can be deleted, the next job of this runner finishes the removal.
    for (const folder of remaining(wt)) execFileSync('chown', ['-R', `${NOBODY.uid}:${NOBODY.gid}`, folder])
    const next = job(repos, 'runner-1', { user: NOBODY })
    const entered = await next.uses('.', { name: 'third-job' })
    expect(entered.exitCode, errors(entered) || entered.stdout).toBe(0)
    expect(remaining(wt), `${entered.stdout}\n${warnings(entered)}`).toEqual([])
    expect(fs.existsSync(gitDir)).toBe(false)
    expect(registered(repos)).not.toContain(wt)
    expect(hasBranch(repos, branch)).toBe(false)
    await next.runPosts()
  })

  it('something the step cannot delete: the exit sub-action sets its outputs (removed false, a reason) instead of failing', async t => {
    const { repos, j, wt, branch, gitDir } = await enterAsNobody(t, 'undeletable-exit')
    rootOwned(wt)
    const exit = await j.uses('exit')
    expect(exit.exitCode, errors(exit)).toBe(0)
    expect(errors(exit)).not.toMatch(/ENOENT|EACCES/)
    expect(exit.outputs.removed).toBe('false')
    expect(exit.outputs.reason).toMatch(/^[a-z]+$/)
    expect(exit.outputs.message).toMatch(/could not finish removing/i)
    for (const folder of remaining(wt)) expect(exit.outputs.message).toContain(folder)

    // The post after it, while the files are still there: never "Removed" while a folder remains.
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(`${post.stdout}\n${warnings(post)}`).not.toMatch(/Removed /)
    expect(remaining(wt).length).toBeGreaterThan(0)
    expect(fs.existsSync(gitDir)).toBe(true)
    expect(hasBranch(repos, branch)).toBe(true)
  })
})

// 6. A full disk.
describe('a full disk', () => {
  /** Random, incompressible content: 48 files of 48 KiB. */
  const bigFiles = Object.fromEntries(
    Array.from({ length: 48 }, (_, i) => [
      `assets/blob-${i}.txt`,
      Array.from({ length: 48 * 1024 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('')
    ])
  )

  it('the new worktree’s checkout does not fit: the main step says so, the post removes what it left, the next job is not broken by leftovers', async t => {
    const repos = reposFor(t, { 'README.md': '# big\n', ...bigFiles })
    const disk = path.join(repos.root, 'disk')
    fs.mkdirSync(disk)
    const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', disk], { encoding: 'utf8' })
    if (mount.status !== 0) {
      t.skip(`mount -t tmpfs is not allowed here (${(mount.stderr || mount.error?.message || '').trim()}): a full disk needs root and a mount`)
      return
    }
    mounted.add(disk)
    const clone = path.join(disk, 'repo')
    git(repos.root, 'clone', '--quiet', repos.origin, clone)
    // Room for less than half of a second copy of the files.
    const stat = fs.statfsSync(disk)
    const used = (stat.blocks - stat.bfree) * stat.bsize
    execFileSync('mount', ['-o', `remount,size=${Math.ceil((used + 1024 * 1024) / 4096) * 4}k`, disk])
    const worktrees = `${clone}.worktrees`
    const wt = path.join(worktrees, 'full')

    const j = job(repos, 'runner-1', { workspace: clone })
    const main = await j.uses('.', { name: 'full' })
    expect(main.exitCode).toBe(1)
    const error = errors(main)
    // Soft: what the post and the next job do is checked whatever the message says.
    expect.soft(error).toMatch(/ENOSPC|full/)
    expect.soft(error).toContain(worktrees)
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(leftovers(clone, wt)).toEqual([])
    expect(worktreePaths(clone)).toEqual([clone])
    expect(branchExists(clone, 'worktree-full')).toBe(false)

    const next = job(repos, 'runner-1', { workspace: clone })
    const again = await next.uses('.', { name: 'full' })
    if (again.exitCode !== 0) {
      expect.soft(errors(again)).toMatch(/ENOSPC|full/)
      expect.soft(errors(again)).toContain(worktrees)
      expect(errors(again)).not.toMatch(/already exists/)
    }
    await next.runPosts()
    expect(leftovers(clone, wt)).toEqual([])
    expect(worktreePaths(clone)).toEqual([clone])
  })
})

// 7. Two repositories, one worktrees-dir.
describe('a worktrees-dir shared by two repositories', () => {
  it('another repository’s worktree lands at the path during this one’s worktree add: the main fails, the post leaves the other alone', async t => {
    const repos = reposFor(t)
    const other = path.join(repos.root, 'work', 'other', 'other')
    git(repos.root, 'clone', '--quiet', repos.origin, other)
    const shared = path.join(repos.root, 'shared-worktrees')
    const target = path.join(shared, 'agent')
    const a = job(repos, 'runner-a')
    t.onTestFinished(async () => void (await a.end()))
    const pending = a.uses('.', { name: 'agent', 'worktrees-dir': shared }, { cancel: { onGit: '*worktree add*', holdMs: 1500 } })
    await until('the lock of repository A', () => fs.existsSync(path.join(repos.clone, '.git', 'agent-worktree.lock')), 20_000)
    // A's `git worktree add` has started (the emulation's shim holds it): B's add lands first.
    const fired = path.join(repos.root, 'runner-a', '_work', '_temp', '_runner_emulation', 'step-1', 'CANCEL.fired')
    await until('A’s worktree add', () => fs.existsSync(fired), 20_000).catch(() => undefined)
    git(other, 'worktree', 'add', '--quiet', '--no-checkout', target)

    const main = await pending
    expect(main.triggered).toBe(true)
    expect(main.exitCode).not.toBe(0)
    const posts = await a.runPosts()
    for (const post of posts) expect(post.exitCode).toBe(0)
    expect(fs.readFileSync(path.join(target, '.git'), 'utf8')).toContain(path.join(other, '.git', 'worktrees'))
    expect(worktreePaths(other)).toContain(target)
    expect(fs.existsSync(path.join(other, '.git', 'worktrees', 'agent'))).toBe(true)
    expect(git(target, 'rev-parse', '--path-format=absolute', '--git-common-dir')).toBe(path.join(other, '.git'))
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })
})

// 8. Smaller ones.
describe('checkouts of every shape', () => {
  it('base-ref: origin/main in a pull_request-like clone without it, no fetch: the error names base-ref and says fetch: true', async t => {
    const repos = reposFor(t)
    fs.rmSync(repos.clone, { recursive: true, force: true })
    git(repos.root, 'clone', '--quiet', '--depth', '1', `file://${repos.origin}`, repos.clone)
    git(repos.clone, 'update-ref', '-d', 'refs/remotes/origin/main')
    const main = await job(repos, 'runner-1').uses('.', { name: 'pr', 'base-ref': 'origin/main' })
    expect(main.exitCode).toBe(1)
    expect(errors(main)).toContain("Input 'base-ref'")
    expect(errors(main)).toContain('fetch: true')
  })

  it('an empty repository (no commit): the error says there is no commit and does not blame base-ref', async t => {
    const repos = reposFor(t)
    const empty = path.join(repos.root, 'work', 'empty', 'empty')
    git(repos.root, 'init', '--quiet', '-b', 'main', empty)
    const main = await job(repos, 'runner-1', { workspace: empty }).uses('.', { name: 'empty' })
    expect(main.exitCode).toBe(1)
    expect(errors(main)).not.toMatch(/base-ref/)
    expect(errors(main)).toMatch(/repository-path|no commit/)
    expect(errors(main)).not.toMatch(/^(git |fatal:)/)
  })

  it('a worktrees-dir with a path component over 255 characters: an error naming worktrees-dir, not ENAMETOOLONG', async t => {
    const repos = reposFor(t)
    const main = await job(repos, 'runner-1').uses('.', { name: 'long', 'worktrees-dir': path.join(repos.root, 'w'.repeat(300)) })
    expect(main.exitCode).toBe(1)
    expect(errors(main)).toContain("Input 'worktrees-dir'")
    expect(errors(main)).not.toMatch(/ENAMETOOLONG/)
  })

  it('a sparse checkout: the new worktree gets the whole tree by default', async t => {
    const repos = reposFor(t, { 'README.md': '# sample\n', 'src/app.txt': 'app\n', 'docs/guide.md': 'guide\n' })
    git(repos.clone, 'sparse-checkout', 'set', '--cone', 'src')
    expect(fs.existsSync(path.join(repos.clone, 'docs', 'guide.md'))).toBe(false)
    const j = job(repos, 'runner-1')
    const main = await j.uses('.', { name: 'whole-tree' })
    expect(main.exitCode, errors(main) || main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    expect(fs.readFileSync(path.join(wt, 'docs', 'guide.md'), 'utf8')).toBe('guide\n')
    expect(fs.readFileSync(path.join(wt, 'src', 'app.txt'), 'utf8')).toBe('app\n')
    expect(git(wt, 'status', '--porcelain')).toBe('')
    expect(fs.existsSync(path.join(repos.clone, 'docs', 'guide.md'))).toBe(false)
    const [post] = await j.runPosts()
    expect(warnings(post)).toBe('')
    expect(fs.existsSync(wt)).toBe(false)
  })

  it('the checkout is itself a linked worktree: path naming it is refused, and it is never removed', async t => {
    const repos = reposFor(t)
    const workspace = path.join(repos.root, 'work', 'linked', 'linked')
    git(repos.clone, 'worktree', 'add', '--quiet', '--detach', workspace)
    const j = job(repos, 'runner-1', { workspace })
    const main = await j.uses('.', { path: workspace, 'on-exit': 'remove' })
    expect(main.exitCode).toBe(1)
    expect(errors(main)).toContain("Input 'path'")
    await j.runPosts()
    expect(fs.readFileSync(path.join(workspace, 'README.md'), 'utf8')).toBe('# sample\n')
    expect(worktreePaths(repos.clone)).toContain(workspace)
  })
})
