// Covers: src/record/ownership.ts.
// Whose is a worktree: one pure answer from its lock and its record's token, for every caller's policy; and
// whether the job that holds it is provably over.
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import {
  heldBackLock,
  jobOver,
  lockReason,
  ownershipOf,
  parkedLock,
  parseLock,
  recordMatchesLock,
  type Owner,
  type Ownership
} from '../../src/record/ownership.js'
import { pidSpace, startTime } from '../../src/os/processes.js'
import { TEST_OWNER } from '../helpers/worktree.js'

const OURS = '0123456789abcdef'
const THEIRS = 'fedcba9876543210'

describe('lock reasons', () => {
  it('read back as what wrote them', () => {
    expect(parseLock(undefined)).toEqual({ kind: 'unlocked' })
    expect(parseLock('initializing')).toEqual({ kind: 'initializing' })
    expect(parseLock(lockReason(OURS, TEST_OWNER))).toEqual({ kind: 'job', token: OURS })
    expect(parseLock(parkedLock('2026-12-01T00:00:00.000Z'))).toEqual({ kind: 'parked', since: Date.parse('2026-12-01T00:00:00.000Z') })
    expect(parseLock(parkedLock('not a time'))).toEqual({ kind: 'parked', since: undefined })
    expect(parseLock(heldBackLock('it holds 1 uncommitted file'))).toEqual({ kind: 'held-back' })
    expect(parseLock('')).toEqual({ kind: 'other', reason: '' })
    expect(parseLock('kept by hand')).toEqual({ kind: 'other', reason: 'kept by hand' })
    // A token must be 16 hex digits, at the start: a reason that merely mentions one is someone else's.
    expect(parseLock(`see agent-worktree ${OURS}: elsewhere`).kind).toBe('other')
    expect(parseLock(`agent-worktree ${OURS.toUpperCase()}: job`).kind).toBe('other')
  })

  it('never carry a newline (a reason is one line of git worktree list)', () => {
    expect(lockReason(OURS, { ...TEST_OWNER, job: 'a\nb' })).not.toMatch(/\n/)
    expect(heldBackLock('a\nb')).not.toMatch(/\n/)
  })
})

describe('ownershipOf(lock, record token, our token)', () => {
  const table: [string, string | undefined, string | undefined, Ownership][] = [
    ['our lock', lockReason(OURS, TEST_OWNER), undefined, 'ours'],
    ['our lock, another record', lockReason(OURS, TEST_OWNER), THEIRS, 'ours'],
    ['unlocked, our record', undefined, OURS, 'ours'],
    ['mid-add, our record', 'initializing', OURS, 'ours'],
    ['mid-add, no record', 'initializing', undefined, 'initializing'],
    ['unlocked, no record', undefined, undefined, 'unlocked'],
    ['unlocked, another record', undefined, THEIRS, 'unlocked'],
    ['another job’s lock', lockReason(THEIRS, TEST_OWNER), undefined, 'another-job'],
    ['another job’s lock, our record', lockReason(THEIRS, TEST_OWNER), OURS, 'another-job'],
    ['parked', parkedLock('2026-12-01T00:00:00.000Z'), OURS, 'parked'],
    ['taken out of the pool', heldBackLock('it holds 1 uncommitted file'), OURS, 'held-back'],
    ['locked by hand', 'do not touch', OURS, 'foreign'],
    ['locked without a reason', '', OURS, 'foreign']
  ]
  it.each(table)('%s', (_what, lock, record, expected) => {
    expect(ownershipOf(lock, record, OURS)).toBe(expected)
  })
})

describe("recordMatchesLock(lock, record): a job's lock and a record of one token", () => {
  const table: [string, string | undefined, string | undefined, boolean][] = [
    ['the lock’s token', lockReason(OURS, TEST_OWNER), OURS, true],
    ['another token', lockReason(OURS, TEST_OWNER), THEIRS, false],
    ['no record', lockReason(OURS, TEST_OWNER), undefined, false],
    ['unlocked', undefined, OURS, false],
    ['mid-add', 'initializing', OURS, false],
    ['parked', parkedLock('2026-12-01T00:00:00.000Z'), OURS, false],
    ['a lock that merely mentions the token', `see agent-worktree ${OURS}: elsewhere`, OURS, false]
  ]
  it.each(table)('%s', (_what, lock, token, expected) => {
    expect(recordMatchesLock(lock, token === undefined ? undefined : { token })).toBe(expected)
  })
})

describe('jobOver(owner, me): a runner process is looked up only where its pid names it', () => {
  const space = pidSpace()!
  const [namespace, boot] = space.split(' ')
  const ended = { pid: Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout) }
  const running = { pid: process.pid, start: startTime(process.pid) }
  const me: Owner = { ...TEST_OWNER, runner: 'runner-a', workFolder: '/a/_work', tracking: 'github_a', pidSpace: space, since: new Date().toISOString() }
  const other: Owner = { ...TEST_OWNER, runner: 'runner-b', workFolder: '/b/_work', tracking: 'github_b', since: new Date().toISOString() }
  const weekAgo = new Date(Date.now() - 7 * 86_400_000).toISOString()
  const table: [string, Owner, RegExp | undefined][] = [
    ['its runner process ended, same pid namespace and boot', { ...other, worker: ended, pidSpace: space }, /runner process has ended/],
    ['its runner process is alive, same pid namespace and boot', { ...other, worker: running, pidSpace: space }, undefined],
    ['its pid is unknown here, another pid namespace (another container)', { ...other, worker: ended, pidSpace: `pid:[1] ${boot}` }, undefined],
    ['its pid is unknown here, another boot', { ...other, worker: ended, pidSpace: `${namespace} another-boot` }, undefined],
    ['its pid is unknown here, no namespace recorded', { ...other, worker: ended }, undefined],
    [
      'another pid namespace, but an earlier job of this runner',
      { ...me, tracking: 'github_earlier', worker: running, pidSpace: `pid:[1] ${boot}` },
      /an earlier job of this runner/
    ],
    ['another pid namespace, but older than any job', { ...other, worker: running, pidSpace: `pid:[1] ${boot}`, since: weekAgo }, /started 7 days ago/],
    ['its runner process ended on another host', { ...other, host: 'another-host', worker: ended, pidSpace: space }, undefined]
  ]
  it.each(table)('%s', (_what, owner, over) => {
    const said = jobOver(owner, me)
    if (over) expect(said).toMatch(over)
    else expect(said).toBeUndefined()
  })
})
