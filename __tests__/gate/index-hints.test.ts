// Covers: src/gate/git-answers.ts (dropIndexHints): in a sparse worktree a skip-worktree entry keeps its bit only
// where its file is absent, which a file in place of one of its folders makes it too.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { inspect, type GateInput } from '../../src/gate/safety-gate.js'
import { git, makeRepos, type Repos } from '../helpers/repos.js'
import { gateOfLinkedWorktree } from '../helpers/worktree.js'

let repos: Repos
let folder: string
let input: GateInput
beforeEach(() => {
  repos = makeRepos()
  ;({ folder, input } = gateOfLinkedWorktree(repos))
})
afterEach(() => repos.cleanup())

it('a skip-worktree entry under a file where its folder was: absent, and the file is work', async () => {
  git(folder, 'update-index', '--skip-worktree', 'src/app.txt')
  fs.rmSync(path.join(folder, 'src'), { recursive: true })
  fs.writeFileSync(path.join(folder, 'src'), 'a file now\n')
  const findings = await inspect({ ...input, sparse: true })
  expect(findings.error).toBeUndefined()
  expect(findings.uncommitted).toEqual([{ code: '??', path: 'src' }])
})
