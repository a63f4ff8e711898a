// Covers: src/gate/git-answers.ts (dropIndexHints): in a sparse worktree a skip-worktree entry keeps its bit only
// where its file is absent, which a file in place of one of its folders makes it too; the file is looked for by its
// path's bytes, the folder's included.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { inspect } from '../../src/gate/safety-gate.js'
import { git } from '../helpers/repos.js'
import { eachLinkedWorktree } from '../helpers/worktree.js'

const linked = eachLinkedWorktree()

it('a skip-worktree entry under a file where its folder was: absent, and the file is work', async () => {
  git(linked.folder, 'update-index', '--skip-worktree', 'src/app.txt')
  fs.rmSync(path.join(linked.folder, 'src'), { recursive: true })
  fs.writeFileSync(path.join(linked.folder, 'src'), 'a file now\n')
  const findings = await inspect({ ...linked.input, sparse: true })
  expect(findings.error).toBeUndefined()
  expect(findings.uncommitted).toEqual([{ code: '??', path: 'src' }])
})

describe('in a folder whose name is not ASCII', () => {
  const accented = eachLinkedWorktree('wt-café')

  it('a skip-worktree entry whose file is there loses its bit, and an edit of it is work', async () => {
    git(accented.folder, 'update-index', '--skip-worktree', 'src/app.txt')
    fs.writeFileSync(path.join(accented.folder, 'src', 'app.txt'), 'the agent edited it\n')
    const findings = await inspect({ ...accented.input, sparse: true })
    expect(findings.error).toBeUndefined()
    expect(findings.uncommitted).toEqual([{ code: ' M', path: 'src/app.txt' }])
  })
})
