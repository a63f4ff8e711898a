// Covers: src/gate/nested-repositories.ts (submodules and nested repositories), src/git/submodules.ts, through the committed bundles.
// "Saved" in a submodule or a repository nested in the worktree means what it means for the worktree itself: a
// remote known at enter says it has the commit. A remote-tracking ref in their git dirs (loose or packed) is a
// file the agent writes, and a remote URL it configured there is its own; the post must not remove the worktree,
// and with it their only copy of a commit, on either.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { addSubmodule, commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

const FILE = ['-c', 'protocol.file.allow=always']

function reposFor(t: TestContext, submodule = false): Repos {
  const repos = makeRepos()
  t.onTestFinished(() => repos.cleanup())
  if (submodule) addSubmodule(repos)
  return repos
}

interface Entered {
  repos: Repos
  j: Job
  wt: string
}

async function enter(t: TestContext, name: string, repos: Repos): Promise<Entered> {
  const j = new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '1', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner' }
  })
  t.onTestFinished(async () => void (await j.end()))
  const main = await j.uses('.', { name })
  expect(main.exitCode, main.stdout).toBe(0)
  return { repos, j, wt: main.outputs['worktree-path'] }
}

/** A worktree with the submodule lib initialised by the agent, as actions/checkout would have it with submodules: true. */
async function withLib(t: TestContext, name: string): Promise<Entered & { lib: string }> {
  const e = await enter(t, name, reposFor(t, true))
  git(e.wt, ...FILE, 'submodule', 'update', '--init', '--quiet')
  return { ...e, lib: path.join(e.wt, 'lib') }
}

/** The agent's new pin of lib, committed and pushed in the superproject: only lib's own commit is left to save. */
function pinLib(e: Entered): void {
  git(e.wt, 'add', 'lib')
  git(e.wt, 'commit', '--quiet', '-m', 'pin lib')
  git(e.wt, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent-pins')
}

function expectKept(post: StepResult, e: Entered, finding: RegExp): void {
  expect(post.exitCode, post.stdout).toBe(0)
  expect(fs.existsSync(e.wt), post.stdout).toBe(true)
  expect(worktreePaths(e.repos.clone)).toContain(e.wt)
  const kept = warnings(post).find(w => w.includes(`Kept \`${e.wt}\``))
  expect(kept, post.stdout).toBeDefined()
  expect(kept).toMatch(finding)
}

function expectRemoved(post: StepResult, e: Entered): void {
  expect(post.exitCode, post.stdout).toBe(0)
  expect(warnings(post), post.stdout).toEqual([])
  expect(fs.existsSync(e.wt), post.stdout).toBe(false)
}

/** Every git call of the step that talks to a remote, from its subcommand on. */
function remoteCalls(step: StepResult): string[] {
  return (step.gitCalls ?? []).map(call => / (ls-remote|fetch|push) .*/.exec(call)?.[0].trim()).filter(call => call !== undefined)
}

describe.concurrent('a submodule: only the remote it had at enter saves a commit', () => {
  it('a commit in lib with refs/remotes/origin/x forged at it in lib’s git dir: kept, the commit still there', async t => {
    const e = await withLib(t, 'sub-forged')
    const sha = commit(e.lib, 'fix.txt')
    pinLib(e)
    git(e.lib, 'update-ref', 'refs/remotes/origin/looks-pushed', sha)
    const [post] = await e.j.runPosts()
    expectKept(post, e, /`lib`: [0-9a-f]+ `add fix\.txt`/)
    expect(git(e.lib, 'cat-file', '-t', sha)).toBe('commit')
  })

  it('the same with the forged ref in lib’s packed-refs: kept', async t => {
    const e = await withLib(t, 'sub-packed')
    const sha = commit(e.lib, 'fix.txt')
    pinLib(e)
    const gitDir = git(e.lib, 'rev-parse', '--absolute-git-dir')
    fs.appendFileSync(path.join(gitDir, 'packed-refs'), `${sha} refs/remotes/origin/looks-pushed\n`)
    expect(git(e.lib, 'rev-list', 'HEAD', '--not', '--remotes')).toBe('') // git itself is fooled
    const [post] = await e.j.runPosts()
    expectKept(post, e, /`lib`: [0-9a-f]+ `add fix\.txt`/)
  })

  it('lib’s remote URL changed to a repository of the agent’s own that has the commit: kept', async t => {
    const e = await withLib(t, 'sub-own-remote')
    const own = path.join(e.repos.root, 'agents-own.git')
    git(e.repos.root, 'init', '--quiet', '--bare', own)
    git(e.lib, 'remote', 'set-url', 'origin', own)
    commit(e.lib, 'fix.txt')
    git(e.lib, 'push', '--quiet', 'origin', 'HEAD:refs/heads/fix')
    pinLib(e)
    const [post] = await e.j.runPosts()
    expectKept(post, e, /`lib`: [0-9a-f]+ `add fix\.txt`/)
  })

  it('lib’s remote of enter that cannot be asked saves nothing, and the warning says why', async t => {
    const e = await withLib(t, 'sub-unasked')
    commit(e.lib, 'fix.txt')
    git(e.lib, 'push', '--quiet', 'origin', 'HEAD:refs/heads/fix')
    pinLib(e)
    fs.renameSync(path.join(e.repos.root, 'sub-origin.git'), path.join(e.repos.root, 'sub-origin-moved.git'))
    const [post] = await e.j.runPosts()
    expectKept(post, e, /`lib`: [0-9a-f]+ `add fix\.txt`/)
    expect(warnings(post).join('\n')).toMatch(/could not be asked.*ls-remote \(`lib`'s remote of enter\) failed: fatal: /)
  })

  it('held: a commit in lib really pushed to lib’s remote of enter is saved: the worktree goes, asking that remote once', async t => {
    const e = await withLib(t, 'sub-pushed')
    commit(e.lib, 'fix.txt')
    git(e.lib, 'push', '--quiet', 'origin', 'HEAD:refs/heads/fix')
    pinLib(e)
    const [post] = await e.j.runPosts({ recordGit: true })
    expectRemoved(post, e)
    const lib = path.join(e.repos.root, 'sub-origin.git')
    expect(remoteCalls(post).filter(call => call.endsWith(` ${lib}`))).toEqual([`ls-remote --heads --tags --refs --end-of-options ${lib}`])
  })

  it('held: a commit in lib only on the head of a pull request of lib’s remote of enter: the worktree goes', async t => {
    const e = await withLib(t, 'sub-pull')
    commit(e.lib, 'fix.txt')
    git(e.lib, 'push', '--quiet', path.join(e.repos.root, 'sub-origin.git'), 'HEAD:refs/pull/4/head')
    pinLib(e)
    const [post] = await e.j.runPosts()
    expectRemoved(post, e)
  })

  it('held: an untouched submodule whose branch moved on past the pin: the worktree goes', async t => {
    const repos = reposFor(t, true)
    // lib's origin moves on after the superproject pinned it: the agent's clone of lib has main there.
    const seed = path.join(repos.root, 'lib-later')
    git(repos.root, 'clone', '--quiet', path.join(repos.root, 'sub-origin.git'), seed)
    commit(seed, 'later.txt')
    git(seed, 'push', '--quiet', 'origin', 'main')
    const e = await enter(t, 'sub-moved-on', repos)
    git(e.wt, ...FILE, 'submodule', 'update', '--init', '--quiet')
    expect(git(path.join(e.wt, 'lib'), 'rev-list', 'main', '--not', 'HEAD')).not.toBe('')
    const [post] = await e.j.runPosts({ recordGit: true })
    expectRemoved(post, e)
    // Its branch is saved by lib's remote of enter, asked once.
    expect(remoteCalls(post).filter(call => call.startsWith('ls-remote'))).toHaveLength(1)
  })
})

describe('a repository in a submodule’s ignored folder', () => {
  it('lib ignores build/ (its .gitignore pushed), a repository there with a commit: kept, the commit still there', async t => {
    const e = await withLib(t, 'sub-nested')
    write(e.lib, '.gitignore', 'build/\n')
    git(e.lib, 'add', '.gitignore')
    git(e.lib, 'commit', '--quiet', '-m', 'ignore build')
    git(e.lib, 'push', '--quiet', 'origin', 'HEAD:refs/heads/ignore-build')
    pinLib(e)
    const tool = path.join(e.lib, 'build', 'tool')
    git(e.wt, 'init', '--quiet', '-b', 'main', tool)
    const sha = commit(tool, 'only-here.txt')
    const [post] = await e.j.runPosts()
    expectKept(post, e, /nested repository with work/)
    expect(warnings(post).join('\n')).toMatch(/`lib\/build\/tool`: a repository with commits/)
    expect(git(tool, 'rev-parse', 'HEAD')).toBe(sha)
  })
})

describe('a submodule of a submodule: no remote of enter is known for it', () => {
  it('a commit in lib/inner with a remote-tracking ref forged at it, lib and the superproject pushed: kept, and the warning says why', async t => {
    const repos = reposFor(t)
    for (const name of ['inner', 'lib']) {
      const seed = path.join(repos.root, `${name}-seed`)
      git(repos.root, 'init', '--quiet', '-b', 'main', seed)
      commit(seed, `${name}.txt`)
      if (name === 'lib') {
        git(seed, ...FILE, 'submodule', 'add', '--quiet', path.join(repos.root, 'inner.git'), 'inner')
        git(seed, 'commit', '--quiet', '-m', 'pin inner')
      }
      git(repos.root, 'clone', '--quiet', '--bare', seed, path.join(repos.root, `${name}.git`))
    }
    git(repos.clone, ...FILE, 'submodule', 'add', '--quiet', path.join(repos.root, 'lib.git'), 'lib')
    git(repos.clone, 'commit', '--quiet', '-m', 'pin lib')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const e = await enter(t, 'inner-forged', repos)
    git(e.wt, ...FILE, 'submodule', 'update', '--init', '--recursive', '--quiet')
    const lib = path.join(e.wt, 'lib')
    const inner = path.join(lib, 'inner')
    const sha = commit(inner, 'inner-work.txt')
    git(inner, 'update-ref', 'refs/remotes/origin/looks-pushed', sha)
    git(lib, 'add', 'inner')
    git(lib, 'commit', '--quiet', '-m', 'pin inner')
    git(lib, 'push', '--quiet', 'origin', 'HEAD:refs/heads/pins')
    git(e.wt, 'add', 'lib')
    git(e.wt, 'commit', '--quiet', '-m', 'pin lib')
    git(e.wt, 'push', '--quiet', 'origin', 'HEAD:refs/heads/pins')
    const [post] = await e.j.runPosts()
    expectKept(post, e, /1 unsaved commit \(the remote could not be asked whether it has them: no remote of enter is known for `lib\/inner`\)/)
    expect(warnings(post).join('\n')).toMatch(/`lib\/inner`: [0-9a-f]+ `add inner-work\.txt`/)
  })
})

describe.concurrent('the exit sub-action believes a submodule’s remote of enter only from the sealed record', () => {
  it('held: a commit in lib pushed to lib’s remote of enter: the exit removes the worktree', async t => {
    const e = await withLib(t, 'exit-sub-pushed')
    commit(e.lib, 'fix.txt')
    git(e.lib, 'push', '--quiet', 'origin', 'HEAD:refs/heads/fix')
    pinLib(e)
    const exit = await e.j.uses('exit')
    expect(exit.outputs.removed, exit.stdout).toBe('true')
    expect(fs.existsSync(e.wt)).toBe(false)
  })

  it('lib’s URL of enter rewritten, in the main step’s file of them, to a repository of the agent’s own that has the commit: the exit keeps it', async t => {
    const e = await withLib(t, 'exit-sub-forged-file')
    const own = path.join(e.repos.root, 'agents-own.git')
    git(e.repos.root, 'init', '--quiet', '--bare', own)
    commit(e.lib, 'fix.txt')
    git(e.lib, 'push', '--quiet', own, 'HEAD:refs/heads/fix')
    pinLib(e)
    const record = JSON.parse(fs.readFileSync(path.join(git(e.wt, 'rev-parse', '--absolute-git-dir'), 'agent-worktree.json'), 'utf8')) as {
      submodules: { file: string }
    }
    expect(JSON.parse(fs.readFileSync(record.submodules.file, 'utf8'))).toEqual({ lib: path.join(e.repos.root, 'sub-origin.git') })
    fs.writeFileSync(record.submodules.file, JSON.stringify({ lib: own }))
    const exit = await e.j.uses('exit')
    expect(exit.outputs.removed, exit.stdout).toBe('false')
    expect(warnings(exit).join('\n')).toMatch(/no remote of enter is known for `lib/)
  })
})

describe.concurrent('a repository nested in the worktree: no remote the agent configured saves a commit', () => {
  it('git init in an ignored folder, a commit, refs/remotes/origin/main forged at it: kept, the commit still there', async t => {
    const e = await enter(t, 'nested-forged', reposFor(t))
    const tool = path.join(e.wt, 'build', 'tool')
    git(e.wt, 'init', '--quiet', '-b', 'main', tool)
    const sha = commit(tool, 'tool.txt')
    git(tool, 'update-ref', 'refs/remotes/origin/main', sha)
    const [post] = await e.j.runPosts()
    expectKept(post, e, /`build\/tool`: a repository with commits/)
    expect(git(tool, 'rev-parse', 'HEAD')).toBe(sha)
  })

  it('git init in a folder .gitignore does not reach, pushed to a repository of the agent’s own: kept', async t => {
    const e = await enter(t, 'nested-own-remote', reposFor(t))
    const tool = path.join(e.wt, 'tool')
    const own = path.join(e.repos.root, 'agents-own.git')
    git(e.repos.root, 'init', '--quiet', '--bare', own)
    git(e.wt, 'init', '--quiet', '-b', 'main', tool)
    commit(tool, 'tool.txt')
    git(tool, 'remote', 'add', 'origin', own)
    git(tool, 'push', '--quiet', '-u', 'origin', 'main')
    const [post] = await e.j.runPosts()
    expectKept(post, e, /tool`: a repository with commits/)
  })

  it('a worktree of the repository in an ignored folder, a detached commit, a remote-tracking ref forged at it: kept', async t => {
    const e = await enter(t, 'nested-worktree', reposFor(t))
    const exp = path.join(e.wt, 'build', 'exp')
    git(e.wt, 'worktree', 'add', '--quiet', '--detach', exp)
    const sha = commit(exp, 'experiment.txt')
    git(exp, 'update-ref', 'refs/remotes/origin/looks-pushed', sha)
    const [post] = await e.j.runPosts()
    expectKept(post, e, /`build\/exp`: a worktree with commits/)
    expect(git(exp, 'rev-parse', 'HEAD')).toBe(sha)
  })

  it('held: an untouched clone of the origin in an ignored folder: the origin of enter has its commits, the worktree goes', async t => {
    const e = await enter(t, 'nested-clone', reposFor(t))
    git(e.wt, 'clone', '--quiet', e.repos.origin, path.join(e.wt, 'build', 'copy'))
    const [post] = await e.j.runPosts({ recordGit: true })
    expectRemoved(post, e)
    // Its commits are the base's: no remote is asked.
    expect(remoteCalls(post).filter(call => call.startsWith('ls-remote --heads --tags'))).toEqual([])
  })

  it('held: a clone of the origin with a commit on the head of a pull request of the origin of enter: the worktree goes', async t => {
    const e = await enter(t, 'nested-clone-pull', reposFor(t))
    const copy = path.join(e.wt, 'build', 'copy')
    git(e.wt, 'clone', '--quiet', e.repos.origin, copy)
    commit(copy, 'proposed.txt')
    git(copy, 'push', '--quiet', 'origin', 'HEAD:refs/pull/9/head')
    const [post] = await e.j.runPosts()
    expectRemoved(post, e)
  })

  it('held: a clone of the origin made after someone else pushed to it: the origin of enter, asked, has its commits', async t => {
    const e = await enter(t, 'nested-clone-later', reposFor(t))
    const other = path.join(e.repos.root, 'other')
    git(e.repos.root, 'clone', '--quiet', e.repos.origin, other)
    commit(other, 'theirs.txt')
    git(other, 'push', '--quiet', 'origin', 'main')
    git(e.wt, 'clone', '--quiet', e.repos.origin, path.join(e.wt, 'build', 'copy'))
    const [post] = await e.j.runPosts()
    expectRemoved(post, e)
  })
})

describe('a clean exit asks no remote', () => {
  it('a clean worktree, and one with a submodule at its pin: no call to a remote', async t => {
    const plain = await enter(t, 'clean-plain', reposFor(t))
    const [post] = await plain.j.runPosts({ recordGit: true })
    expectRemoved(post, plain)
    expect(remoteCalls(post)).toEqual([])
    const sub = await withLib(t, 'clean-sub')
    const [subPost] = await sub.j.runPosts({ recordGit: true })
    expectRemoved(subPost, sub)
    expect(remoteCalls(subPost)).toEqual([])
    console.log(`git calls of a clean post: ${post.gitCalls?.length}; with a submodule at its pin: ${subPost.gitCalls?.length}`)
  })
})
