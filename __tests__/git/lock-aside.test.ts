// Covers: src/git/lock-aside.ts, its use by src/git/repository-lock.ts, and the post's word on a later sweep (src/runner/report/exit.ts).
// The repository lock lies in the common dir, which the agent writes: whatever it leaves at the lock's path, at a
// draft's or at a stealer's guard that is no file of ours (a folder, a named pipe, a link to a device, a file no step
// can read) is moved aside, unread and whole, and the step takes the lock at once.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseAnnotations } from '../../scripts/runner.mjs'
import { ASIDE_PREFIX } from '../../src/git/lock-aside.js'
import { LOCK_FILE, withRepositoryLock } from '../../src/git/repository-lock.js'
import { reportExitFailure } from '../../src/runner/report/exit.js'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-lock-'))
})
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

const PLANTED: [string, (at: string) => void][] = [
  [
    'a folder with a file in it',
    at => {
      fs.mkdirSync(at)
      fs.writeFileSync(path.join(at, 'inside'), 'kept\n')
    }
  ],
  ['a named pipe', at => execFileSync('mkfifo', [at])],
  ['a link to /dev/zero', at => fs.symlinkSync('/dev/zero', at)],
  ['a link that leads nowhere', at => fs.symlinkSync(path.join(dir, 'nowhere'), at)],
  ['a file no step can read', at => fs.writeFileSync(at, '{}', { mode: 0o000 })],
  ['a file larger than any lock', at => fs.writeFileSync(at, `${' '.repeat(64 * 1024)}{}`)]
]

describe('what is at the lock path and is no lock of ours', () => {
  const unreadable = process.getuid?.() === 0
  for (const [what, plant] of PLANTED) {
    // root reads a file of mode 000: it is then judged as any lock is, by its holder and age.
    it.skipIf(unreadable && what === 'a file no step can read')(`${what}: moved aside, whole, and the lock taken at once`, async () => {
      // The lock; a stealer's guard, met while a lock is there; a draft, which the holder clears.
      for (const names of [[LOCK_FILE], [LOCK_FILE, `${LOCK_FILE}.steal`], [`${LOCK_FILE}.0123456789ab.tmp`]]) {
        for (const name of names) plant(path.join(dir, name))
        const started = Date.now()
        await withRepositoryLock(dir, () => Promise.resolve(), { timeoutMs: 20_000, staleMs: 10_000 })
        expect(Date.now() - started, names.join()).toBeLessThan(5_000)
        for (const name of names) {
          const aside = fs
            .readdirSync(dir)
            .filter(n => n.startsWith(`${ASIDE_PREFIX}${name}.`) && /^[0-9a-f]{12}$/.test(n.slice(`${ASIDE_PREFIX}${name}.`.length)))
          expect(aside, name).toHaveLength(1)
          if (what === 'a folder with a file in it') expect(fs.readFileSync(path.join(dir, aside[0], 'inside'), 'utf8')).toBe('kept\n')
        }
        expect(fs.readdirSync(dir).filter(n => !n.startsWith(ASIDE_PREFIX))).toEqual([])
        for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name), { recursive: true, force: true })
      }
    })
  }
})

describe("the post's word on what finishes a worktree it could not exit", () => {
  for (const [env, says, saysNot] of [
    [{ RUNNER_NAME: 'runner-1' }, 'The sweep of the next agent-worktree step on this runner', 'No later job sweeps it'],
    [{ RUNNER_NAME: 'GitHub Actions 3', RUNNER_ENVIRONMENT: 'github-hosted' }, 'No later job sweeps it here', 'sweep of the next'],
    [{ RUNNER_NAME: '' }, 'No later job sweeps it here', 'sweep of the next']
  ] as const) {
    it(`promises a sweep only where one runs: ${JSON.stringify(env)}`, () => {
      vi.stubEnv('RUNNER_NAME', env.RUNNER_NAME)
      vi.stubEnv('RUNNER_ENVIRONMENT', 'RUNNER_ENVIRONMENT' in env ? env.RUNNER_ENVIRONMENT : 'self-hosted')
      const lines: string[] = []
      const write = vi.spyOn(process.stdout, 'write').mockImplementation(chunk => lines.push(String(chunk)) > 0)
      try {
        reportExitFailure('/w/wt', new Error('boom'))
      } finally {
        write.mockRestore()
        vi.unstubAllEnvs()
      }
      const [warning] = parseAnnotations(lines.join(''))
      expect(warning.message).toContain(says)
      expect(warning.message).not.toContain(saysNot)
    })
  }
})
