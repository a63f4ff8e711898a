// Covers: src/record/state-helper.ts (sealOf, isSealed, canSeal).
// A record's seal: keyed with the job's runtime token on a runner; where no step has one (nektos/act), with a key
// the main step writes into the job's RUNNER_TEMP; with neither, no seal at all.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { canSeal, isSealed, sealOf, type WorktreeRecord } from '../../src/record/state-helper.js'

let temp: string
beforeEach(() => {
  temp = fs.mkdtempSync(path.join(os.tmpdir(), 'seal-'))
})
afterEach(() => fs.rmSync(temp, { recursive: true, force: true }))

const record = { token: 't', repository: '/r', commonDir: '/r/.git', path: '/w', name: 'n', branch: 'b', baseSha: 'a'.repeat(40) } as WorktreeRecord

describe('the seal of a record', () => {
  it('on a runner: keyed with the runtime token, whatever RUNNER_TEMP holds', () => {
    const env = { ACTIONS_RUNTIME_TOKEN: 'token', RUNNER_TEMP: temp }
    const mac = sealOf(record, env, true)
    expect(isSealed({ ...record, mac }, env)).toBe(true)
    expect(isSealed({ ...record, mac }, { ...env, ACTIONS_RUNTIME_TOKEN: 'another job' })).toBe(false)
    expect(fs.readdirSync(temp)).toEqual([])
  })

  it('without a runtime token: keyed with the key the first writer made in RUNNER_TEMP, readable by its user only', () => {
    const env = { RUNNER_TEMP: temp }
    expect(canSeal(env)).toBe(false)
    // A reader makes no key: nothing it computes matches a seal.
    expect(sealOf(record, env)).toBeUndefined()
    const mac = sealOf(record, env, true)
    expect(mac).toMatch(/^[0-9a-f]{64}$/)
    expect(canSeal(env)).toBe(true)
    expect(fs.statSync(path.join(temp, 'agent-worktree-seal.key')).mode & 0o777).toBe(0o600)
    expect(isSealed({ ...record, mac }, env)).toBe(true)
    expect(isSealed({ ...record, baseSha: 'b'.repeat(40), mac }, env)).toBe(false)
    // Another job's RUNNER_TEMP (act makes one per job) has another key.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'seal-'))
    try {
      expect(isSealed({ ...record, mac }, { RUNNER_TEMP: other })).toBe(false)
    } finally {
      fs.rmSync(other, { recursive: true, force: true })
    }
  })

  it('with neither a runtime token nor a RUNNER_TEMP: no seal', () => {
    expect(sealOf(record, {}, true)).toBeUndefined()
    expect(canSeal({})).toBe(false)
  })
})
