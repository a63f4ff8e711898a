// Covers: src/git/repository-lock.ts, src/enter/plan.ts through the bundles.
// Many legs entering and exiting at once on one repository, through the bundles, as self-hosted
// runners sharing a machine run them.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { LOCK_FILE } from '../../src/git/repository-lock.js'
import { commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'

const LEGS = 24
// More rounds show rarer races: AGENT_WORKTREE_ROUNDS=20 npm test -- parallel
const ROUNDS = Number(process.env.AGENT_WORKTREE_ROUNDS ?? 1)
/**
 * What a test here may take: its steps run at once and contend for the cores. Measured on two cores under a load
 * of 8 to 12 (other work beside the suite): a round of 24 legs (48 steps, each a node process and its git calls)
 * took 6 to 29 s, up to 0.6 s a step; a loaded run of the whole suite is slower still (the 60 s this had ran out
 * there). 2.5 s a step covers a machine four times as busy.
 */
const STEP_MS = 2_500
const limit = (steps: number): number => steps * STEP_MS

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

function filesNamed(dir: string, pattern: RegExp): string[] {
  const found: string[] = []
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (pattern.test(entry.name)) found.push(path.join(entry.parentPath, entry.name))
  }
  return found
}

interface Leg {
  main: StepResult
  posts: StepResult[]
  dirty: boolean
}

/** Runs LEGS jobs at once, each on its own runner: enter, an agent that leaves odd legs dirty, then the post. */
async function round(round: number, workspace: string, withInputs: (leg: number) => Record<string, string>): Promise<Leg[]> {
  return Promise.all(
    Array.from({ length: LEGS }, async (_, leg) => {
      const job = new Job({
        workspace,
        temp: path.join(repos.root, 'temp', `${round}-${leg}`),
        env: { GITHUB_RUN_ID: `${100 + round}`, GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: `runner-${leg}` }
      })
      const main = await job.uses('.', withInputs(leg))
      const dirty = leg % 2 === 1
      if (main.exitCode === 0 && dirty) write(main.outputs['worktree-path'], `leg-${leg}.txt`, 'unsaved\n')
      return { main, posts: await job.runPosts(), dirty }
    })
  )
}

function expectConverged(repo: string, legs: Leg[]): void {
  for (const { main } of legs) expect(main.exitCode, main.stdout + main.stderr).toBe(0)
  const paths = legs.map(l => l.main.outputs['worktree-path'])
  expect(new Set(paths).size).toBe(LEGS)
  expect(new Set(legs.map(l => l.main.outputs.branch)).size).toBe(LEGS)
  for (const leg of legs) {
    expect(leg.posts[0].exitCode).toBe(0)
    expect(fs.existsSync(leg.main.outputs['worktree-path'])).toBe(leg.dirty)
  }
  expect(worktreePaths(repo).sort()).toEqual([repo, ...legs.filter(l => l.dirty).map(l => l.main.outputs['worktree-path'])].sort())
  expect(filesNamed(path.join(repo, '.git'), /\.lock$/)).toEqual([])
  git(repo, 'fsck', '--no-dangling', '--no-progress')
}

describe(`${LEGS} legs at once on one repository`, () => {
  it.each([
    ['generated names', () => ({})],
    ['names from a matrix value', (leg: number) => ({ name: `agent/${leg}` })],
    ['base-ref origin/main, fetched', () => ({ 'base-ref': 'origin/main', fetch: 'true' })]
  ] as const)(
    '%s',
    async (_title, inputs) => {
      const config = git(repos.clone, 'config', '--list', '--local')
      for (let r = 0; r < ROUNDS; r++) {
        const legs = await round(r, repos.clone, inputs)
        expectConverged(repos.clone, legs)
        // Clear the kept legs for the next round.
        for (const leg of legs.filter(l => l.dirty)) {
          git(repos.clone, 'worktree', 'remove', '-f', '-f', leg.main.outputs['worktree-path'])
          git(repos.clone, 'branch', '-D', leg.main.outputs.branch)
        }
      }
      // No upstream or other configuration was written.
      expect(git(repos.clone, 'config', '--list', '--local')).toBe(config)
    },
    limit(2 * LEGS) * ROUNDS
  )

  it(
    'through repository-path on a shared clone',
    async () => {
      const shared = path.join(repos.root, 'shared', 'monorepo')
      git(repos.root, 'clone', '--quiet', repos.origin, shared)
      const legs = await round(0, repos.clone, () => ({ 'repository-path': shared, 'base-ref': 'origin/main' }))
      expectConverged(shared, legs)
      for (const leg of legs) expect(path.dirname(leg.main.outputs['worktree-path'])).toBe(`${shared}.worktrees`)
      expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    },
    limit(2 * LEGS)
  )
})

describe('a fetch while another leg adds a worktree', () => {
  it('waits for the add instead of failing on its half-made HEAD', async () => {
    // Something new on the remote, so that the fetch transfers objects and checks their connectivity
    // against every ref, the HEAD of every worktree among them.
    const pusher = path.join(repos.root, 'pusher')
    git(repos.root, 'clone', '--quiet', repos.origin, pusher)
    const pushed = commit(pusher, 'new.txt')
    git(pusher, 'push', '--quiet', 'origin', 'main')
    // Another leg in the middle of `git worktree add`, under the repository lock: git has written the
    // placeholder HEAD (all zeros) it writes before the real one.
    const adding = path.join(repos.clone, '.git', 'worktrees', 'adding')
    write(adding, 'HEAD', `${'0'.repeat(40)}\n`)
    write(adding, 'commondir', '../..\n')
    write(adding, 'gitdir', `${path.join(repos.root, 'adding', '.git')}\n`)
    const lock = path.join(repos.clone, '.git', LOCK_FILE)
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), id: 'adding' }))
    const done = setTimeout(() => {
      fs.rmSync(adding, { recursive: true })
      fs.rmSync(lock)
    }, 1_500)
    try {
      const job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'temp', 'fetch') })
      const main = await job.uses('.', { 'base-ref': 'origin/main', fetch: 'true' })
      expect(main.exitCode, main.stdout + main.stderr).toBe(0)
      expect(main.outputs['base-sha']).toBe(pushed)
      expect(main.stdout + main.stderr).not.toMatch(/grafts/)
      await job.runPosts()
    } finally {
      clearTimeout(done)
    }
  })
})

describe('two legs asking for the same name', () => {
  it(
    'exactly one wins; the others fail clearly and their posts never touch the winner',
    async () => {
      for (let contest = 0; contest < 5; contest++) {
        const jobs = Array.from(
          { length: 6 },
          (_, leg) => new Job({ workspace: repos.clone, temp: path.join(repos.root, 'temp', `c${contest}-${leg}`), env: { RUNNER_NAME: `runner-${leg}` } })
        )
        const mains = await Promise.all(jobs.map(job => job.uses('.', { name: `same-${contest}` })))
        const winners = mains.filter(m => m.exitCode === 0)
        expect(winners).toHaveLength(1)
        const winner = winners[0].outputs['worktree-path']
        write(winner, 'work.txt', 'the winner is working\n')
        for (const [leg, main] of mains.entries()) {
          if (main.exitCode === 0) continue
          expect(main.annotations.find(a => a.level === 'error')?.message).toMatch(/already exists/)
          const [post] = await jobs[leg].runPosts()
          expect(post.exitCode).toBe(0)
          expect(post.annotations).toEqual([])
        }
        expect(fs.readFileSync(path.join(winner, 'work.txt'), 'utf8')).toBe('the winner is working\n')
        fs.rmSync(path.join(winner, 'work.txt'))
        const [post] = await jobs[mains.findIndex(m => m.exitCode === 0)].runPosts()
        expect(post.stdout).toContain('Removed')
      }
      // Five contests of six mains and six posts.
    },
    limit(5 * 12)
  )
})
