// Covers: src/gate/safety-gate.ts (the sealed view of a worktree opens in the repository's object format before its
// HEAD is read) in a repository of SHA-256 objects: a clean worktree is removed, one with work is kept.
import * as fs from 'node:fs'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createLikeMain, exitAs } from '../helpers/worktree.js'
import { makeRepos, write, type Repos } from '../helpers/repos.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos(undefined, 'sha256')
})
afterEach(() => repos.cleanup())

it('removes a clean worktree of a SHA-256 repository', async () => {
  const record = createLikeMain(repos, 'clean')
  expect(record.baseSha).toMatch(/^[0-9a-f]{64}$/)
  const result = await exitAs(record)
  expect(result.message).toMatch(/Removed/)
  expect(fs.existsSync(record.path)).toBe(false)
})

it('keeps one with a changed file and a new one, and counts them', async () => {
  const record = createLikeMain(repos, 'worked')
  write(record.path, 'src/app.txt', 'changed\n')
  write(record.path, 'new.txt', 'new\n')
  const result = await exitAs(record)
  expect(result.removed).toBe(false)
  expect(result.message).toMatch(/2 uncommitted files/)
  expect(result.message).not.toMatch(/could not be determined/)
  expect(fs.readFileSync(`${record.path}/src/app.txt`, 'utf8')).toBe('changed\n')
})
