// What the restore tests share: a lab (an origin as GitHub has it, and checkouts made the way actions/checkout
// makes them for each kind of event), every kind of unsaved work an agent leaves, a digest of a worktree byte for
// byte, and the restore commands a kept worktree's message prints, run in a fresh clone as a person pastes them
// into a shell. `gh run download` is the one part that cannot be real here: a stand-in `gh` on PATH unzips the
// artifact the stand-in artifact service was given (see results-service.ts).
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { TestContext } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { commit, git, makeRepos, write, type Repos } from './repos.js'
import { available } from './tools.js'

export const HAS_LFS = available('git-lfs', ['git', 'lfs', 'version'], 'the LFS rows of the restore tests')

export type Checkout = 'push' | 'pull_request' | 'fetch-depth: 0' | 'sparse' | 'lfs'
export const CHECKOUTS: Checkout[] = ['push', 'pull_request', 'fetch-depth: 0', 'sparse', ...(HAS_LFS ? (['lfs'] as const) : [])]

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

export interface Lab {
  kind: Checkout
  repos: Repos
  /** Where actions/checkout put the repository for the first job: GITHUB_WORKSPACE. */
  workspace: string
  env: Record<string, string>
  /** The pull request's merge commit, for a pull_request lab. */
  merge: string
}

/**
 * An origin as GitHub has it (main, and for a pull request refs/pull/1/head and refs/pull/1/merge), and a
 * workspace made the way actions/checkout makes it for `kind`: git init, one fetch, one checkout.
 */
export function lab(t: TestContext, kind: Checkout): Lab {
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
  fs.rmSync(repos.clone, { recursive: true, force: true })
  const l = { kind, repos, workspace: '', env, merge }
  l.workspace = checkout(l, path.join(repos.root, 'work', 'sample', 'sample'))
  return l
}

/** Another checkout of the lab's origin, as actions/checkout makes it for the same event: a later job's, or a re-run's. */
export function checkout(l: Lab, workspace: string): string {
  const { kind, repos, env, merge } = l
  fs.mkdirSync(workspace, { recursive: true })
  const run = (...args: string[]): string =>
    execFileSync('git', args, {
      cwd: workspace,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
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
  return workspace
}

let jobs = 0

/** A hosted job of the lab: run 41, attempt 1, job agents, unless `env` says otherwise; its own runner temp, in `workspace`. */
export function hostedJob(l: Lab, env: Record<string, string> = {}, workspace = l.workspace): Job {
  return new Job({
    workspace,
    temp: path.join(l.repos.root, `runner-${++jobs}`, '_temp'),
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

/** Every kind of unsaved work, in one worktree; the commits it made (on the branch, then on a detached HEAD). */
export function everyKind(wt: string, kind: Checkout): string[] {
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
export function digest(dir: string): string {
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

/** The environment of a person who restores by hand: git-lfs and no LFS server either, so pointers stay pointers, as in the job. */
export function restoreEnv(l: Lab): NodeJS.ProcessEnv {
  return l.kind === 'lfs' ? { ...l.env, GIT_LFS_SKIP_SMUDGE: '1' } : l.env
}

/** The commands in a message ("To bring it back into a clone, run `a`, or `b`."), in the order given. */
export function restoreCommandsOf(message: string): string[] {
  const sentence = /To bring it back into a clone, run (.*?)\. The commit's files/s.exec(message)?.[1] ?? ''
  return [...sentence.matchAll(/`([^`]+)`/g)].map(match => match[1])
}

const STAND_IN_GH = `#!/bin/sh
# Stand-in for "gh run download <run> [--repo R] --name N --dir D": unzips $ARTIFACTS/N.zip into D.
name= dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift ;;
    --dir) dir=$2; shift ;;
  esac
  shift
done
[ -f "$ARTIFACTS/$name.zip" ] || { echo "no artifact $name" >&2; exit 1; }
mkdir -p "$dir" && unzip -q "$ARTIFACTS/$name.zip" -d "$dir"
`

export interface RestoreOptions {
  /** The remote to clone, as a person who restores has it. */
  origin: string
  /** The folder of the fresh clone. */
  into: string
  /** Extra arguments for the clone (e.g. --depth 1, as actions/checkout clones). */
  cloneArgs?: string[]
  /** The artifacts the stand-in service holds, by name. */
  artifacts?: Map<string, Buffer>
  /** More environment for the clone and the commands (e.g. HOME with git-lfs set up). */
  env?: NodeJS.ProcessEnv
}

/** Clones `origin` and runs `command` in it with sh; returns HEAD after it. Throws with git's words when a step fails. */
export function runRestore(command: string, options: RestoreOptions): string {
  const { origin, into, cloneArgs = [], artifacts = new Map<string, Buffer>() } = options
  const tools = `${into}.tools`
  const store = `${into}.artifacts`
  const env = { ...process.env, ...options.env, PATH: `${tools}${path.delimiter}${process.env.PATH}`, ARTIFACTS: store, GIT_TERMINAL_PROMPT: '0' }
  fs.mkdirSync(tools, { recursive: true })
  fs.mkdirSync(store, { recursive: true })
  fs.writeFileSync(path.join(tools, 'gh'), STAND_IN_GH, { mode: 0o755 })
  for (const [name, zip] of artifacts) fs.writeFileSync(path.join(store, `${name}.zip`), zip)
  const fileUrl = /^[a-z]+:\/\//.test(origin) ? origin : `file://${origin}`
  execFileSync('git', ['clone', '--quiet', ...cloneArgs, fileUrl, into], { stdio: 'pipe', env })
  execFileSync('sh', ['-ec', command], { cwd: into, stdio: 'pipe', env })
  return execFileSync('git', ['-C', into, 'rev-parse', 'HEAD'], { encoding: 'utf8', env }).trim()
}
