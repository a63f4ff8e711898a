// Covers: src/exit/kinds/.
// The kind of a record is chosen once, from its isolation; each kind keeps its folders of ours where git and
// earlier versions of this action put them, so that what a job left is found by the next one.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { KINDS, kindFor } from '../../src/exit/kinds/kind.js'

let root: string | undefined
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true })
  root = undefined
})

describe('the kinds', () => {
  it('are chosen by the record’s isolation: a worktree unless it says clone', () => {
    const [worktree, clone] = KINDS
    expect(kindFor({})).toBe(worktree)
    expect(kindFor({ isolation: 'worktree' })).toBe(worktree)
    expect(kindFor({ isolation: 'clone' })).toBe(clone)
  })

  it('keep a worktree’s lock and record in its git dir, a clone’s in a folder of ours beside, its git dir in its folder', () => {
    const [worktree, clone] = KINDS
    expect(worktree.entry('/r/.git', 'a')).toBe(path.join('/r/.git', 'worktrees', 'a'))
    expect(worktree.gitDir(worktree.entry('/r/.git', 'a'), '/w/a')).toBe(path.join('/r/.git', 'worktrees', 'a'))
    expect(worktree.pointer('/r/.git/worktrees/a')).toBe('/r/.git/worktrees/a')
    expect(clone.entry('/r/.git', 'a')).toBe(path.join('/r/.git', 'agent-worktree-clones', 'a'))
    expect(clone.gitDir(clone.entry('/r/.git', 'a'), '/w/a')).toBe(path.join('/w/a', '.git'))
    expect(clone.pointer(path.join('/w/a', '.git'))).toBe('.git')
    expect([worktree.ownRepository, clone.ownRepository]).toEqual([false, true])
  })

  it('list only their own folders of ours', () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'kinds-'))
    const [worktree, clone] = KINDS
    for (const entry of [worktree.entry(root, 'a'), worktree.entry(root, 'b'), clone.entry(root, 'c')]) fs.mkdirSync(entry, { recursive: true })
    expect(worktree.entries(root).sort()).toEqual([worktree.entry(root, 'a'), worktree.entry(root, 'b')])
    expect(clone.entries(root)).toEqual([clone.entry(root, 'c')])
    expect(clone.entries(path.join(root, 'none'))).toEqual([])
  })
})
