// Covers: src/gate/safety-gate.ts (inspect) and the environment of src/git/git-command-manager.ts: an untracked cache
// in the worktree's index, which the agent writes, is never believed. The gate lists untracked work with `git status
// --untracked-files=all`, which, unlike `ls-files --others`, reads the index's untracked cache (its UNTR extension)
// where git is told to use one: a cache whose stat data of a folder the agent set to the folder's own would hide a
// file it wrote there. The gate's git is told both ways (core.untrackedCache=false, GIT_DISABLE_UNTRACKED_CACHE): each
// alone keeps the cache out.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { expect, it } from 'vitest'
import { inspect } from '../../src/gate/safety-gate.js'
import { forgeUntrackedCache } from '../helpers/forged-index.js'
import { git, write } from '../helpers/repos.js'
import { eachLinkedWorktree } from '../helpers/worktree.js'

const linked = eachLinkedWorktree()

it('sees a file an untracked cache forged by the agent leaves out', async () => {
  // The agent's git builds a cache of the folder holding `old`, as the gate's own listing would read it.
  // (git keeps a cache only for the listing status.showUntrackedFiles names.)
  git(linked.folder, 'config', 'core.untrackedCache', 'true')
  git(linked.folder, 'config', 'status.showUntrackedFiles', 'all')
  write(linked.folder, 'a/b/old', 'old\n')
  await new Promise(resolve => setTimeout(resolve, 1100))
  for (let i = 0; i < 2; i++) git(linked.folder, '-c', 'core.excludesFile=/dev/null', 'status', '--porcelain', '--untracked-files=all')
  // Then writes its work there, and sets the cache's stat data of the folder to the folder's new one.
  await forgeUntrackedCache(path.join(linked.input.gitDir, 'index'), path.join(linked.folder, 'a', 'b'), () =>
    write(linked.folder, 'a/b/work.txt', 'unsaved\n')
  )
  // A git that believes the cache no longer sees the work: the forgery holds.
  const believed = git(linked.folder, '-c', 'core.excludesFile=/dev/null', 'status', '--porcelain', '--untracked-files=all')
  expect(believed).toContain('a/b/old')
  expect(believed).not.toContain('work.txt')

  // The view reads the exclude rules of enter: the same as the cache was built with, which would otherwise void it.
  const findings = await inspect({ ...linked.input, excludes: fs.readFileSync(path.join(linked.input.commonDir, 'info', 'exclude'), 'utf8') })
  expect(findings.error).toBeUndefined()
  expect(findings.uncommitted).toEqual(expect.arrayContaining([{ code: '??', path: 'a/b/work.txt' }]))
})
