// Covers: src/git/repository-lock.ts.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { pidSpace } from '../../src/os/processes.js'
import { LOCK_FILE, withRepositoryLock } from '../../src/git/repository-lock.js'

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
