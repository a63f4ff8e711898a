// Covers: src/exit/exit-options.ts.
// One way from the record of enter to how an exit goes: the post as the main step was told; an exit step by its
// own inputs, else as the main step was told.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { exitOptionsOf, POST_LOCK_TIMEOUT_MS, pullRequestAsked } from '../../src/exit/exit-options.js'
import { sealOf, type WorktreeRecord } from '../../src/record/state-helper.js'
import { TEST_OWNER } from '../helpers/worktree.js'

const record: WorktreeRecord = {
  token: '0123456789abcdef',
  repository: '/repo',
  commonDir: '/repo/.git',
  path: '/wts/a',
  name: 'a',
  branch: 'worktree-a',
  baseSha: 'a'.repeat(40),
  created: true,
  onExit: 'keep',
  onExitGiven: true,
  discardChanges: true,
  rescue: ['branch'],
  rescueMaxBytes: 1024,
  ephemeral: false,
  inWorkspace: false,
  fileMode: true,
  owner: TEST_OWNER,
  push: { remote: 'origin', url: 'https://example.invalid/repo.git' },
  pushTo: 'agent/a'
}

afterEach(() => {
  vi.unstubAllEnvs()
})

describe('exitOptionsOf', () => {
  it('gives the post what the main step was told', () => {
    expect(exitOptionsOf(record)).toEqual({
      onExit: 'keep',
      discardChanges: true,
      step: 'post',
      rescue: ['branch'],
      lockTimeoutMs: POST_LOCK_TIMEOUT_MS,
      pushTo: 'agent/a',
      // A record from before the reclaim input: the folders holding a CACHEDIR.TAG.
      reclaim: { patterns: [], tagged: true }
    })
  })

  it('gives an exit step its own inputs, and the main step’s where it has none', () => {
    vi.stubEnv('ACTIONS_RUNTIME_TOKEN', 'token')
    const own = exitOptionsOf(record, { onExit: 'remove', discardChanges: false, rescue: [], pushTo: 'agent/b', sealed: true })
    expect(own).toMatchObject({ onExit: 'remove', discardChanges: false, step: 'exit', rescue: [], pushTo: 'agent/b', pushTarget: undefined })
    const none = exitOptionsOf(record, { discardChanges: false, sealed: true })
    expect(none).toMatchObject({ onExit: 'keep', rescue: ['branch'], pushTo: 'agent/a' })
    expect(exitOptionsOf(record, { discardChanges: false, pushTo: false, sealed: true }).pushTo).toBeUndefined()
    const reclaim = { patterns: ['node_modules'], tagged: true }
    expect(exitOptionsOf({ ...record, reclaim }, { discardChanges: false, sealed: true }).reclaim).toEqual(reclaim)
    expect(exitOptionsOf({ ...record, reclaim }, { discardChanges: false, sealed: true, reclaim: { patterns: [], tagged: false } }).reclaim).toEqual({
      patterns: [],
      tagged: false
    })
  })

  it('removes what was created and keeps what was entered by path when on-exit was given to neither step', () => {
    const unsaid = { ...record, onExitGiven: false }
    expect(exitOptionsOf(unsaid, { discardChanges: false, sealed: true }).onExit).toBe('remove')
    expect(exitOptionsOf({ ...unsaid, created: false }, { discardChanges: false, sealed: true }).onExit).toBe('keep')
  })

  it('pushes where the record says only where no record can be sealed: no runtime token, no seal key', () => {
    vi.stubEnv('ACTIONS_RUNTIME_TOKEN', '')
    vi.stubEnv('RUNNER_TEMP', '')
    expect(exitOptionsOf(record, { discardChanges: false, sealed: false }).pushTarget).toEqual(record.push)
    vi.stubEnv('ACTIONS_RUNTIME_TOKEN', 'token')
    expect(exitOptionsOf(record, { discardChanges: false, sealed: false }).pushTarget).toBeUndefined()
    // Under act: a seal key in RUNNER_TEMP, so a record without its seal was changed.
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'exit-options-'))
    try {
      vi.stubEnv('ACTIONS_RUNTIME_TOKEN', '')
      vi.stubEnv('RUNNER_TEMP', temp)
      sealOf(record, process.env, true)
      expect(exitOptionsOf(record, { discardChanges: false, sealed: false }).pushTarget).toBeUndefined()
    } finally {
      fs.rmSync(temp, { recursive: true, force: true })
    }
  })
})

describe('pullRequestAsked', () => {
  const asked = { ...record, pullRequest: { draft: true, title: 'Main' } }

  it("follows the main step's ask, under the title given last; an exit step's own input wins", () => {
    expect(pullRequestAsked(asked, 'agent/a')).toEqual({ draft: true, title: 'Main' })
    expect(pullRequestAsked(asked, 'agent/a', { pullRequestTitle: 'Exit' })).toEqual({ draft: true, title: 'Exit' })
    expect(pullRequestAsked(asked, 'agent/a', { pullRequest: { draft: false } })).toEqual({ draft: false, title: 'Main' })
    expect(pullRequestAsked(record, 'agent/a', { pullRequest: { draft: false } })).toEqual({ draft: false, title: undefined })
    expect(pullRequestAsked(asked, 'agent/a', { pullRequest: false })).toBeUndefined()
  })

  it('opens none where nothing is pushed', () => {
    expect(pullRequestAsked(asked, undefined)).toBeUndefined()
    expect(pullRequestAsked(record, 'agent/a')).toBeUndefined()
  })
})
