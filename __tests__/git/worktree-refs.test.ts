// Covers: src/git/worktree-refs.ts (writeRef, deleteRef, unlinkRefLinks).
// Every ref the action writes or deletes, on real git: a link the agent put on the way to the loose ref, its reflog
// or packed-refs (all in the common dir, which it writes) leads no write of ours out of the repository.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git-command-manager.js'
import { deleteRef, writeRef } from '../../src/git/worktree-refs.js'
import { git, makeRepos, type Repos } from '../helpers/repos.js'

let repos: Repos
let common: string
let elsewhere: string
let head: string
beforeEach(() => {
  repos = makeRepos()
  common = path.join(repos.clone, '.git')
  elsewhere = path.join(repos.root, 'elsewhere')
  fs.mkdirSync(elsewhere)
  head = git(repos.clone, 'rev-parse', 'HEAD')
})
afterEach(() => repos.cleanup())

const REF = 'refs/agent-worktree/kept/x/0123456789abcdef'

describe('writeRef and deleteRef', () => {
  for (const link of ['refs/agent-worktree', 'refs/agent-worktree/kept', 'logs/refs/agent-worktree']) {
    it(`write and delete the ref in the repository, whatever a link at ${link} points to`, async () => {
      fs.mkdirSync(path.dirname(path.join(common, link)), { recursive: true })
      fs.symlinkSync(elsewhere, path.join(common, link))
      const written = await writeRef(new Git(repos.clone), REF, head, { log: common, message: 'agent-worktree: kept' })
      expect(written.exitCode, written.stderr).toBe(0)
      expect(fs.readdirSync(elsewhere)).toEqual([])
      expect(fs.readFileSync(path.join(common, ...REF.split('/')), 'utf8').trim()).toBe(head)
      fs.rmSync(path.join(common, link), { recursive: true, force: true })
      fs.mkdirSync(path.dirname(path.join(common, link)), { recursive: true })
      fs.symlinkSync(elsewhere, path.join(common, link))
      await deleteRef(new Git(repos.clone), REF, { log: common })
      expect(fs.readdirSync(elsewhere)).toEqual([])
    })
  }

  it('delete a packed ref in the repository own packed-refs: a link there is replaced by what it pointed to, which stays as it was', async () => {
    await writeRef(new Git(repos.clone), REF, head, { log: common, required: true })
    git(repos.clone, 'pack-refs', '--all')
    const target = path.join(elsewhere, 'packed-refs')
    fs.renameSync(path.join(common, 'packed-refs'), target)
    fs.symlinkSync(target, path.join(common, 'packed-refs'))
    const was = fs.readFileSync(target, 'utf8')
    expect(was).toContain(REF)
    const deleted = await deleteRef(new Git(repos.clone), REF, { log: common })
    expect(deleted.exitCode, deleted.stderr).toBe(0)
    expect(fs.readFileSync(target, 'utf8')).toBe(was)
    expect(fs.readdirSync(elsewhere)).toEqual(['packed-refs'])
    expect(fs.lstatSync(path.join(common, 'packed-refs')).isFile()).toBe(true)
    expect(git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/', 'refs/heads/')).toBe('refs/heads/main')
  })
})
