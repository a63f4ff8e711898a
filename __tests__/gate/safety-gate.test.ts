// Covers: src/gate/findings.ts (the verdict).
import { describe, expect, it } from 'vitest'
import { decide, type Findings } from '../../src/gate/findings.js'

const none = { nested: [], tips: [] }
const clean: Findings = { uncommitted: [], unsavedCommits: [], ...none }
const dirty: Findings = { uncommitted: [{ code: '??', path: 'a.txt' }], unsavedCommits: [], ...none }
const ahead: Findings = { uncommitted: [], unsavedCommits: [{ commit: 'abc1234', subject: 'work' }], ...none }
const unknown: Findings = { uncommitted: [], unsavedCommits: [], ...none, error: 'fatal: bad object' }

describe('the verdict', () => {
  it.each([
    ['keep', false, clean, 'keep-asked'],
    ['keep', true, dirty, 'keep-asked'],
    ['remove', false, clean, 'remove-clean'],
    ['remove', true, clean, 'remove-clean'],
    ['remove', false, dirty, 'keep-unsaved'],
    ['remove', false, ahead, 'keep-unsaved'],
    ['remove', true, dirty, 'remove-discard'],
    ['remove', true, ahead, 'remove-discard'],
    // Unknown state is kept, whatever discard-changes says.
    ['remove', false, unknown, 'keep-unknown'],
    ['remove', true, unknown, 'keep-unknown']
  ] as const)('on-exit %s, discard %s, %j → %s', (onExit, discard, findings, verdict) => {
    expect(decide(onExit, discard, findings)).toBe(verdict)
  })
})
