// Covers: src/git/repository-lock.ts (and, through the committed bundles, its use by the exit and the main step).
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { pidSpace } from '../../src/os/processes.js'
import { LOCK_FILE, withRepositoryLock } from '../../src/git/repository-lock.js'
import { Job } from '../../scripts/runner.mjs'
import { makeRepos } from '../helpers/repos.js'

let dir: string
let lockFile: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-lock-'))
  lockFile = path.join(dir, LOCK_FILE)
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** The pid of a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }).stdout.trim())
}

describe('the repository lock', () => {
  it('lets one holder in at a time, and leaves no lock file', async () => {
    let inside = 0
    let most = 0
    const order: number[] = []
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        withRepositoryLock(dir, async () => {
          inside++
          most = Math.max(most, inside)
          await sleep(5)
          order.push(i)
          inside--
        })
      )
    )
    expect(most).toBe(1)
    expect(order).toHaveLength(12)
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it('releases the lock when the work throws', async () => {
    await expect(withRepositoryLock(dir, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(fs.existsSync(lockFile)).toBe(false)
  })

  it('recovers a lock left by a process of this host that was killed', async () => {
    fs.writeFileSync(lockFile, JSON.stringify({ pid: deadPid(), host: os.hostname(), space: pidSpace(), id: 'dead' }))
    const started = Date.now()
    expect(await withRepositoryLock(dir, async () => 'got it')).toBe('got it')
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('never takes a fresh lock of another pid namespace (a runner container with the host name) for a dead one', async () => {
    // Its pid names no process here; its holder, in its own container, may be alive and refreshing it.
    for (const space of [`pid:[1] ${pidSpace()?.split(' ')[1]}`, undefined]) {
      fs.writeFileSync(lockFile, JSON.stringify({ pid: deadPid(), host: os.hostname(), space, id: 'elsewhere' }))
      const error = await withRepositoryLock(dir, async () => 'never', { timeoutMs: 400, staleMs: 30_000 }).catch((e: Error) => e)
      expect(error, String(space)).toBeInstanceOf(Error)
      expect(fs.existsSync(lockFile)).toBe(true)
    }
  })

  it('recovers a lock that its holder stopped refreshing, from another host or torn', async () => {
    for (const text of [JSON.stringify({ pid: 1, host: 'elsewhere', id: 'x' }), '{"pid":']) {
      fs.writeFileSync(lockFile, text)
      const old = new Date(Date.now() - 60_000)
      fs.utimesSync(lockFile, old, old)
      expect(await withRepositoryLock(dir, async () => 'got it', { timeoutMs: 5_000, staleMs: 30_000 })).toBe('got it')
    }
  })

  it('takes a lock whose time lies in the future beyond the staleness bound for a stale one (touch -d 2099-01-01)', async () => {
    fs.writeFileSync(lockFile, JSON.stringify({ pid: 1, host: 'elsewhere', id: 'x' }))
    const future = new Date('2099-01-01T00:00:00Z')
    fs.utimesSync(lockFile, future, future)
    const started = Date.now()
    expect(await withRepositoryLock(dir, async () => 'got it', { timeoutMs: 5_000, staleMs: 30_000 })).toBe('got it')
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it('takes a lock that has not changed for the staleness bound of its own watch, whatever time it says', async () => {
    // Just inside the bound, in the future: by its time alone it would stay fresh for twice the bound.
    const staleMs = 2_000
    fs.writeFileSync(lockFile, JSON.stringify({ pid: 1, host: 'elsewhere', id: 'x' }))
    const soon = new Date(Date.now() + staleMs - 50)
    fs.utimesSync(lockFile, soon, soon)
    const started = Date.now()
    expect(await withRepositoryLock(dir, async () => 'got it', { timeoutMs: 10_000, staleMs })).toBe('got it')
    const waited = Date.now() - started
    expect(waited).toBeGreaterThanOrEqual(staleMs)
    expect(waited).toBeLessThan(2 * staleMs - 300)
  })

  it('waits for a live holder, and fails with a clear error when the wait runs out', async () => {
    fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, host: os.hostname(), id: 'live' }))
    const error = await withRepositoryLock(dir, async () => 'never', { timeoutMs: 400, staleMs: 30_000 }).catch((e: Error) => e)
    expect(error).toBeInstanceOf(Error)
    expect((error as Error).message).toContain(`Timed out after 0 s waiting for \`${lockFile}\`, held by process ${process.pid} on ${os.hostname()}`)
    expect((error as Error).message).toContain('if none is, delete that file')
    expect(fs.existsSync(lockFile)).toBe(true)
  })

  it('refreshes a long hold, so that it is never taken for a dead one', async () => {
    const options = { timeoutMs: 5_000, staleMs: 300 }
    const events: string[] = []
    const long = withRepositoryLock(
      dir,
      async () => {
        events.push('long start')
        await sleep(1_200)
        events.push('long end')
      },
      options
    )
    await sleep(50)
    await withRepositoryLock(dir, async () => void events.push('second'), options)
    await long
    expect(events).toEqual(['long start', 'long end', 'second'])
  })
})

describe('the repository lock, through the committed bundles', () => {
  it('a lock planted with a time in the future (from inside the worktree: the common dir is writable) holds neither the exit nor the next job', async () => {
    const repos = makeRepos()
    try {
      const job = (runner: string): Job =>
        new Job({
          workspace: repos.clone,
          temp: path.join(repos.root, runner, '_temp'),
          env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: runner, RUNNER_NAME: runner }
        })
      const first = job('runner-1')
      const main = await first.uses('.', { name: 'locker' })
      expect(main.exitCode).toBe(0)
      const planted = path.join(repos.clone, '.git', LOCK_FILE)
      fs.writeFileSync(planted, JSON.stringify({ pid: 1, host: 'elsewhere', id: 'x' }))
      const future = new Date('2099-01-01T00:00:00Z')
      fs.utimesSync(planted, future, future)
      const exit = await first.uses('exit')
      expect(exit.outputs.removed, exit.stdout).toBe('true')
      expect(exit.durationMs).toBeLessThan(15_000)
      fs.writeFileSync(planted, JSON.stringify({ pid: 1, host: 'elsewhere', id: 'y' }))
      fs.utimesSync(planted, future, future)
      const next = await job('runner-2').uses('.', { name: 'next-job' })
      expect(next.exitCode, next.stdout).toBe(0)
      expect(next.durationMs).toBeLessThan(15_000)
    } finally {
      repos.cleanup()
    }
  })
})
