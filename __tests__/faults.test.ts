// The runner may kill a step at any moment. Whatever moment, the post that follows converges:
// no worktree of ours left behind clean, no stale registration, no lock file, a sound repository.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../scripts/runner.mjs'
import { git, makeRepos, worktreePaths, type Repos } from './helpers/repos.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`src/file-${i}.txt`, `content ${i}\n`])))
})
afterEach(() => repos.cleanup())

function lockFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(e => e.name.endsWith('.lock'))
    .map(e => path.join(e.parentPath, e.name))
}

function expectConverged(context: string): void {
  expect(worktreePaths(repos.clone), context).toEqual([repos.clone])
  const dir = `${repos.clone}.worktrees`
  expect(fs.existsSync(dir) ? fs.readdirSync(dir) : [], context).toEqual([])
  expect(git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/heads/'), context).toBe('refs/heads/main')
  expect(lockFiles(path.join(repos.clone, '.git')), context).toEqual([])
  expect(
    fs.readdirSync(path.join(repos.clone, '.git')).filter(name => name.startsWith('agent-worktree')),
    context
  ).toEqual([])
  git(repos.clone, 'fsck', '--no-dangling', '--no-progress')
}

// The disk's speed drifts, so the moments are spread over a measured main step: from node's start to past
// its end, in steps fine enough to land inside git's calls.
const STEPS = Number(process.env.AGENT_WORKTREE_FAULT_STEPS ?? 16)
async function moments(): Promise<number[]> {
  const job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'temp', 'measure'), env: {} })
  const started = Date.now()
  await job.uses('.', { name: 'measure' })
  const duration = Date.now() - started
  await job.runPosts()
  return [...Array.from({ length: STEPS }, (_, i) => Math.round(10 + (i * duration * 1.2) / STEPS)), 60_000]
}

describe('the main step killed at any moment, then the post', () => {
  it.each(['SIGKILL', 'SIGINT', 'SIGTERM'] as const)('%s', async signal => {
    const outcomes = new Set<string>()
    for (const [i, moment] of (await moments()).entries()) {
      const job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'temp', `${signal}-${i}`), env: { RUNNER_NAME: 'r' } })
      const main = await job.uses('.', { name: `killed-${i}` }, { killAfterMs: moment, signal })
      outcomes.add(main.signal ?? `exit ${main.exitCode}`)
      const [post] = await job.runPosts()
      expect(post.exitCode, post.stdout).toBe(0)
      expectConverged(`killed after ${moment} ms: ${post.stdout}`)
    }
    // The moments cover both a killed and a finished main step.
    expect(outcomes.has(signal)).toBe(true)
    expect(outcomes.has('exit 0')).toBe(true)
  })
})

describe('the post step killed in the middle of a removal, then run again', () => {
  it('converges', async () => {
    for (const [i, moment] of (await moments()).entries()) {
      const job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'temp', `post-${i}`), env: { RUNNER_NAME: 'r' } })
      const main = await job.uses('.', { name: `post-killed-${i}` })
      expect(main.exitCode).toBe(0)
      await job.runPosts({ killAfterMs: moment, signal: 'SIGKILL' })
      const [again] = await job.runPosts()
      expect(again.exitCode, again.stdout).toBe(0)
      expect(
        again.annotations.filter(a => a.level !== 'notice'),
        again.stdout
      ).toEqual([])
      expectConverged(`post killed after ${moment} ms: ${again.stdout}`)
    }
  })
})
