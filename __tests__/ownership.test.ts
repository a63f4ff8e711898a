// Whose is a worktree: one pure answer from its lock and its record's token, for every caller's policy.
import { describe, expect, it } from 'vitest'
import { heldBackLock, lockReason, ownershipOf, parkedLock, parseLock, type Ownership } from '../src/ownership.js'
import { TEST_OWNER } from './helpers/worktree.js'

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
