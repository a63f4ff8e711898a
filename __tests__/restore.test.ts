// The restore matrix: for each checkout actions/checkout makes (push at depth 1, a pull request's merge
// commit at depth 1, fetch-depth: 0, sparse, LFS pointers), an agent leaves every kind of unsaved work, the
// post rescues it to a branch and to an artifact at once (rescue: artifact,branch), and each copy is
// brought back in a fresh clone with the commands the post printed, as a person pastes them, and compared
// byte for byte with what the agent left. Through the committed bundles; the artifact service and `gh` are
// stand-ins (results-service.ts, restore.ts), the only parts that cannot be real here.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job } from '../scripts/runner.mjs'
import { commit, git, makeRepos, write, type Repos } from './helpers/repos.js'
import { restoreCommandsOf, runRestore } from './helpers/restore.js'
import { startResultsService } from './helpers/results-service.js'
import { available } from './helpers/tools.js'

const HAS_LFS = available('git-lfs', ['git', 'lfs', 'version'], 'the LFS rows of restore.test.ts')

type Checkout = 'push' | 'pull_request' | 'fetch-depth: 0' | 'sparse' | 'lfs'
const CHECKOUTS: Checkout[] = ['push', 'pull_request', 'fetch-depth: 0', 'sparse', ...(HAS_LFS ? (['lfs'] as const) : [])]

const FILES = {
  'README.md': '# sample\n',
  'src/app.txt': 'app\n',
  'src/run.sh': '#!/bin/sh\necho run\n',
  'src/remove-me.txt': 'remove me\n',
  'src/crlf.txt': 'one\r\ntwo\r\n',
  'docs/guide.md': 'guide\n'
}
const POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n'
const LFS_CONFIG =
  '[user]\n\tname = Test\n\temail = test@example.com\n[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n'
/** A name that is not UTF-8 (latin1 "café.txt"). */
const NOT_UTF8 = Buffer.from('src/caf\xe9.txt', 'latin1')

interface Lab {
  repos: Repos
  /** Where actions/checkout put the repository: GITHUB_WORKSPACE. */
  workspace: string
  env: Record<string, string>
}

/**
 * An origin as GitHub has it (main, and for a pull request refs/pull/1/head and refs/pull/1/merge), and a
 * workspace made the way actions/checkout makes it for `kind`: git init, one fetch, one checkout.
 */
function lab(t: TestContext, kind: Checkout): Lab {
  const repos = makeRepos(FILES)
  t.onTestFinished(() => repos.cleanup())
  const env: Record<string, string> = {}
  const seed = repos.clone
  git(seed, 'update-index', '--chmod=+x', 'src/run.sh')
  git(seed, 'commit', '--quiet', '-m', 'run.sh runs')
  if (kind === 'lfs') {
    const home = path.join(repos.root, 'home')
    fs.mkdirSync(home)
    fs.writeFileSync(path.join(home, '.gitconfig'), LFS_CONFIG)
    env.HOME = home
    write(seed, '.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n')
    write(seed, 'assets/model.bin', POINTER) // a pointer as the server has it; no LFS server holds the object
    git(seed, 'add', '-A')
    git(seed, 'commit', '--quiet', '-m', 'a model in LFS')
  }
  // git-lfs' pre-push hook would want the object of a pointer no LFS server has.
  git(seed, '-c', 'core.hooksPath=/dev/null', 'push', '--quiet', 'origin', 'main')
  let merge = ''
  if (kind === 'pull_request') {
    // The pull request's head a commit main does not have, and GitHub's merge commit of it into main.
    git(seed, 'switch', '--quiet', '-c', 'topic')
    const head = commit(seed, 'src/topic.txt', 'topic\n')
    const main = git(seed, 'rev-parse', 'main')
    merge = git(seed, 'commit-tree', '-p', main, '-p', head, '-m', 'Merge topic into main', `${head}^{tree}`)
    git(seed, 'push', '--quiet', 'origin', `${head}:refs/pull/1/head`, `${merge}:refs/pull/1/merge`)
    commit(seed, 'src/main-moves-on.txt') // origin's main moves on after the merge commit was made
    git(seed, 'push', '--quiet', 'origin', 'topic:main')
  }
  const workspace = path.join(repos.root, 'work', 'sample', 'sample')
  fs.mkdirSync(workspace, { recursive: true })
  const run = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: workspace,
      encoding: 'utf8',
      env: { ...process.env, ...env, GIT_TERMINAL_PROMPT: '0', ...(kind === 'lfs' ? { GIT_LFS_SKIP_SMUDGE: '1' } : {}) }
    })
  // As actions/checkout v4 to v7 (git-source-provider.ts getSource): init, remote, gc.auto 0, fetch, checkout.
  run('init', '--quiet', workspace)
  run('remote', 'add', 'origin', repos.origin)
  run('config', '--local', 'gc.auto', '0')
  const fetch = ['-c', 'protocol.version=2', 'fetch', '--no-tags', '--prune', '--no-recurse-submodules']
  const sha = git(repos.origin, 'rev-parse', 'main')
  if (kind === 'pull_request') {
    run(...fetch, '--depth=1', 'origin', `+${merge}:refs/remotes/pull/1/merge`)
    run('checkout', '--progress', '--force', 'refs/remotes/pull/1/merge')
  } else if (kind === 'fetch-depth: 0') {
    run(...fetch, 'origin', '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*')
    run('checkout', '--progress', '--force', '-B', 'main', 'refs/remotes/origin/main')
  } else {
    run(...fetch, ...(kind === 'sparse' ? ['--filter=blob:none'] : []), '--depth=1', 'origin', `+${sha}:refs/remotes/origin/main`)
    if (kind === 'sparse') run('sparse-checkout', 'set', 'src')
    if (kind === 'lfs') run('config', 'lfs.url', 'http://127.0.0.1:1')
    run('checkout', '--progress', '--force', '-B', 'main', 'refs/remotes/origin/main')
  }
  fs.rmSync(repos.clone, { recursive: true, force: true })
  return { repos, workspace, env }
}

function job(l: Lab, env: Record<string, string>): Job {
  return new Job({
    workspace: l.workspace,
    temp: path.join(l.repos.root, 'runner', '_temp'),
    env: {
      GITHUB_RUN_ID: '41',
      GITHUB_RUN_ATTEMPT: '1',
      GITHUB_JOB: 'agents',
      RUNNER_NAME: 'GitHub Actions 7',
      RUNNER_ENVIRONMENT: 'github-hosted',
      GITHUB_REPOSITORY: 'octo/sample',
      ...l.env,
      ...env
    }
  })
}

/** Every kind of unsaved work, in one worktree; the commits it made. */
function everyKind(wt: string, kind: Checkout): string[] {
  const onBranch = commit(wt, 'src/feature.txt', 'feature\n')
  git(wt, 'switch', '--quiet', '--detach')
  const elsewhere = commit(wt, 'src/experiment.txt', 'experiment\n')
  git(wt, 'switch', '--quiet', '-')
  write(wt, 'src/app.txt', 'modified\n')
  write(wt, 'src/staged.txt', 'staged\n')
  git(wt, 'add', 'src/staged.txt')
  write(wt, 'src/staged.txt', 'changed after staging\n')
  fs.rmSync(path.join(wt, 'src/remove-me.txt'))
  fs.chmodSync(path.join(wt, 'src/run.sh'), 0o644)
  fs.symlinkSync('app.txt', path.join(wt, 'src/link-to-app'))
  write(wt, 'new/untracked.txt', 'untracked\n')
  fs.writeFileSync(path.join(wt, 'src/blob.bin'), Buffer.from([0, 1, 2, 0xff, 0xfe, 0, 10, 13, 10, 0x80]))
  write(wt, 'src/crlf.txt', 'one\r\ntwo\r\nthree\r\n')
  write(wt, 'src/new-crlf.txt', 'a\r\nb\r\n')
  fs.writeFileSync(path.join(wt, NOT_UTF8.toString('latin1')), 'not UTF-8 in its name\n')
  write(wt, 'build/ignored.bin', 'ignored, not work\n')
  if (kind === 'lfs') fs.writeFileSync(path.join(wt, 'assets/model.bin'), Buffer.alloc(3000, 'm'))
  return [onBranch, elsewhere]
}

/**
 * What the agent left, byte for byte: each file git lists (tracked, and untracked but not ignored), by the
 * bytes of its name, with its content, executable bit or link target.
 */
function digest(dir: string): string {
  const listed = execFileSync('git', ['-C', dir, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'])
  const names = new Map<string, Buffer>()
  let start = 0
  for (let i = 0; i < listed.length; i++) {
    if (listed[i] !== 0) continue
    const name = listed.subarray(start, i)
    names.set(name.toString('hex'), name)
    start = i + 1
  }
  const hash = createHash('sha256')
  for (const key of [...names.keys()].sort()) {
    const name = names.get(key)!
    const full = Buffer.concat([Buffer.from(`${dir}/`), name])
    const stat = fs.lstatSync(full, { throwIfNoEntry: false })
    if (!stat) continue // deleted in the worktree, still in the index
    hash.update(name).update('\0')
    hash.update(stat.isSymbolicLink() ? `link:${fs.readlinkSync(full)}` : `${stat.mode & 0o111 ? 'x' : '-'}:`)
    if (!stat.isSymbolicLink()) hash.update(fs.readFileSync(full))
    hash.update('\0')
  }
  return hash.digest('hex')
}

function restoreEnv(kind: Checkout, l: Lab): NodeJS.ProcessEnv {
  // The person restoring has git-lfs and no LFS server either: pointers stay pointers, as in the job.
  return kind === 'lfs' ? { ...l.env, GIT_LFS_SKIP_SMUDGE: '1' } : l.env
}

describe.concurrent('every rescue restores in a fresh clone with the commands the post printed, byte for byte', () => {
  it.for(CHECKOUTS)('%s checkout, every kind of work, artifact and branch', async (kind, t) => {
    const l = lab(t, kind)
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const j = job(l, service.env)
    const main = await j.uses('.', { name: 'matrix', rescue: 'artifact,branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const commits = everyKind(wt, kind)
    const before = digest(wt)
    const [post] = await j.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(post.annotations.map(a => a.message).join('\n')).not.toMatch(/failed|left out/i)
    const commands = restoreCommandsOf(post.stdout)
    expect(commands, post.stdout).toHaveLength(2)
    for (const [i, command] of commands.entries()) {
      const into = path.join(l.repos.root, `restored-${i}`)
      const tip = runRestore(command, { origin: l.repos.origin, into, artifacts: service.artifacts, env: restoreEnv(kind, l) })
      expect(digest(into), command).toBe(before)
      expect(fs.existsSync(path.join(into, 'build/ignored.bin'))).toBe(false)
      for (const sha of commits) expect(git(into, 'merge-base', '--is-ancestor', sha, tip)).toBe('')
      // Nothing the restore downloaded stays in the clone, for a git add -A to take along.
      expect(git(into, 'ls-files', '--others')).toBe('')
    }
  })

  it.for(CHECKOUTS)('%s checkout, an orphan branch with staged and untracked files', async (kind, t) => {
    const l = lab(t, kind)
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const j = job(l, service.env)
    const main = await j.uses('.', { name: 'orphan', rescue: 'artifact,branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    // As a docs generator does: a new history, its files staged, one more left untracked.
    git(wt, 'switch', '--quiet', '--orphan', 'gh-pages')
    write(wt, 'index.html', '<h1>docs</h1>\r\n')
    git(wt, 'add', 'index.html')
    write(wt, 'extra.css', 'body{}\n')
    const before = digest(wt)
    const [post] = await j.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    const commands = restoreCommandsOf(post.stdout)
    expect(commands, post.stdout).toHaveLength(2)
    for (const [i, command] of commands.entries()) {
      const into = path.join(l.repos.root, `restored-${i}`)
      runRestore(command, { origin: l.repos.origin, into, artifacts: service.artifacts, env: restoreEnv(kind, l) })
      expect(fs.readFileSync(path.join(into, 'index.html'), 'utf8')).toBe('<h1>docs</h1>\r\n')
      expect(fs.readFileSync(path.join(into, 'extra.css'), 'utf8')).toBe('body{}\n')
      // The orphan's files, and only them: the clone's own files are gone with the switch to a commit with no parent.
      expect(digest(into)).toBe(before)
    }
  })

  it('a pull request, restored in a clone as shallow as the job’s: the commands fetch the merge commit’s parents first', async t => {
    const l = lab(t, 'pull_request')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const j = job(l, service.env)
    const main = await j.uses('.', { name: 'shallow', rescue: 'artifact' })
    const wt = main.outputs['worktree-path']
    commit(wt, 'src/fix.txt', 'fix\n')
    write(wt, 'src/app.txt', 'modified\n')
    const before = digest(wt)
    const [post] = await j.runPosts()
    const [command] = restoreCommandsOf(post.stdout)
    expect(command).toMatch(/&& git fetch origin [0-9a-f]{40} [0-9a-f]{40} &&/)
    const into = path.join(l.repos.root, 'restored')
    runRestore(command, { origin: l.repos.origin, into, cloneArgs: ['--depth', '1'], artifacts: service.artifacts })
    expect(digest(into)).toBe(before)
  })
})
