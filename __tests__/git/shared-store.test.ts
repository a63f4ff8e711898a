// Covers: src/git/shared-store.ts (verifySharedStore, readObjectsList), src/git/object-store.ts (verifiedList).
// On real git: the shared object store as the main step meets it at enter. The first enter lists it as the workflow
// fetched it; a later one verifies what is not on the list as it is now, refuses a forged file by its name (and
// leaves the list as it was), and lists what git itself wrote (a gc). Nothing new: no git process, no write.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Git } from '../../src/git/git-command-manager.js'
import { readObjectsList, verifySharedStore } from '../../src/git/shared-store.js'
import { commit, git, makeRepos, type Repos } from '../helpers/repos.js'
import { forgeLoose, forgePack } from '../helpers/forged-pack.js'

let repos: Repos
let common: string
let objects: string
let list: string
beforeEach(() => {
  repos = makeRepos()
  common = path.join(repos.clone, '.git')
  objects = path.join(common, 'objects')
  list = path.join(common, 'agent-worktree-objects.json')
  // Loose, as a commit leaves them: git looks in every pack before them.
  commit(repos.clone, 'ci/build.sh', 'echo build\n')
})
afterEach(() => {
  vi.restoreAllMocks()
  repos.cleanup()
})

/** The blob of the base's ci/build.sh, made to stand for a script of an agent's in a pack of its making. */
function forgeScript(): string {
  const blob = fs.mkdtempSync(path.join(repos.root, 'blob-'))
  fs.writeFileSync(path.join(blob, 'build.sh'), 'echo the agent\n')
  const agents = git(repos.clone, 'hash-object', '-w', path.join(blob, 'build.sh'))
  const pack = forgePack(common, objects, agents, git(repos.clone, 'rev-parse', 'HEAD:ci/build.sh'))
  expect(git(repos.clone, 'cat-file', 'blob', 'HEAD:ci/build.sh')).toBe('echo the agent')
  return pack
}

describe('the shared object store at enter', () => {
  it('the first enter lists the store as it is, unhashed: no git process', async () => {
    const run = vi.spyOn(Git.prototype, 'run')
    await verifySharedStore(common)
    expect(run).not.toHaveBeenCalled()
    const head = git(repos.clone, 'rev-parse', 'HEAD')
    expect(Object.keys(readObjectsList(common)!)).toContain(`${head.slice(0, 2)}/${head.slice(2)}`)
  })

  it('a forged pack written after the first enter: the next enter refuses, names it, and leaves the list as it was', async () => {
    await verifySharedStore(common)
    const before = fs.readFileSync(list, 'utf8')
    const pack = forgeScript()
    await expect(verifySharedStore(common)).rejects.toThrow(
      new RegExp(`holds a file that is not what it says \\(the pack pack/${path.basename(pack)} does not hold what its index says.*an agent of an earlier job`)
    )
    expect(fs.readFileSync(list, 'utf8')).toBe(before)
    // And again: a refusal is not a verification.
    await expect(verifySharedStore(common)).rejects.toThrow(path.basename(pack))
  })

  it('a loose object under another name is refused by its name', async () => {
    await verifySharedStore(common)
    const base = git(repos.clone, 'rev-parse', 'HEAD^{tree}')
    forgeLoose(common, objects, git(repos.clone, 'rev-parse', 'HEAD^^{tree}'), base)
    await expect(verifySharedStore(common)).rejects.toThrow(`the loose object ${base.slice(0, 2)}/${base.slice(2)} holds another object's bytes`)
  })

  it("an agent's gc between two enters passes: the new pack is verified and listed, the old ones leave the list", async () => {
    await verifySharedStore(common)
    commit(repos.clone, 'work.txt')
    git(repos.clone, 'gc', '--quiet', '--prune=now')
    const run = vi.spyOn(Git.prototype, 'run')
    await verifySharedStore(common)
    expect(run).toHaveBeenCalled()
    const packs = fs.readdirSync(path.join(objects, 'pack')).map(file => `pack/${file}`)
    expect(Object.keys(readObjectsList(common)!).sort()).toEqual(packs.filter(file => /\.(pack|idx|rev)$/.test(file)).sort())
  })

  it('nothing new since the list: no git process, and the list is not written again', async () => {
    await verifySharedStore(common)
    commit(repos.clone, 'work.txt')
    await verifySharedStore(common)
    const identity = fs.statSync(list).ino
    const run = vi.spyOn(Git.prototype, 'run')
    await verifySharedStore(common)
    expect(run).not.toHaveBeenCalled()
    expect(fs.statSync(list).ino).toBe(identity)
  })

  it('a list that cannot be read (the empty stand-in a sandbox left) verifies the whole store', async () => {
    const pack = forgeScript()
    fs.writeFileSync(list, '')
    expect(readObjectsList(common)).toEqual({})
    await expect(verifySharedStore(common)).rejects.toThrow(path.basename(pack))
  })
})
