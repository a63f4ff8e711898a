// Covers: src/stages/main.ts and src/stages/post.ts through the bundles: the git processes of a plain cycle, and of a
// take from the pool (src/exit/worktree-pool.ts), which asks the remote nothing about a parked HEAD the job's base holds.
// Every git call is a process, and on a small repository their start-up is most of a stage's time. A plain
// repository (no LFS, no submodules, not sparse, isolation by worktree) on a machine whose git has no LFS filter
// configured, and no worktree before, is entered and exited, and each stage's
// calls are compared with the list below: a call added must be added here on purpose. Some run at once, so the
// lists are compared in sorted order; each is written in the order the stage starts them.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { makeRepos, worktreePaths, type Repos } from '../helpers/repos.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

/** The git command of a recorded call: its first word after the global options (`-c` settings, --git-dir, --work-tree). */
function commandOf(call: string): string {
  const words = call.split(' ')
  let i = 0
  while (i < words.length && words[i].startsWith('-')) i += words[i] === '-c' ? 2 : 1
  return words[i]
}

const MAIN = [
  'rev-parse', // toplevel, common dir, git dir
  'config', // every setting, in one listing
  'status', // the original checkout's snapshot
  'rev-parse', // the base
  'worktree', // add
  'read-tree' // the checkout
]

/**
 * The gate's pass: HEAD and the branch, the index listed (the view's index is written from the listing, without its
 * hints), the files (status with the untracked, every path outside the index); `log` on the first pass only.
 */
const GATE = ['cat-file', 'ls-files', 'status', 'ls-files']

// No config listing: the job set up no credentials or other settings for git that the post would take.
const POST = [
  'cat-file', // the gate: HEAD and the branch
  // The original checkout's HEAD is read from its ref files where they still name the commit of enter.
  'status', // the original checkout: its files
  ...GATE.slice(1),
  'log', // commits nothing else has
  // Again, once the folder is moved aside; its index is what the first pass read, whose answer serves.
  ...GATE.filter((_, i) => i !== 1),
  'update-ref' // the branch deleted
]

it('a plain enter and exit start only the git processes they need', async () => {
  const home = path.join(repos.root, 'home')
  fs.mkdirSync(home)
  const job = new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: {
      RUNNER_NAME: 'runner-1',
      GITHUB_RUN_ID: '1',
      GITHUB_JOB: 'agents',
      // Git-lfs installed configures its filter for every repository (the system's or the user's config): not here.
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: home
    }
  })
  const main = await job.uses('.', { name: 'counted' }, { recordGit: true })
  expect(main.exitCode, main.stdout).toBe(0)
  const [post] = await job.runPosts({ recordGit: true })
  await job.end()
  expect(post.exitCode, post.stdout).toBe(0)
  expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  const sorted = (calls: string[]): string[] => [...calls].sort()
  expect(sorted(main.gitCalls!.map(commandOf)), main.gitCalls!.join('\n')).toEqual(sorted(MAIN))
  expect(sorted(post.gitCalls!.map(commandOf)), post.gitCalls!.join('\n')).toEqual(sorted(POST))
})

/** A take from the pool, with the gate's pass for a parked worktree (every path outside the index counted, ignored ones too). */
const TAKE = [
  'rev-parse', // toplevel, common dir, git dir
  'config', // every setting, in one listing
  'status', // the original checkout's snapshot
  'rev-parse', // the base
  // The parked worktree: found from each git dir's lock, without a listing of git's.
  'rev-parse', // its HEAD
  'ls-files', // its index
  'for-each-ref', // its stash and notes
  'log', // commits the base lacks: none
  'status', // its files
  'ls-files', // every path outside the index
  'worktree', // move
  'branch', // the job's branch at the base
  'checkout' // the files that differ
]

it('a take from the pool starts only the git processes it needs, and asks the remote nothing about a parked HEAD the base of the job holds', async () => {
  const home = path.join(repos.root, 'home')
  fs.mkdirSync(home)
  const job = (n: number): Job =>
    new Job({
      workspace: repos.clone,
      temp: path.join(repos.root, `runner-${n}`, '_temp'),
      env: { RUNNER_NAME: `runner-${n}`, GITHUB_RUN_ID: String(n), GITHUB_JOB: 'agents', GIT_CONFIG_NOSYSTEM: '1', HOME: home }
    })
  const first = job(1)
  expect((await first.uses('.', { name: 'parks', recycle: 'true' })).exitCode).toBe(0)
  const [parked] = await first.runPosts()
  expect(parked.stdout).toMatch(/parked/i)
  await first.end()
  const second = job(2)
  const take = await second.uses('.', { name: 'takes', recycle: 'true' }, { recordGit: true })
  expect(take.exitCode, take.stdout).toBe(0)
  expect(take.stdout).toMatch(/from the pool/i)
  const sorted = (calls: string[]): string[] => [...calls].sort()
  expect(sorted(take.gitCalls!.map(commandOf)), take.gitCalls!.join('\n')).toEqual(sorted(TAKE))
  await second.runPosts()
  await second.end()
})
