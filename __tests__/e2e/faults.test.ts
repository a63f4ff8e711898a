// Covers: src/stages/ through the bundles; src/git/git-command-manager.ts (cancellation), src/git/repository-lock.ts.
// The runner may cancel a step at any moment, or the machine may lose it. Cancelled as the runner
// cancels (SIGINT to node alone, SIGTERM 7.5 s later, then SIGKILL; git children never signalled) while
// each git call of each stage runs, a stage leaves no git of its own running and the job converges: no
// worktree of ours left behind clean, no stale registration, no lock file, a sound repository. A post
// runs once; what a cancelled post leaves, the sweep of the next job on the runner finishes.
// More runs: AGENT_WORKTREE_FAULT_ROUNDS=5 npm run test:stress
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { git, makeRepos, worktreePaths, type Repos } from '../helpers/repos.js'

const ROUNDS = Number(process.env.AGENT_WORKTREE_FAULT_ROUNDS ?? 1)

let repos: Repos
let jobs = 0
beforeEach(() => {
  repos = makeRepos(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`src/file-${i}.txt`, `content ${i}\n`])))
})
afterEach(() => repos.cleanup())

/** Jobs on one self-hosted runner, one after the other. */
function job(): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { RUNNER_NAME: 'runner-1', GITHUB_RUN_ID: String(++jobs), GITHUB_JOB: 'agents' }
  })
}

function lockFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(e => e.name.endsWith('.lock') || e.name.startsWith('agent-worktree.lock'))
    .map(e => path.join(e.parentPath, e.name))
}

/** Nothing of ours is left, but `except` (a worktree still in use). */
function expectConverged(context: string, except: string[] = []): void {
  expect(
    worktreePaths(repos.clone).filter(p => !except.includes(p)),
    context
  ).toEqual([repos.clone])
  const dir = `${repos.clone}.worktrees`
  expect(
    (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter(name => !except.some(p => path.basename(p) === name)),
    context
  ).toEqual([])
  const branches = git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/heads/').split('\n')
  expect(
    branches.filter(b => !except.some(p => b.endsWith(path.basename(p)))),
    context
  ).toEqual(['refs/heads/main'])
  expect(lockFiles(path.join(repos.clone, '.git')), context).toEqual([])
  git(repos.clone, 'fsck', '--no-dangling', '--no-progress')
}

function converged(except: string[] = []): boolean {
  try {
    expectConverged('', except)
    return true
  } catch {
    return false
  }
}

/** The git calls a stage makes, in order, from one undisturbed run. */
async function gitCallsOf(stage: 'main' | 'post' | 'exit'): Promise<string[]> {
  const j = job()
  const main = await j.uses('.', { name: `measure-${stage}` }, { recordGit: stage === 'main' })
  const step: StepResult =
    stage === 'main' ? main : stage === 'exit' ? await j.uses('exit', {}, { recordGit: true }) : (await j.runPosts({ recordGit: true }))[0]
  if (stage !== 'post') await j.runPosts()
  await j.end()
  expectConverged(`measuring ${stage}`)
  expect(step.gitCalls?.length, `${stage} made no git call`).toBeGreaterThan(3)
  return step.gitCalls!
}

function noStrays(j: Job, context: string): void {
  expect(
    j.strays().filter(p => /(^|\/)git( |$)/.test(p.command)),
    `${context}: a git child outlived its step`
  ).toEqual([])
}

describe('a stage cancelled while each of its git calls runs', () => {
  it(
    'main: the cancel stops it, no git of it runs on, and its post converges',
    async () => {
      const calls = await gitCallsOf('main')
      for (let round = 0; round < ROUNDS; round++) {
        for (let nth = 1; nth <= calls.length; nth++) {
          const j = job()
          const main = await j.uses('.', { name: `cancel-main-${round}-${nth}` }, { cancel: { onGit: '*', nth, holdMs: 600 } })
          const context = `cancelled on git call ${nth} (${calls[nth - 1]}): ${main.stdout}`
          expect(main.triggered, context).toBe(true)
          expect(main.stoppedBy, context).toBe('cancel')
          // It went on SIGINT, well before the runner's SIGTERM.
          expect(
            main.signals.map(s => s.signal),
            context
          ).toEqual(['SIGINT'])
          noStrays(j, context)
          const [post] = await j.runPosts()
          expect(post.exitCode, post.stdout).toBe(0)
          await j.end()
          expectConverged(`${context}\npost: ${post.stdout}`)
        }
      }
    },
    300_000 * ROUNDS
  )

  it(
    'post: a post cancelled anywhere leaves what the next job on the runner finishes',
    async () => {
      const calls = await gitCallsOf('post')
      for (let k = 0; k < ROUNDS * calls.length; k++) {
        const nth = (k % calls.length) + 1
        const j = job()
        const main = await j.uses('.', { name: `cancel-post-${nth}` })
        expect(main.exitCode).toBe(0)
        const [post] = await j.runPosts({ cancel: { onGit: '*', nth, holdMs: 600 } })
        const context = `post cancelled on git call ${nth} (${calls[nth - 1]}): ${post.stdout}`
        expect(
          post.signals.map(s => s.signal),
          context
        ).toEqual(post.triggered ? ['SIGINT'] : [])
        noStrays(j, context)
        await j.end()
        if (converged()) continue
        const next = job()
        const enter = await next.uses('.', { name: `next-${nth}` })
        expect(enter.exitCode, enter.stdout).toBe(0)
        expectConverged(`${context}\nnext enter: ${enter.stdout}`, [enter.outputs['worktree-path']])
        await next.runPosts()
        await next.end()
      }
    },
    300_000 * ROUNDS
  )

  it(
    'exit sub-action: cancelled anywhere, the post then converges',
    async () => {
      const calls = await gitCallsOf('exit')
      for (let k = 0; k < ROUNDS * calls.length; k++) {
        const nth = (k % calls.length) + 1
        const j = job()
        await j.uses('.', { name: `cancel-exit-${nth}` })
        const exit = await j.uses('exit', {}, { cancel: { onGit: '*', nth, holdMs: 600 } })
        const context = `exit cancelled on git call ${nth} (${calls[nth - 1]}): ${exit.stdout}`
        noStrays(j, context)
        const [post] = await j.runPosts()
        await j.end()
        if (converged()) continue
        // A cut-off removal is finished by the next job's sweep.
        const next = job()
        const enter = await next.uses('.', { name: `after-exit-${nth}` })
        expectConverged(`${context}\npost: ${post.stdout}\nnext: ${enter.stdout}`, [enter.outputs['worktree-path']])
        await next.runPosts()
        await next.end()
      }
    },
    300_000 * ROUNDS
  )
})

describe('a main step lost with the machine while each git call runs (SIGKILL of node alone)', () => {
  it(
    'the post converges, waiting for a git call that outlived the step',
    async () => {
      const calls = await gitCallsOf('main')
      for (let k = 0; k < ROUNDS * calls.length; k++) {
        const nth = (k % calls.length) + 1
        const j = job()
        const main = await j.uses('.', { name: `crash-${nth}` }, { crash: { onGit: '*', nth, holdMs: 300 } })
        const context = `crashed on git call ${nth} (${calls[nth - 1]}): ${main.stdout}`
        expect(main.stoppedBy, context).toBe('crash')
        const [post] = await j.runPosts()
        expect(post.exitCode, post.stdout).toBe(0)
        await j.end()
        expectConverged(`${context}\npost: ${post.stdout}`)
      }
    },
    300_000 * ROUNDS
  )
})
