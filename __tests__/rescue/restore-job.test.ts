// Covers: src/rescue/find-rescue.ts, src/rescue/restore.ts, src/rescue/names.ts through the bundles.
// restore: a job picks up where a rescued attempt or an earlier job stopped. One job's post rescues every kind
// of unsaved work (to an artifact and a branch at once); a re-run attempt (restore: auto) and a later job of the
// run (restore: <name>) then enter a new worktree in a checkout of their own, made as actions/checkout makes it,
// and find it as the agent left it: the files byte for byte, git status and git log as they read. Through the
// committed bundles, as the runner runs them. The artifact service is the one stand-in (results-service.ts: its
// list and download answered as the real service answers); branches go to and come from a real bare origin.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { commit, git, worktreePaths, write } from '../helpers/repos.js'
import { checkout, CHECKOUTS, digest, everyKind, hostedJob, lab, type Checkout, type Lab } from '../helpers/restore.js'
import { startResultsService, storedZip, type ResultsService } from '../helpers/results-service.js'
import { warnings } from '../helpers/steps.js'

/** git's answer, or '' when it fails (HEAD without a commit, a detached HEAD). */
function gitOr(wt: string, ...args: string[]): string {
  try {
    return git(wt, ...args)
  } catch {
    return ''
  }
}

/** The worktree as git reads it: whether HEAD is detached, the index entry by entry, status (the branch line aside), the log. */
function gitView(wt: string): Record<string, string> {
  const head = gitOr(wt, 'rev-parse', '--verify', '--quiet', 'HEAD')
  return {
    detached: String(!gitOr(wt, 'symbolic-ref', '-q', 'HEAD')),
    index: git(wt, 'ls-files', '--stage', '-z'),
    status: git(wt, 'status', '--porcelain=v2', '-z', '--untracked-files=all'),
    log: head && git(wt, 'log', '--format=%H %P %s', head)
  }
}

/** What the agent left in a worktree of the lab's first job, and that job's post: the rescue's names. */
async function rescued(t: TestContext, kind: Checkout, work: (wt: string) => string[] = wt => everyKind(wt, kind), inputs: Record<string, string> = {}) {
  const l = lab(t, kind)
  const service = await startResultsService()
  t.onTestFinished(() => service.close())
  const first = hostedJob(l, service.env)
  const main = await first.uses('.', { rescue: 'artifact,branch', ...inputs })
  expect(main.exitCode, main.stdout).toBe(0)
  const wt = main.outputs['worktree-path']
  const commits = work(wt)
  const before = { files: digest(wt), git: gitView(wt) }
  const [post] = await first.runPosts()
  expect(post.exitCode, post.stdout).toBe(0)
  const artifact = /uploaded as the artifact `(\S+?)`\./.exec(post.stdout)?.[1]
  const branch = /pushed to the branch `(\S+)` of `origin`/.exec(post.stdout)?.[1]
  expect(artifact, post.stdout).toBeDefined()
  expect(branch, post.stdout).toBeDefined()
  return { l, service, commits, before, artifact: artifact!, branch: branch! }
}

let workspaces = 0

/** A later job of the lab, in a checkout of its own (a fresh machine): its main step with `inputs`. */
async function laterJob(l: Lab, service: ResultsService, env: Record<string, string>, inputs: Record<string, string>) {
  const workspace = checkout(l, path.join(l.repos.root, `work-${++workspaces}`, 'sample', 'sample'))
  const j = hostedJob(l, { ...service.env, ...env }, workspace)
  const main = await j.uses('.', inputs)
  return { j, main, workspace, wt: main.outputs['worktree-path'] }
}

function expectAsLeft(wt: string, before: { files: string; git: Record<string, string> }, commits: string[]): void {
  expect(digest(wt)).toBe(before.files)
  expect(gitView(wt)).toEqual(before.git)
  expect(fs.existsSync(path.join(wt, 'build/ignored.bin'))).toBe(false)
  // Every commit stays reachable: HEAD's history, and the refs that keep what HEAD does not reach.
  const refs = git(wt, 'for-each-ref', '--format=%(refname)', 'refs/worktree/').split('\n').filter(Boolean)
  for (const sha of commits) expect(git(wt, 'branch', '--all', '--contains', sha) + git(wt, 'rev-list', 'HEAD', ...refs), sha).toContain(sha)
}

describe.concurrent('a re-run and a later job pick up a rescue as it was left, byte for byte', () => {
  it.for(CHECKOUTS)('%s checkout: a re-run restores the artifact (auto), a later job the branch (by name)', async (kind, t) => {
    const { l, service, commits, before, artifact, branch } = await rescued(t, kind)
    const rerun = await laterJob(l, service, { GITHUB_RUN_ATTEMPT: '2' }, { restore: 'auto', rescue: 'artifact' })
    expect(rerun.main.exitCode, rerun.main.stdout).toBe(0)
    expect(rerun.main.outputs).toMatchObject({ restored: 'true', 'restored-from': artifact })
    expect(rerun.main.stdout).toContain(`Restored the artifact \`${artifact}\` into \`${rerun.wt}\``)
    expectAsLeft(rerun.wt, before, commits)
    const later = await laterJob(l, service, { GITHUB_JOB: 'publish' }, { restore: branch, rescue: 'none' })
    expect(later.main.exitCode, later.main.stdout).toBe(0)
    expect(later.main.outputs).toMatchObject({ restored: 'true', 'restored-from': branch })
    expectAsLeft(later.wt, before, commits)
  })

  it.for(['push', 'pull_request', 'sparse'] as const)(
    '%s checkout, isolation: clone: a clone is rescued, and restored into a clone, as it was left',
    async (kind, t) => {
      const clone = { isolation: 'clone' }
      const { l, service, commits, before, artifact, branch } = await rescued(t, kind, undefined, clone)
      const rerun = await laterJob(l, service, { GITHUB_RUN_ATTEMPT: '2' }, { restore: 'auto', rescue: 'artifact', ...clone })
      expect(rerun.main.outputs).toMatchObject({ restored: 'true', 'restored-from': artifact })
      expectAsLeft(rerun.wt, before, commits)
      expect(rerun.main.outputs['git-dir']).toBe(path.join(rerun.wt, '.git'))
      // The restored commits live in the original, where no ref but the clone's borrowed one holds them.
      git(rerun.workspace, 'gc', '--quiet', '--prune=now')
      git(rerun.wt, 'fsck', '--no-dangling')
      const later = await laterJob(l, service, { GITHUB_JOB: 'publish' }, { restore: branch, rescue: 'none', ...clone })
      expectAsLeft(later.wt, before, commits)
    }
  )

  it('push checkout: a later job restores the artifact by name; a re-run (auto, rescue: branch) names the branch, which anyone who may push could have made, and restores it by name', async t => {
    const { l, service, commits, before, artifact, branch } = await rescued(t, 'push')
    const later = await laterJob(l, service, { GITHUB_JOB: 'publish' }, { restore: artifact })
    expect(later.main.exitCode, later.main.stdout).toBe(0)
    expectAsLeft(later.wt, before, commits)
    const rerun = await laterJob(l, service, { GITHUB_RUN_ATTEMPT: '2' }, { restore: 'auto', rescue: 'branch' })
    expect(rerun.main.outputs.restored, rerun.main.stdout).toBe('false')
    expect(warnings(rerun.main).join('\n')).toContain(`attempt 1 left the branch \`${branch}\``)
    const byName = await laterJob(l, service, { GITHUB_RUN_ATTEMPT: '2' }, { restore: branch, rescue: 'branch' })
    expect(byName.main.outputs['restored-from'], byName.main.stdout).toBe(branch)
    expectAsLeft(byName.wt, before, commits)
  })

  it('an orphan branch with staged and untracked files, and a detached HEAD, come back as they were', async t => {
    const orphan = await rescued(t, 'push', wt => {
      git(wt, 'switch', '--quiet', '--orphan', 'gh-pages')
      write(wt, 'index.html', '<h1>docs</h1>\r\n')
      git(wt, 'add', 'index.html')
      write(wt, 'extra.css', 'body{}\n')
      return []
    })
    const back = await laterJob(orphan.l, orphan.service, { GITHUB_JOB: 'publish' }, { restore: orphan.artifact })
    expect(back.main.exitCode, back.main.stdout).toBe(0)
    expectAsLeft(back.wt, orphan.before, [])
    expect(gitOr(back.wt, 'rev-parse', '--verify', '--quiet', 'HEAD')).toBe('')
    const detached = await rescued(t, 'push', wt => {
      const made = commit(wt, 'src/detached.txt', 'detached\n')
      git(wt, 'switch', '--quiet', '--detach')
      write(wt, 'src/app.txt', 'changed on a detached HEAD\n')
      return [made]
    })
    const again = await laterJob(detached.l, detached.service, { GITHUB_JOB: 'publish' }, { restore: detached.branch })
    expect(again.main.exitCode, again.main.stdout).toBe(0)
    expect(again.main.outputs.branch).toBe('')
    expectAsLeft(again.wt, detached.before, detached.commits)
  })
})

describe.concurrent('what a restore refuses, and what it says when there is nothing', () => {
  /** A main step that failed before it created anything: no worktree, no branch, no ref of ours. */
  function nothingCreated(workspace: string): void {
    expect(worktreePaths(workspace)).toHaveLength(1)
    expect(git(workspace, 'for-each-ref', '--format=%(refname)', 'refs/heads/worktree-*', 'refs/agent-worktree/')).toBe('')
    expect(fs.existsSync(`${workspace}.worktrees`) && fs.readdirSync(`${workspace}.worktrees`).length > 0).toBe(false)
  }

  it('refuses a rescue that does not exist, or is none of agent-worktree, before anything is created', async t => {
    const l = lab(t, 'push')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    // Not rescues: an artifact without a bundle, a branch whose tip is an ordinary commit.
    service.artifacts.set('agent-worktree-rescue-notes-agents-41-1', storedZip({ 'notes.txt': 'hello\n' }))
    const other = path.join(l.repos.root, 'other')
    git(l.repos.root, 'clone', '--quiet', l.repos.origin, other)
    commit(other, 'plain.txt')
    git(other, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent-worktree-rescue/plain/agents-41-1')
    const cases: [string, RegExp][] = [
      ['agent-worktree-rescue-gone-agents-41-1', /this run has no artifact of that name/],
      ['agent-worktree-rescue/gone/agents-41-1', /`origin` has no such branch/],
      ['agent-worktree-rescue-notes-agents-41-1', /it is not a rescue: it holds no git bundle rescue\.bundle/],
      ['agent-worktree-rescue/plain/agents-41-1', /it is not a rescue: its commit is not a snapshot agent-worktree made/],
      ['main', /it is neither none, auto, nor the name of a rescue/]
    ]
    for (const [name, why] of cases) {
      const main = await hostedJob(l, service.env).uses('.', { restore: name })
      expect(main.exitCode, name).toBe(1)
      const error = main.annotations.find(a => a.level === 'error')?.message ?? ''
      expect(error, name).toContain(`Input 'restore' has the value \`${name}\``)
      expect(error, name).toMatch(why)
      nothingCreated(l.workspace)
    }
  })

  it('refuses an artifact larger than a rescue within its rescue-max-size holds, before downloading it', async t => {
    const l = lab(t, 'push')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    service.artifacts.set('agent-worktree-rescue-big-agents-41-1', storedZip({ 'build.bin': randomBytes(3 * 1024 * 1024) }))
    const main = await hostedJob(l, service.env).uses('.', { restore: 'agent-worktree-rescue-big-agents-41-1', 'rescue-max-size': '1MB' })
    expect(main.exitCode).toBe(1)
    const error = main.annotations.find(a => a.level === 'error')?.message ?? ''
    expect(error).toContain("its artifact is 3.0 MB, more than a rescue within this step's rescue-max-size holds")
    expect(error).toContain("Set rescue-max-size here as large as the rescuing step's")
    expect(service.requests.filter(request => request.startsWith('GET /download/'))).toEqual([])
    nothingCreated(l.workspace)
  })

  it('auto on a first attempt, and on a re-run whose first attempt left nothing, says so in one line and starts from the base', async t => {
    const l = lab(t, 'push')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const first = await hostedJob(l, service.env).uses('.', { restore: 'auto' })
    expect(first.exitCode, first.stdout).toBe(0)
    expect(first.stdout).toContain('restore: auto: nothing to restore on the first attempt of a run.')
    expect(first.outputs).toMatchObject({ restored: 'false', 'restored-from': '' })
    const rerun = await hostedJob(l, { ...service.env, GITHUB_RUN_ATTEMPT: '2' }).uses('.', { name: 'fix', restore: 'auto', rescue: 'artifact,branch' })
    expect(rerun.exitCode, rerun.stdout).toBe(0)
    expect(rerun.stdout).toContain('restore: auto: attempt 1 left no rescue of this step (no branch or artifact of its name, job and leg)')
    expect(rerun.outputs.restored).toBe('false')
    expect(git(rerun.outputs['worktree-path'], 'status', '--porcelain')).toBe('')
  })

  it('auto after an attempt that rescued one name twice (a worktree kept, entered again, kept again) names both takes and leaves them', async t => {
    const l = lab(t, 'push')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const first = hostedJob(l, service.env)
    const main = await first.uses('.', { name: 'fix', rescue: 'branch' })
    const wt = main.outputs['worktree-path']
    write(wt, 'src/first.txt', 'first\n')
    await first.uses('./exit', { 'on-exit': 'keep' })
    await first.uses('.', { path: wt, rescue: 'branch', 'on-exit': 'keep' })
    write(wt, 'src/second.txt', 'second\n')
    await first.runPosts()
    const rerun = await laterJob(l, service, { GITHUB_RUN_ATTEMPT: '2' }, { name: 'fix', restore: 'auto', rescue: 'branch' })
    expect(rerun.main.exitCode, rerun.main.stdout).toBe(0)
    expect(rerun.main.outputs.restored).toBe('false')
    const said = warnings(rerun.main).join('\n')
    expect(said).toContain('`agent-worktree-rescue/fix/agents-41-1`')
    expect(said).toContain('`agent-worktree-rescue/fix/agents-41-1-take2`')
  })
})

describe.concurrent('a restored worktree exits like any other', () => {
  /** A rescue on a base the later checkout no longer has: origin's main moved on meanwhile. */
  it('a rescue made on another base is restored on its own, and the message says so; untouched, the post keeps it and rescues it again', async t => {
    const { l, service, commits, before } = await rescued(t, 'push')
    const base = git(l.repos.origin, 'rev-parse', 'main')
    const mover = path.join(l.repos.root, 'mover')
    git(l.repos.root, 'clone', '--quiet', l.repos.origin, mover)
    commit(mover, 'moved-on.txt')
    git(mover, 'push', '--quiet', 'origin', 'main')
    const rerun = await laterJob(l, service, { GITHUB_RUN_ATTEMPT: '2' }, { restore: 'auto', rescue: 'artifact' })
    expect(rerun.main.exitCode, rerun.main.stdout).toBe(0)
    expect(rerun.main.outputs['base-sha']).toBe(git(l.repos.origin, 'rev-parse', 'main'))
    expect(rerun.main.stdout).toContain(`The rescue was made on ${base.slice(0, 12)}, not on this worktree's base`)
    expectAsLeft(rerun.wt, before, commits)
    const [post] = await rerun.j.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(post.stdout).toContain(`Kept \`${rerun.wt}\``)
    // What the restore fetched into the repository (the old base, at depth 1) is no change of the checkout.
    expect(post.annotations.map(a => a.message).join('\n')).not.toContain('isolation breach')
    expect(post.stdout).toMatch(/uploaded as the artifact `agent-worktree-rescue-agents-41-2-[0-9a-f]{12}-agents-41-2`\./)
    expect(fs.existsSync(rerun.wt)).toBe(true)
  })

  it('a pull request whose merge commit moved on: the restore fetches the commits the old one was made of, which the bundle lacks', async t => {
    const { l, service, commits, before, artifact } = await rescued(t, 'pull_request')
    // main moves on, and GitHub merges the pull request's head into it again: the later checkout has only the new merge commit.
    const seed = path.join(l.repos.root, 'seed-again')
    git(l.repos.root, 'clone', '--quiet', l.repos.origin, seed)
    const main = commit(seed, 'src/main-moves-again.txt')
    git(seed, 'push', '--quiet', 'origin', 'main')
    git(seed, 'fetch', '--quiet', 'origin', 'refs/pull/1/head')
    const merge = git(seed, 'commit-tree', '-p', main, '-p', 'FETCH_HEAD', '-m', 'Merge topic into main', 'FETCH_HEAD^{tree}')
    git(seed, 'push', '--quiet', '--force', 'origin', `${merge}:refs/pull/1/merge`)
    const later = await laterJob({ ...l, merge }, service, { GITHUB_JOB: 'publish' }, { restore: artifact })
    expect(later.main.exitCode, later.main.stdout).toBe(0)
    expect(later.main.outputs['base-sha']).toBe(merge)
    expect(later.main.stdout).toContain("not on this worktree's base")
    // As left, but for the log, which now goes one step further: the old merge commit has its parents here.
    const shas = (log: string): string[] => log.split('\n').map(line => line.split(' ')[0])
    const { log, ...rest } = before.git
    expectAsLeft(later.wt, { files: before.files, git: { ...rest, log: gitView(later.wt).log } }, commits)
    expect(shas(gitView(later.wt).log).slice(0, shas(log).length)).toEqual(shas(log))
  })

  it('a main step killed while it restores leaves what the post finishes: the ref it fetched into goes, the worktree is judged', async t => {
    const { l, service, branch } = await rescued(t, 'push')
    const workspace = checkout(l, path.join(l.repos.root, 'crashed', 'sample', 'sample'))
    const j = hostedJob(l, { ...service.env, GITHUB_JOB: 'publish' }, workspace)
    const main = await j.uses('.', { restore: branch }, { crash: { onGit: '*read-tree -m -u*' } })
    expect(main.triggered, main.stdout).toBe(true)
    expect(git(workspace, 'for-each-ref', 'refs/agent-worktree/restore/')).not.toBe('')
    const [post] = await j.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(post.stdout).toMatch(/Kept |Removed /)
    expect(git(workspace, 'for-each-ref', 'refs/agent-worktree/restore/')).toBe('')
  })

  it("the README's two jobs: the exit keeps and rescues the agent's work, a later job restores it, pushes it all, and its post removes the worktree", async t => {
    const l = lab(t, 'push')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const agent = hostedJob(l, service.env)
    const main = await agent.uses('.', {})
    commit(main.outputs['worktree-path'], 'src/fix.txt', 'the fix\n')
    write(main.outputs['worktree-path'], 'src/app.txt', 'left uncommitted\n')
    write(main.outputs['worktree-path'], 'src/new-test.txt', 'a new test\n')
    const exit = await agent.uses('./exit', { 'on-exit': 'keep', rescue: 'artifact' })
    expect(exit.outputs['rescue-artifact'], exit.stdout).toMatch(/^agent-worktree-rescue-/)
    await agent.runPosts()
    const later = await laterJob(l, service, { GITHUB_JOB: 'pull-request' }, { restore: exit.outputs['rescue-artifact'] })
    expect(later.main.exitCode, later.main.stdout).toBe(0)
    const wt = later.wt
    git(wt, 'add', '-A')
    git(wt, 'commit', '--quiet', '-m', 'What the agent left uncommitted')
    git(wt, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent/fix')
    expect(git(l.repos.origin, 'show', 'agent/fix:src/new-test.txt')).toBe('a new test')
    expect(git(l.repos.origin, 'show', 'agent/fix~1:src/fix.txt')).toBe('the fix')
    const [post] = await later.j.runPosts()
    expect(post.stdout).toContain(`Removed \`${wt}\` and deleted its branch \`${later.main.outputs.branch}\`: nothing unsaved was found.`)
    expect(fs.existsSync(wt)).toBe(false)
    // The ref the rescue was fetched into went with the main step.
    expect(git(later.workspace, 'for-each-ref', 'refs/agent-worktree/restore/')).toBe('')
  })
})
