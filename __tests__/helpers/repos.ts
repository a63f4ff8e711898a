// Real repositories for tests: a bare "origin" and a clone of it, as actions/checkout leaves one.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

const IDENTITY = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com'
}

/** This project's own folder, where no test's git may run. */
const PROJECT = path.resolve(import.meta.dirname, '..', '..')

/** Runs git and returns its trimmed stdout; throws on a non-zero exit. */
export function git(cwd: string, ...args: string[]): string {
  // A step that failed gives no output: its path, undefined, would send git to this project's own repository.
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd) || !path.relative(PROJECT, cwd).startsWith('..'))
    throw new Error(`git ${args.join(' ')}: ${String(cwd)} is no folder of a test's own`)
  return execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

export interface Repos {
  /** Temporary folder holding everything; removed by cleanup(). */
  root: string
  origin: string
  /** The clone: what GITHUB_WORKSPACE points at. */
  clone: string
  cleanup(): void
}

export function makeRepos(
  files: Record<string, string> = { 'README.md': '# sample\n', 'src/app.txt': 'app\n' },
  objectFormat: 'sha1' | 'sha256' = 'sha1'
): Repos {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-')))
  const origin = path.join(root, 'origin.git')
  const seed = path.join(root, 'seed')
  git(root, 'init', '--quiet', '--bare', '-b', 'main', `--object-format=${objectFormat}`, origin)
  git(root, 'init', '--quiet', '-b', 'main', `--object-format=${objectFormat}`, seed)
  write(seed, '.gitignore', '*.log\nbuild/\n')
  for (const [file, content] of Object.entries(files)) write(seed, file, content)
  git(seed, 'add', '-A')
  git(seed, 'commit', '--quiet', '-m', 'initial')
  git(seed, 'push', '--quiet', origin, 'main')
  const workspace = path.join(root, 'work', 'repo', 'repo')
  fs.mkdirSync(path.dirname(workspace), { recursive: true })
  git(root, 'clone', '--quiet', origin, workspace)
  fs.rmSync(seed, { recursive: true, force: true })
  return { root, origin, clone: workspace, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) }
}

export function write(dir: string, file: string, content: string): void {
  const full = path.join(dir, file)
  fs.mkdirSync(path.dirname(full), { recursive: true })
  fs.writeFileSync(full, content)
}

/** Commits a new file in `dir` and returns the commit. */
export function commit(dir: string, file: string, content = `${file}\n`): string {
  write(dir, file, content)
  git(dir, 'add', '--', file)
  git(dir, 'commit', '--quiet', '-m', `add ${file}`)
  return git(dir, 'rev-parse', 'HEAD')
}

/** The worktree paths git has registered for the repository, the main one first. */
export function worktreePaths(repo: string): string[] {
  return git(repo, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter(l => l.startsWith('worktree '))
    .map(l => l.slice('worktree '.length))
}

export function branchExists(repo: string, branch: string): boolean {
  try {
    git(repo, 'show-ref', '--verify', '--quiet', `refs/heads/${branch}`)
    return true
  } catch {
    return false
  }
}

/** The file's text, or null when there is no such file. */
export function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

/** Adds a submodule `lib` to the clone, from a bare origin of its own, and pushes that; once per repos. */
export function addSubmodule(repos: Repos): void {
  const subOrigin = path.join(repos.root, 'sub-origin.git')
  if (fs.existsSync(subOrigin)) return
  const seed = path.join(repos.root, 'sub-seed')
  git(repos.root, 'init', '--quiet', '-b', 'main', seed)
  commit(seed, 'lib.txt')
  git(repos.root, 'clone', '--quiet', '--bare', seed, subOrigin)
  git(repos.clone, '-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', subOrigin, 'lib')
  git(repos.clone, 'commit', '--quiet', '-m', 'add lib')
  git(repos.clone, 'push', '--quiet', 'origin', 'main')
}
