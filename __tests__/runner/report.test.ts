// Covers: src/runner/report.ts.
// The report turns what the gate found, which is data, into words: the counts of a message, and each item as
// the summary and the warnings list it.
import { describe, expect, it } from 'vitest'
import type { Findings } from '../../src/gate/safety-gate.js'
import { describeCommit, describeFindings, describeNested, describeSpecial, describeUncommitted } from '../../src/runner/report.js'

const none = { nested: [], tips: [] }
const clean: Findings = { uncommitted: [], unsavedCommits: [], ...none }
const dirty: Findings = { uncommitted: [{ code: '??', path: 'a.txt' }], unsavedCommits: [], ...none }

describe('describing what was found', () => {
  it('counts with the right plural', () => {
    expect(describeFindings(clean)).toBe('nothing unsaved')
    expect(describeFindings(dirty)).toBe('1 uncommitted file')
    const many: Findings = {
      uncommitted: [
        { code: '??', path: 'a' },
        { code: ' M', path: 'b' }
      ],
      unsavedCommits: ['c', 'd', 'e'].map(commit => ({ commit, subject: 'work' })),
      ...none
    }
    expect(describeFindings(many)).toBe('2 uncommitted files and 3 unsaved commits')
  })

  it('names each item as git shows it', () => {
    expect(describeUncommitted({ code: ' M', path: 'src/a: b.txt' })).toBe(' M src/a: b.txt')
    expect(describeCommit({ commit: 'abc123456789', subject: 'fix: the flaky test' })).toBe('abc123456789 fix: the flaky test')
    expect(describeCommit({ commit: 'abc1234', subject: 'add fix.txt', submodule: 'lib' })).toBe('lib: abc1234 add fix.txt')
    expect(describeSpecial({ path: 'pipe', kind: 'fifo' })).toBe('pipe (a named pipe)')
  })

  it('says what a nested repository holds, at any depth', () => {
    expect(describeNested({ path: 'vendor', what: 'repository', state: 'commits' })).toBe('vendor: a repository with commits that no remote has')
    expect(describeNested({ path: 'b', what: 'bare repository', state: 'commits' })).toBe('b: a bare repository with commits')
    expect(describeNested({ path: 'w', what: 'worktree', state: 'uncommitted', files: 1 })).toBe('w: a worktree with 1 uncommitted file')
    expect(describeNested({ path: 'lib', what: 'submodule', state: 'too-deep' })).toBe('lib: a submodule nested too deep to look into')
    expect(
      describeNested({
        path: 'outer',
        what: 'repository',
        state: 'holding',
        inside: [
          { path: 'inner', what: 'repository', state: 'uncommitted', files: 2 },
          { path: 'x', what: 'worktree', state: 'locked' }
        ]
      })
    ).toBe('outer: a repository holding inner: a repository with 2 uncommitted files; x: a locked worktree')
  })
})
