// Covers: src/exit/worktree-pool.ts through the bundles.
// recycle: true — the pool of parked worktrees.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { readParkedFiles } from '../../src/git/parked-files.js'
import { branchExists, commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'

let repos: Repos
let jobs = 0
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

/** A job on a runner of its own, or on the named one (then its jobs follow each other there). */
const job = (runner?: string, env: Record<string, string> = {}): Job =>
  new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, runner ?? `runner-${++jobs}`, '_temp'),
    env: { RUNNER_NAME: runner ?? `runner-${jobs}`, ...env }
  })
const parked = (): string[] =>
  git(repos.clone, 'worktree', 'list', '--porcelain')
    .split('\n\n')
    .filter(b => b.includes('locked agent-worktree parked '))
    .map(b => b.split('\n')[0].slice('worktree '.length))
const warnings = (step: StepResult): string[] => step.annotations.filter(a => a.level === 'warning').map(a => a.message)

async function enterAndPark(name: string, work?: (wt: string) => void): Promise<Record<string, string>> {
  const j = job()
  const { outputs, exitCode } = await j.uses('.', { name, recycle: 'true' })
  expect(exitCode).toBe(0)
  work?.(outputs['worktree-path'])
  const [post] = await j.runPosts()
  expect(warnings(post)).toEqual([])
  return outputs
}

describe('the worktree pool', () => {
  it('parks a clean worktree: branch deleted, HEAD detached, ignored files cleaned, locked as parked', async () => {
    const first = await enterAndPark('first', wt => write(wt, 'build/cache.bin', 'left by the first job\n'))
    const wt = first['worktree-path']
    expect(parked()).toEqual([wt])
    expect(branchExists(repos.clone, first.branch)).toBe(false)
    expect(git(wt, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD')
    expect(fs.existsSync(path.join(wt, 'build'))).toBe(false)
    expect(git(wt, 'status', '--porcelain', '--ignored')).toBe('')
  })

  it('gives it to the next job, moved to its name and base, with nothing of the last job', async () => {
    const first = await enterAndPark('first', wt => write(wt, 'build/cache.bin', 'x\n'))
    const newer = commit(repos.clone, 'newer.txt')
    const j = job()
    const second = await j.uses('.', { name: 'second', recycle: 'true' })
    expect(second.exitCode).toBe(0)
    expect(second.stdout).toContain('Took')
    const wt = second.outputs['worktree-path']
    expect(wt).toBe(path.join(`${repos.clone}.worktrees`, 'second'))
    expect(fs.existsSync(first['worktree-path'])).toBe(false)
    expect(second.outputs['base-sha']).toBe(newer)
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(newer)
    expect(git(wt, 'branch', '--show-current')).toBe('worktree-second')
    expect(fs.existsSync(path.join(wt, 'newer.txt'))).toBe(true)
    expect(git(wt, 'status', '--porcelain', '--ignored')).toBe('')
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).toContain(`locked agent-worktree ${JSON.parse(second.state.worktree).token}:`)
    // Its work is guarded as any worktree's.
    write(wt, 'work.txt', 'unsaved\n')
    const [post] = await j.runPosts()
    expect(warnings(post)[0]).toContain('1 uncommitted file')
    expect(parked()).toEqual([])
  })

  it('never gives one worktree to two legs taking at once', async () => {
    // Two in the pool: entered together, so that the second does not take the first.
    const pair = [job(), job()]
    await Promise.all(pair.map((j, i) => j.uses('.', { name: `pair-${i}`, recycle: 'true' })))
    for (const j of pair) await j.runPosts()
    expect(parked()).toHaveLength(2)
    const legs = await Promise.all(Array.from({ length: 4 }, (_, i) => job().uses('.', { name: `leg-${i}`, recycle: 'true' })))
    for (const leg of legs) expect(leg.exitCode, leg.stdout).toBe(0)
    expect(legs.filter(l => l.stdout.includes('Took')).length).toBe(2)
    expect(new Set(legs.map(l => l.outputs['worktree-path'])).size).toBe(4)
    expect(parked()).toEqual([])
  })

  it('takes a parked worktree that someone used out of the pool, keeps it, says what it holds, and creates a fresh one', async () => {
    const first = await enterAndPark('used')
    write(first['worktree-path'], 'notes.txt', 'someone worked here\n')
    const second = await job().uses('.', { name: 'fresh', recycle: 'true' })
    expect(second.exitCode).toBe(0)
    expect(second.stdout).not.toContain('Took')
    expect(warnings(second).join('\n')).toContain(`taken out of the pool and kept: \`${first['worktree-path']}\`: it holds 1 uncommitted file`)
    expect(fs.readFileSync(path.join(first['worktree-path'], 'notes.txt'), 'utf8')).toBe('someone worked here\n')
    expect(git(repos.clone, 'worktree', 'list', '--porcelain')).toContain('taken out of the pool: it holds 1 uncommitted file')
    expect(parked()).toEqual([])
  })

  it('never hands out a parked worktree that holds a new commit, though its files are clean', async () => {
    const first = await enterAndPark('committed')
    const wt = first['worktree-path']
    const work = commit(wt, 'parked-work.txt')
    const second = await job().uses('.', { name: 'fresh', recycle: 'true' })
    expect(second.stdout).not.toContain('Took')
    expect(warnings(second).join('\n')).toContain('it holds 1 unsaved commit')
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(work)
    expect(git(repos.clone, 'cat-file', '-t', work)).toBe('commit')
  })

  it('never hands out one whose commit, made in the second it was parked, is only in its HEAD reflog', async () => {
    const first = await enterAndPark('same-second')
    const wt = first['worktree-path']
    const lockFile = path.join(repos.clone, '.git', 'worktrees', 'same-second', 'locked')
    // Parked at a time within its second (…T12:00:00.600Z); the agent commits and goes back to the parked HEAD
    // within that second, as git's reflog tells it (whole seconds).
    const since = new Date(Math.floor(Date.now() / 1000) * 1000 + 600)
    fs.writeFileSync(lockFile, `agent-worktree parked ${since.toISOString()}`)
    const date = `${Math.floor(since.getTime() / 1000)} +0000`
    const parkedHead = git(wt, 'rev-parse', 'HEAD')
    const env = {
      ...process.env,
      GIT_COMMITTER_DATE: date,
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_NAME: 'A',
      GIT_COMMITTER_EMAIL: 'a@example.com',
      GIT_AUTHOR_NAME: 'A',
      GIT_AUTHOR_EMAIL: 'a@example.com'
    }
    write(wt, 'parked-work.txt', 'work\n')
    execFileSync('git', ['add', 'parked-work.txt'], { cwd: wt, env })
    execFileSync('git', ['commit', '--quiet', '-m', 'work'], { cwd: wt, env })
    const work = git(wt, 'rev-parse', 'HEAD')
    execFileSync('git', ['switch', '--quiet', '--detach', parkedHead], { cwd: wt, env })
    const second = await job().uses('.', { name: 'fresh', recycle: 'true' })
    expect(second.stdout).not.toContain('Took')
    expect(warnings(second).join('\n')).toContain('it holds 1 unsaved commit')
    expect(git(repos.clone, 'cat-file', '-t', work)).toBe('commit')
  })

  it('never hands one out when its record was rewritten to name the new commit as its parked HEAD', async () => {
    const first = await enterAndPark('forged')
    const wt = first['worktree-path']
    const work = commit(wt, 'parked-work.txt')
    const recordFile = path.join(repos.clone, '.git', 'worktrees', 'forged', 'agent-worktree.json')
    fs.writeFileSync(recordFile, JSON.stringify({ ...JSON.parse(fs.readFileSync(recordFile, 'utf8')), parkedHead: work }))
    const second = await job().uses('.', { name: 'fresh', recycle: 'true' })
    expect(second.stdout).not.toContain('Took')
    expect(warnings(second).join('\n')).toContain('it holds 1 unsaved commit')
    expect(git(wt, 'rev-parse', 'HEAD')).toBe(work)
  })

  it('keeps what the park proved of each file, its stat data as it is, for the next take to read only what changed', async () => {
    // The agent's files are older than the park by a second: the park keeps them all.
    const first = await enterAndPark('proven', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100))
    const wt = first['worktree-path']
    const proven = readParkedFiles(path.join(repos.clone, '.git', 'worktrees', 'proven'), 20)!
    for (const file of ['.gitignore', 'README.md', 'src/app.txt']) {
      const { object, stat } = proven(Buffer.from(file))!
      expect(object).toBe(git(wt, 'rev-parse', `HEAD:${file}`))
      const now = fs.lstatSync(path.join(wt, file), { bigint: true })
      expect(stat?.readUInt32BE(0)).toBe(Number(now.ctimeNs / 1_000_000_000n))
      expect(stat?.readUInt32BE(20)).toBe(Number(BigInt.asUintN(32, now.ino)))
      expect(stat?.readUInt32BE(36)).toBe(Number(now.size))
    }
    const second = await job().uses('.', { name: 'second', recycle: 'true' })
    expect(second.stdout).toContain('Took')
  })

  it('never hands out one whose file was rewritten since it was parked, its size and times put back', async () => {
    const first = await enterAndPark('rewritten', () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100))
    const file = path.join(first['worktree-path'], 'src', 'app.txt')
    const { atime, mtime } = fs.statSync(file)
    expect(fs.readFileSync(file, 'utf8')).toBe('app\n')
    fs.writeFileSync(file, 'evl\n')
    fs.utimesSync(file, atime, mtime)
    const second = await job().uses('.', { name: 'fresh', recycle: 'true' })
    expect(second.stdout).not.toContain('Took')
    expect(warnings(second).join('\n')).toContain('it holds 1 uncommitted file')
    expect(fs.readFileSync(file, 'utf8')).toBe('evl\n')
  })

  it('never hands out files that only rules of the agent (an ignored .gitattributes the park cleaned) made their objects', async () => {
    repos.cleanup()
    repos = makeRepos({ '.gitignore': '.*\n!/.gitignore\n', 'README.md': '# sample\n', 'src/app.txt': 'app\n', 'src/run.py': 'print("hi")  # $Id$\n' })
    const first = await enterAndPark('attributes', wt => {
      write(wt, 'src/.gitattributes', 'app.txt text eol=crlf\nrun.py ident\n')
      fs.writeFileSync(path.join(wt, 'src', 'app.txt'), 'app\r\n')
      fs.writeFileSync(path.join(wt, 'src', 'run.py'), 'print("hi")  # $Id: \rimport os; os.system("echo planted")\r$\n')
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100)
    })
    expect(parked()).toEqual([first['worktree-path']])
    expect(fs.existsSync(path.join(first['worktree-path'], 'src', '.gitattributes'))).toBe(false)
    const second = await job().uses('.', { name: 'second', recycle: 'true' })
    expect(second.stdout).not.toContain('Took')
    expect(warnings(second).join('\n')).toContain('it holds 2 uncommitted files')
    expect(fs.readFileSync(path.join(second.outputs['worktree-path'], 'src', 'run.py'), 'utf8')).toBe('print("hi")  # $Id$\n')
  })

  it('parks all the same where its list of what it proved cannot be written', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { name: 'no-list', recycle: 'true' })
    // Where the main step stood an empty file for the sandboxes, a folder of someone else's.
    const list = path.join(repos.clone, '.git', 'worktrees', 'no-list', 'agent-worktree-parked')
    fs.rmSync(list, { force: true })
    fs.mkdirSync(path.join(list, 'in-the-way'), { recursive: true })
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(warnings(post)).toEqual([])
    expect(parked()).toEqual([outputs['worktree-path']])
    expect((await job().uses('.', { name: 'next', recycle: 'true' })).stdout).toContain('Took')
  })

  it('never takes a parked worktree whose folder now points git elsewhere: the next job never runs git there', async () => {
    const first = await enterAndPark('repointed')
    const wt = first['worktree-path']
    // Its registration is untouched; its folder's .git now names a git dir of someone else's making.
    const elsewhere = path.join(repos.root, 'elsewhere.git')
    git(repos.root, 'clone', '--quiet', '--bare', repos.origin, elsewhere)
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${elsewhere}\n`)
    const second = await job().uses('.', { name: 'next', recycle: 'true' })
    expect(second.exitCode, second.stdout).toBe(0)
    expect(second.stdout).not.toContain('Took')
    expect(second.outputs['worktree-path']).not.toBe(wt)
    expect(fs.readFileSync(path.join(wt, '.git'), 'utf8')).toBe(`gitdir: ${elsewhere}\n`)
    expect(parked()).toEqual([wt])
  })

  it('never expires the parked worktrees of another runner, nor any outside a runner', async () => {
    const first = await enterAndPark('others')
    const wt = first['worktree-path']
    fs.writeFileSync(
      path.join(repos.clone, '.git', 'worktrees', 'others', 'locked'),
      `agent-worktree parked ${new Date(Date.now() - 25 * 3600_000).toISOString()}`
    )
    await job('another-runner').uses('.', { name: 'next' })
    await new Job({ workspace: repos.clone, temp: path.join(repos.root, 'local', '_temp'), env: {} }).uses('.', { name: 'local' })
    expect(worktreePaths(repos.clone)).toContain(wt)
  })

  it('does not park a worktree with unsaved work, nor one when the pool is full', async () => {
    const j = job()
    const dirty = await j.uses('.', { name: 'dirty', recycle: 'true' })
    write(dirty.outputs['worktree-path'], 'work.txt', 'unsaved\n')
    await j.runPosts()
    expect(parked()).toEqual([])
    // Nine enter together from an empty pool; eight fit in it.
    const legs = Array.from({ length: 9 }, () => job())
    await Promise.all(legs.map((l, i) => l.uses('.', { name: `full-${i}`, recycle: 'true' })))
    const posts = []
    for (const l of legs) posts.push(...(await l.runPosts()))
    expect(parked()).toHaveLength(8)
    expect(posts.filter(p => p.stdout.includes('Removed'))).toHaveLength(1)
  })

  it('removes worktrees parked for more than a day by an earlier job of this runner, at the next enter', async () => {
    const j = job('runner-a')
    await j.uses('.', { name: 'old', recycle: 'true' })
    const [parkedPost] = await j.runPosts()
    expect(parkedPost.stdout).toContain('Parked')
    const wt = path.join(`${repos.clone}.worktrees`, 'old')
    fs.writeFileSync(
      path.join(repos.clone, '.git', 'worktrees', 'old', 'locked'),
      `agent-worktree parked ${new Date(Date.now() - 25 * 3600_000).toISOString()}`
    )
    const next = await job('runner-a').uses('.', { name: 'next' })
    expect(next.stdout).toContain('parked in the pool for more than a day')
    expect(worktreePaths(repos.clone)).not.toContain(wt)
  })

  it('refuses recycle with sparse-paths', async () => {
    const step = await job().uses('.', { recycle: 'true', 'sparse-paths': 'src' })
    expect(step.annotations[0].message).toContain("Input 'recycle'")
  })
})
