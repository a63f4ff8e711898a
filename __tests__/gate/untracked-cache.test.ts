// Covers: src/gate/safety-gate.ts (inspect) and the environment of src/git/git-command-manager.ts: an untracked cache
// in the worktree's index, which the agent writes, is never believed. The gate lists untracked work with `git status
// --untracked-files=all`, which, unlike `ls-files --others`, reads the index's untracked cache (its UNTR extension)
// where git is told to use one: a cache whose stat data of a folder the agent set to the folder's own would hide a
// file it wrote there. The gate's git is told both ways (core.untrackedCache=false, GIT_DISABLE_UNTRACKED_CACHE): each
// alone keeps the cache out.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { Git } from '../../src/git/git-command-manager.js'
import { inspect, type GateInput } from '../../src/gate/safety-gate.js'
import { git, makeRepos, write, type Repos } from '../helpers/repos.js'

let repos: Repos
let folder: string
let input: GateInput
beforeEach(() => {
  repos = makeRepos()
  folder = path.join(repos.root, 'wt')
  git(repos.clone, 'worktree', 'add', '--quiet', '-b', 'w', folder)
  input = {
    repository: new Git(repos.clone),
    commonDir: path.join(repos.clone, '.git'),
    gitDir: path.join(repos.clone, '.git', 'worktrees', 'wt'),
    folder,
    fileMode: true,
    branchesToDelete: ['w'],
    machineStays: true,
    ownLinks: [],
    expectIndex: true,
    sparse: false,
    baseSha: git(repos.clone, 'rev-parse', 'HEAD'),
    onRemote: () => Promise.resolve({ tips: [] }),
    localRefsSurvive: false,
    indexMemo: {}
  }
})
afterEach(() => repos.cleanup())

/** A folder's stat data as the index keeps it: ctime, mtime (seconds, nanoseconds), dev, ino, uid, gid, size. */
function statData(dir: string): Buffer {
  const s = fs.statSync(dir, { bigint: true })
  const fields = [s.ctimeMs / 1000n, s.ctimeNs % 1_000_000_000n, s.mtimeMs / 1000n, s.mtimeNs % 1_000_000_000n, s.dev, s.ino, s.uid, s.gid, s.size]
  const bytes = Buffer.alloc(36)
  fields.forEach((value, i) => bytes.writeUInt32BE(Number(value & 0xffffffffn), i * 4))
  return bytes
}

it('sees a file an untracked cache forged by the agent leaves out', async () => {
  // The agent's git builds a cache of the folder holding `old`, as the gate's own listing would read it.
  // (git keeps a cache only for the listing status.showUntrackedFiles names.)
  git(folder, 'config', 'core.untrackedCache', 'true')
  git(folder, 'config', 'status.showUntrackedFiles', 'all')
  write(folder, 'a/b/old', 'old\n')
  await new Promise(resolve => setTimeout(resolve, 1100))
  for (let i = 0; i < 2; i++) git(folder, '-c', 'core.excludesFile=/dev/null', 'status', '--porcelain', '--untracked-files=all')
  // Then writes its work there, and sets the cache's stat data of the folder to the folder's new one.
  const before = statData(path.join(folder, 'a', 'b'))
  write(folder, 'a/b/work.txt', 'unsaved\n')
  const after = statData(path.join(folder, 'a', 'b'))
  await new Promise(resolve => setTimeout(resolve, 1100))
  const index = path.join(input.gitDir, 'index')
  const bytes = fs.readFileSync(index)
  const body = bytes.subarray(0, bytes.length - 20)
  const at = body.indexOf(before)
  expect(at).toBeGreaterThan(0)
  const forged = Buffer.concat([body.subarray(0, at), after, body.subarray(at + after.length)])
  fs.writeFileSync(index, Buffer.concat([forged, createHash('sha1').update(forged).digest()]))
  // A git that believes the cache no longer sees the work: the forgery holds.
  const believed = git(folder, '-c', 'core.excludesFile=/dev/null', 'status', '--porcelain', '--untracked-files=all')
  expect(believed).toContain('a/b/old')
  expect(believed).not.toContain('work.txt')

  // The view reads the exclude rules of enter: the same as the cache was built with, which would otherwise void it.
  const findings = await inspect({ ...input, excludes: fs.readFileSync(path.join(input.commonDir, 'info', 'exclude'), 'utf8') })
  expect(findings.error).toBeUndefined()
  expect(findings.uncommitted).toEqual(expect.arrayContaining([{ code: '??', path: 'a/b/work.txt' }]))
})
