// Covers: src/exit/clones.ts, src/exit/worktree-pool.ts (clones), src/enter/ through the bundles.
// isolation: clone, through the committed bundles as the runner runs them: each agent gets a repository of its
// own that borrows the original's objects; the original's refs, config, hooks and stash stay as they were.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { inBwrap, inCodex, inSrt, sandboxesHere, type Ran } from '../helpers/sandboxes.js'

function reposFor(t: TestContext): Repos {
  const repos = makeRepos()
  t.onTestFinished(() => repos.cleanup())
  return repos
}

/** A job of its own runner whose workspace is not the shared clone: the clone is given as repository-path. */
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

/** What every worktree of the original would share: its refs but this action's own, config, hooks, stash. */
function sharedOf(repo: string): Record<string, string> {
  const hooks = path.join(repo, '.git', 'hooks')
  return {
    refs: git(repo, 'for-each-ref', '--format=%(objectname) %(refname)')
      .split('\n')
      .filter(line => !line.includes(' refs/agent-worktree/'))
      .join('\n'),
    config: fs.readFileSync(path.join(repo, '.git', 'config'), 'utf8'),
    hooks: fs.existsSync(hooks) ? fs.readdirSync(hooks).sort().join(',') : '',
    stash: git(repo, 'stash', 'list', '--format=%H %gs')
  }
}

const agentIdentity = ['-c', 'user.name=agent', '-c', 'user.email=agent@example.com']

/** What an agent does in its clone that, in a worktree, would change what every worktree shares. */
function meddle(clone: string, leg: string): string {
  const made = commit(clone, `${leg}.txt`)
  write(clone, 'README.md', `stashed by ${leg}\n`)
  git(clone, ...agentIdentity, 'stash', 'push', '-m', `stash of ${leg}`)
  git(clone, 'branch', '--force', 'release', made)
  git(clone, 'tag', '--delete', 'v1.0.0')
  git(clone, 'config', 'user.email', `${leg}@example.com`)
  write(clone, '.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n')
  fs.chmodSync(path.join(clone, '.git', 'hooks', 'pre-commit'), 0o755)
  return made
}

describe.concurrent('isolation: clone', () => {
  it('gives two legs in one shared clone repositories of their own: the original is untouched, each sees its own stash', async t => {
    const repos = reposFor(t)
    const shared = repos.clone
    git(shared, 'branch', 'release')
    git(shared, 'push', '--quiet', 'origin', 'release')
    git(shared, 'fetch', '--quiet')
    git(shared, 'tag', '-a', '-m', 'one', 'v1.0.0')
    write(shared, 'README.md', 'the original its own stash\n')
    git(shared, ...agentIdentity, 'stash', 'push', '-m', 'the original its own')
    write(shared, '.git/hooks/post-checkout', '#!/bin/sh\n')
    const before = sharedOf(shared)
    const [a, b] = [job(repos, 'leg-a'), job(repos, 'leg-b')]
    const [mainA, mainB] = await Promise.all([
      enter(a, { 'repository-path': shared, isolation: 'clone', name: 'leg-a' }),
      enter(b, { 'repository-path': shared, isolation: 'clone', name: 'leg-b' })
    ])
    const [cloneA, cloneB] = [mainA.outputs['worktree-path'], mainB.outputs['worktree-path']]
    for (const [main, clone] of [
      [mainA, cloneA],
      [mainB, cloneB]
    ] as const) {
      // A repository of its own, on its own branch, with the original's remote and its remote-tracking branches.
      expect(main.outputs['git-dir']).toBe(path.join(clone, '.git'))
      expect(main.outputs['git-common-dir']).toBe(path.join(clone, '.git'))
      expect(git(clone, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(main.outputs.branch)
      expect(git(clone, 'remote', 'get-url', 'origin')).toBe(repos.origin)
      expect(git(clone, 'rev-parse', 'origin/release')).toBe(git(shared, 'rev-parse', 'origin/release'))
      expect(git(clone, 'status', '--porcelain')).toBe('')
      expect(git(clone, 'stash', 'list')).toBe('')
    }
    const madeA = meddle(cloneA, 'leg-a')
    const madeB = meddle(cloneB, 'leg-b')
    expect(git(cloneA, 'stash', 'list', '--format=%gs')).toBe('On worktree-leg-a: stash of leg-a')
    expect(git(cloneB, 'stash', 'list', '--format=%gs')).toBe('On worktree-leg-b: stash of leg-b')
    expect(sharedOf(shared)).toEqual(before)

    // Leg a saves everything (its commit pushed, its stash dropped): the post removes the clone.
    git(cloneA, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent/leg-a')
    git(cloneA, 'stash', 'drop', '--quiet')
    const [postA] = await a.runPosts()
    expect(postA.stdout).toContain('Removed')
    expect(fs.existsSync(cloneA)).toBe(false)
    expect(git(repos.origin, 'rev-parse', 'agent/leg-a')).toBe(madeA)

    // Leg b does not: its exit keeps the clone, and its commits are reachable from the original.
    const exitB = await b.uses('exit')
    expect(exitB.outputs.removed, exitB.stdout).toBe('false')
    expect(exitB.outputs.reason).toBe('unsaved')
    const kept = git(shared, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/kept/')
    expect(kept).toMatch(/^refs\/agent-worktree\/kept\/leg-b\/[0-9a-f]{16}$/)
    git(shared, 'merge-base', '--is-ancestor', madeB, kept)
    expect(git(cloneB, 'stash', 'list', '--format=%gs')).toBe('On worktree-leg-b: stash of leg-b')
    // Nothing of either agent reached what the original's worktrees would share.
    expect(sharedOf(shared)).toEqual(before)
    expect(git(shared, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/borrowed/')).not.toContain('leg-a')
  })

  it('loses nothing when the original is gc-ed with --prune=now while the clone lives', async t => {
    const repos = reposFor(t)
    const shared = repos.clone
    // The base is on a branch the original then deletes: only the clone stands on it.
    git(shared, 'switch', '--quiet', '-c', 'side')
    const base = commit(shared, 'side.txt')
    git(shared, 'switch', '--quiet', 'main')
    const j = job(repos, 'gc')
    const main = await enter(j, { 'repository-path': shared, isolation: 'clone', 'base-ref': base })
    const clone = main.outputs['worktree-path']
    git(shared, 'branch', '--quiet', '-D', 'side')
    git(shared, 'reflog', 'expire', '--expire=now', '--all')
    git(shared, 'gc', '--quiet', '--prune=now')
    const made = commit(clone, 'work.txt')
    git(shared, 'gc', '--quiet', '--prune=now')
    git(clone, 'fsck', '--no-dangling')
    expect(git(clone, 'log', '--format=%H', '-2')).toBe(`${made}\n${base}`)
    expect(fs.readFileSync(path.join(clone, 'side.txt'), 'utf8')).toBe('side.txt\n')
    const [post] = await j.runPosts()
    expect(post.stdout).toContain('Kept')
    git(shared, 'gc', '--quiet', '--prune=now')
    git(clone, 'fsck', '--no-dangling')
    git(shared, 'fsck', '--no-dangling')
    const kept = git(shared, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/kept/')
    git(shared, 'merge-base', '--is-ancestor', made, kept)
  })

  it('is swept as a worktree is: a later job of the runner removes a clean clone an ended job left, keeps one with work', async t => {
    const repos = reposFor(t)
    // A tag on a commit no remote has: the clones borrow it, and that is no work of theirs.
    git(repos.clone, 'switch', '--quiet', '-c', 'local')
    git(repos.clone, 'tag', '-a', '-m', 'local', 'local-only', commit(repos.clone, 'local.txt'))
    git(repos.clone, 'switch', '--quiet', 'main')
    const earlier = job(repos, 'sweeper')
    const clean = (await enter(earlier, { 'repository-path': repos.clone, isolation: 'clone', name: 'clean' })).outputs['worktree-path']
    const dirty = (await enter(earlier, { 'repository-path': repos.clone, isolation: 'clone', name: 'dirty' })).outputs['worktree-path']
    const made = commit(dirty, 'work.txt')
    // The posts never run (the runner was killed); the next job of this runner sweeps.
    const later = new Job({
      workspace: path.join(repos.root, 'sweeper', 'workspace'),
      temp: path.join(repos.root, 'sweeper', '_temp'),
      env: { RUNNER_NAME: 'sweeper', GITHUB_RUN_ID: '8', GITHUB_JOB: 'sweeper' }
    })
    const main = await enter(later, { 'repository-path': repos.clone, isolation: 'clone', name: 'next' })
    expect(fs.existsSync(clean), main.stdout).toBe(false)
    expect(git(dirty, 'rev-parse', 'HEAD')).toBe(made)
    expect(main.stdout).toContain(`Kept \`${dirty}\`: it has 1 unsaved commit.`)
    const borrowed = git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/borrowed/').split('\n')
    expect(borrowed.sort()).toEqual(['refs/agent-worktree/borrowed/dirty', 'refs/agent-worktree/borrowed/next'])
    git(repos.clone, 'merge-base', '--is-ancestor', made, git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/kept/'))
  })

  it("parks a clean clone for the next job, which gets it as a new clone: its own branch at its base, none of the last agent's refs, config or hooks", async t => {
    const repos = reposFor(t)
    git(repos.clone, 'tag', '-a', '-m', 'one', 'v1.0.0')
    const first = job(repos, 'pool-1')
    const one = (await enter(first, { 'repository-path': repos.clone, isolation: 'clone', recycle: 'true', name: 'one' })).outputs['worktree-path']
    meddle(one, 'one')
    git(one, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent/one')
    git(one, 'stash', 'drop', '--quiet')
    const [post] = await first.runPosts()
    expect(post.stdout).toContain(`Parked \`${one}\` in the pool`)
    expect(fs.existsSync(one)).toBe(true)
    // The original moved on meanwhile: the next job starts from it.
    const newer = commit(repos.clone, 'newer.txt')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const second = job(repos, 'pool-2')
    const main = await enter(second, { 'repository-path': repos.clone, isolation: 'clone', recycle: 'true', name: 'two' })
    const two = main.outputs['worktree-path']
    expect(main.stdout).toContain(`Took \`${two}\` from the pool`)
    expect(fs.existsSync(one)).toBe(false)
    expect(git(two, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('worktree-two')
    expect(git(two, 'rev-parse', 'HEAD', 'origin/main')).toBe(`${newer}\n${newer}`)
    expect(git(two, 'status', '--porcelain', '--ignored')).toBe('')
    expect(git(two, 'for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/stash', 'refs/tags/')).toBe('refs/heads/worktree-two\nrefs/tags/v1.0.0')
    expect(git(two, 'config', '--get-all', 'user.email')).not.toContain('one@example.com')
    // An empty folder, which the sandbox lists keep read-only: none of the last agent's hooks.
    expect(fs.readdirSync(path.join(two, '.git', 'hooks'))).toEqual([])
    expect(fs.readFileSync(path.join(two, 'newer.txt'), 'utf8')).toBe('newer.txt\n')
    const [again] = await second.runPosts()
    expect(again.stdout).toContain(`Parked \`${two}\` in the pool`)
  })

  it('refuses path with clone, and a value it does not know, before anything is created', async t => {
    const repos = reposFor(t)
    const j = job(repos, 'inputs')
    const byPath = await j.uses('.', { 'repository-path': repos.clone, isolation: 'clone', path: repos.clone })
    expect(byPath.exitCode).toBe(1)
    expect(byPath.stdout).toContain(`Input 'isolation' has the value \`clone\`: a clone is made only for a new worktree`)
    const wrong = await j.uses('.', { 'repository-path': repos.clone, isolation: 'copy' })
    expect(wrong.stdout).toContain(`Input 'isolation' has the value \`copy\`: it is neither worktree nor clone`)
    expect(fs.existsSync(`${repos.clone}.worktrees`)).toBe(false)
  })

  it.skipIf(!sandboxesHere('the clone in real sandboxes'))(
    "lets a sandboxed agent do its git work in its clone, by the sandbox output, and nothing else: not what git obeys there, not the original's objects",
    async t => {
      const repos = reposFor(t)
      const j = job(repos, 'sandboxed')
      const main = await enter(j, { 'repository-path': repos.clone, isolation: 'clone' })
      const clone = main.outputs['worktree-path']
      const real = fs.realpathSync(clone)
      expect(JSON.parse(main.outputs.sandbox)).toEqual({
        write: [real, path.join(real, '.git')],
        // No shallow file where the original has none: nothing there changes nothing (stand-ins.ts).
        readOnly: ['config', 'hooks', 'info', 'objects/info', 'commondir']
          .map(n => path.join(real, '.git', n))
          .concat(path.join(fs.realpathSync(repos.clone), '.git', 'objects'))
      })
      const objects = path.join(repos.clone, '.git', 'objects')
      const script = (tag: string): string =>
        [
          `echo ${tag} > ${tag}.txt && git add ${tag}.txt && git -c user.name=a -c user.email=a@example.com commit -qm ${tag}`,
          `echo more >> ${tag}.txt && git -c user.name=a -c user.email=a@example.com stash -q && git branch -f release-${tag} HEAD && git tag ${tag}`,
          `(git config user.email x@example.com 2>/dev/null && echo CONFIG) || echo config-refused`,
          `(mkdir -p .git/hooks && touch .git/hooks/pre-commit 2>/dev/null && echo HOOK) || echo hook-refused`,
          `(touch ${objects}/planted 2>/dev/null && echo OBJECTS) || echo objects-refused`,
          // A common dir of its own making would take the place of the clone's config, hooks and objects.
          `(echo "$PWD/evil" > .git/commondir 2>/dev/null && echo COMMONDIR) || echo commondir-refused`
        ].join(' && ')
      const env = { ...process.env, HOME: path.join(repos.root, 'home') }
      fs.mkdirSync(env.HOME, { recursive: true })
      const runs: [string, Ran][] = [
        ['srt', inSrt(main.outputs['srt-settings'], repos.clone, { script: script('srt'), cwd: clone, env })],
        ['codex', inCodex(main.outputs['codex-home'], path.join(repos.root, 'codex-tmp'), { script: script('codex'), cwd: clone, env })],
        ['bwrap', inBwrap(JSON.parse(main.outputs.sandbox) as { write: string[]; readOnly: string[] }, { script: script('bwrap'), cwd: clone, env })]
      ]
      for (const [tag, ran] of runs) {
        expect(ran.status, `${tag}: ${ran.stdout}${ran.stderr}`).toBe(0)
        expect(ran.stdout.split('\n').filter(Boolean), tag).toEqual(['config-refused', 'hook-refused', 'objects-refused', 'commondir-refused'])
        expect(git(clone, 'log', '-1', '--format=%s', `release-${tag}`)).toBe(tag)
      }
      expect(git(clone, 'stash', 'list').split('\n')).toHaveLength(3)
      expect(fs.readFileSync(path.join(clone, '.git', 'commondir'), 'utf8')).toBe('.\n')
      expect(fs.existsSync(path.join(objects, 'planted'))).toBe(false)
      // Nothing of it reached the original: its refs are its own, but this action's.
      expect(git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/tags/', 'refs/stash')).toBe('refs/heads/main')
    }
  )

  it.skipIf(!sandboxesHere('the run sub-action in a clone'))(
    "run: the agent cannot give its clone a common dir of its own making, whose config git outside would read as the clone's",
    async t => {
      const repos = reposFor(t)
      const j = job(repos, 'run-commondir')
      const main = await enter(j, { 'repository-path': repos.clone, isolation: 'clone' })
      const clone = main.outputs['worktree-path']
      const command = [
        'mkdir -p evil/objects/info && cp -r .git/refs .git/HEAD evil/ && echo "$PWD/.git/objects" > evil/objects/info/alternates',
        "printf '[core]\\n\\trepositoryformatversion = 0\\n[user]\\n\\tname = planted-by-commondir\\n' > evil/config",
        '(echo "$PWD/evil" > .git/commondir 2>/dev/null && echo COMMONDIR) || echo commondir-refused',
        'git status --porcelain >/dev/null && echo git-works'
      ].join('\n')
      const run = await j.uses('run', { command })
      expect(run.exitCode, `${run.stdout}${run.stderr}`).toBe(0)
      expect(run.stdout.split('\n').filter(line => /^(COMMONDIR|commondir-refused|git-works)$/.test(line))).toEqual(['commondir-refused', 'git-works'])
      expect(fs.readFileSync(path.join(clone, '.git', 'commondir'), 'utf8')).toBe('.\n')
      expect(git(clone, 'config', '--get', '--default', 'unset', 'user.name')).not.toBe('planted-by-commondir')
    }
  )
})
