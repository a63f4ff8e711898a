// Covers: src/gate/safety-gate.ts (inspect: the check again just before a removal, and its index memo).
// The check again reads the worktree anew, but for the index's hints: where the index holds the bytes the first pass
// copied, the first pass's answer without them serves, and git is not asked again. An index changed in between, and
// every file, are read anew.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, expect, it, vi } from 'vitest'
import { Git } from '../../src/git/git-command-manager.js'
import { inspect, type IndexMemo } from '../../src/gate/safety-gate.js'
import { git, write } from '../helpers/repos.js'
import { eachLinkedWorktree } from '../helpers/worktree.js'

const linked = eachLinkedWorktree()
afterEach(() => vi.restoreAllMocks())

/** The git commands the gate starts while `fn` runs. */
async function commands<T>(fn: () => Promise<T>): Promise<{ value: T; run: string[] }> {
  const run: string[] = []
  const original = Git.prototype.run
  vi.spyOn(Git.prototype, 'run').mockImplementation(function (this: Git, args, options) {
    run.push(args[0])
    return original.call(this, args, options)
  })
  const value = await fn()
  vi.restoreAllMocks()
  return { value, run }
}

it('an index unchanged since the first pass is not read again; an edit that keeps size and times is still seen', async () => {
  const first = await inspect(linked.input)
  expect(first.uncommitted).toEqual([])
  expect((linked.input.indexMemo as IndexMemo).hash).toBeTruthy()
  // Same size, same times: only the bytes differ, as an index's stat data would hide.
  const file = path.join(linked.folder, 'src', 'app.txt')
  const { atime, mtime } = fs.statSync(file)
  fs.writeFileSync(file, 'APP\n')
  fs.utimesSync(file, atime, mtime)
  const again = await commands(() => inspect({ ...linked.input, previous: first }))
  expect(again.value.uncommitted).toEqual([{ code: ' M', path: 'src/app.txt' }])
  // The one ls-files is the listing of every path outside the index: the index itself is not listed again.
  expect(again.run.filter(c => c === 'ls-files')).toHaveLength(1)
})

it('an index changed since the first pass is read again', async () => {
  const first = await inspect(linked.input)
  write(linked.folder, 'staged.txt', 'new\n')
  git(linked.folder, 'add', 'staged.txt')
  const again = await commands(() => inspect({ ...linked.input, previous: first }))
  expect(again.value.uncommitted).toEqual([{ code: 'A ', path: 'staged.txt' }])
  // Listed again (the index, and every path outside it), and written again for the view without its hints.
  expect(again.run.filter(c => c === 'ls-files')).toHaveLength(2)
})

it('without a memo, or in a sparse worktree, each pass reads the index', async () => {
  for (const memo of [{ indexMemo: undefined }, { sparse: true }]) {
    const first = await inspect({ ...linked.input, ...memo })
    const again = await commands(() => inspect({ ...linked.input, ...memo, previous: first }))
    expect(again.run.filter(c => c === 'ls-files')).toHaveLength(2)
  }
})
