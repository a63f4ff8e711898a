// Covers: src/git/object-store.ts (listStore, writtenSince, unverified).
// On real git: what an agent can write into an object store so that an id stands for other bytes (a pack whose index
// names one object by another's id, a loose object under another's name) is found, and what git itself writes (a
// commit, a gc that packs the whole store anew) passes; nothing at all is written: no file to verify.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { listStore, unverified, writtenSince } from '../../src/git/object-store.js'
import { commit, git, makeRepos, type Repos } from '../helpers/repos.js'
import { forgeLoose, forgePack } from '../helpers/forged-pack.js'

let repos: Repos
let gitDir: string
let objects: string
let base: string
let parent: string
beforeEach(() => {
  repos = makeRepos()
  gitDir = path.join(repos.clone, '.git')
  objects = path.join(gitDir, 'objects')
  commit(repos.clone, 'one.txt')
  parent = git(repos.clone, 'rev-parse', 'HEAD')
  base = commit(repos.clone, 'two.txt')
  git(repos.clone, 'gc', '--quiet')
})
afterEach(() => repos.cleanup())

const check = async (before: ReturnType<typeof listStore> | undefined): Promise<string | undefined> => unverified(objects, writtenSince(objects, before))

describe('the object store since a list of it', () => {
  it('nothing written: nothing to verify', () => {
    expect(writtenSince(objects, listStore(objects))).toEqual([])
  })

  it('commits and a gc that packs everything anew pass', async () => {
    const before = listStore(objects)
    commit(repos.clone, 'three.txt')
    expect(writtenSince(objects, before).length).toBeGreaterThan(0)
    expect(await check(before)).toBeUndefined()
    git(repos.clone, 'gc', '--quiet', '--prune=now')
    expect(writtenSince(objects, before).some(file => file.endsWith('.pack'))).toBe(true)
    expect(await check(before)).toBeUndefined()
  })

  it('a pack whose index names the base by its parent is found, and git does read it so', async () => {
    const before = listStore(objects)
    forgePack(gitDir, objects, parent, base)
    // What every later reader of the store sees: the base's id, the parent's bytes.
    expect(git(repos.clone, 'cat-file', '-p', base)).toBe(git(repos.clone, 'cat-file', '-p', parent))
    expect(await check(before)).toMatch(/^the pack pack\/pack-[0-9a-f]{40}\.pack does not hold what its index says/)
  })

  it('a loose object under another name is found', async () => {
    const before = listStore(objects)
    const tree = git(repos.clone, 'rev-parse', `${base}^{tree}`)
    forgeLoose(gitDir, objects, git(repos.clone, 'rev-parse', `${parent}^{tree}`), tree)
    expect(await check(before)).toBe(`the loose object ${tree.slice(0, 2)}/${tree.slice(2)} holds another object's bytes`)
  })

  it('a loose object pruned between the listing and its reading (a gc in the background) is nothing to believe; one that is no file is found', async () => {
    const before = listStore(objects)
    fs.writeFileSync(path.join(repos.clone, 'loose.txt'), 'loose\n')
    const blob = git(repos.clone, 'hash-object', '-w', 'loose.txt')
    const file = `${blob.slice(0, 2)}/${blob.slice(2)}`
    const written = writtenSince(objects, before)
    expect(written).toContain(file)
    fs.rmSync(path.join(objects, file))
    expect(await unverified(objects, written)).toBeUndefined()
    fs.mkdirSync(path.join(objects, file))
    expect(await unverified(objects, written)).toBe(`the loose object ${file} is not a file`)
  })

  it('a pack file changed in place is verified again; an old time set on it does not hide it', async () => {
    const pack = Object.keys(listStore(objects)).find(file => file.endsWith('.idx'))!
    const file = path.join(objects, pack)
    const before = listStore(objects)
    const { atime, mtime } = fs.statSync(file)
    fs.chmodSync(file, 0o644)
    fs.writeFileSync(file, fs.readFileSync(file))
    fs.utimesSync(file, atime, mtime)
    expect(writtenSince(objects, before)).toEqual([pack])
    expect(await check(before)).toBeUndefined()
  })

  it('a file verified once is not hashed again while it stays as it was: the second look starts no git', async () => {
    commit(repos.clone, 'three.txt')
    git(repos.clone, 'gc', '--quiet')
    expect(await check(undefined)).toBeUndefined()
    const searched = process.env.PATH
    process.env.PATH = ''
    try {
      expect(await check(undefined)).toBeUndefined()
    } finally {
      process.env.PATH = searched
    }
  })

  it('without a list, every file is verified', async () => {
    forgePack(gitDir, objects, parent, base)
    expect(await check(undefined)).toMatch(/does not hold what its index says/)
  })

  it("a new reverse index that is not the pack's is found", async () => {
    const before = listStore(objects)
    commit(repos.clone, 'three.txt')
    git(repos.clone, '-c', 'pack.writeReverseIndex=true', 'repack', '-q')
    const rev = writtenSince(objects, before).find(file => file.endsWith('.rev'))!
    expect(await check(before)).toBeUndefined()
    const bytes = fs.readFileSync(path.join(objects, rev))
    fs.chmodSync(path.join(objects, rev), 0o644)
    // Two positions swapped: a reverse index that points each offset at another object.
    const a = bytes.subarray(12, 16).toString('hex')
    bytes.subarray(16, 20).copy(bytes, 12)
    Buffer.from(a, 'hex').copy(bytes, 16)
    fs.writeFileSync(path.join(objects, rev), bytes)
    expect(await check(before)).toMatch(/does not hold what its index says/)
  })

  it('a sha256 repository: its packs and loose objects pass, a loose object under another name is found', async () => {
    const repo = path.join(repos.root, 'sha256')
    git(repos.root, 'init', '--quiet', '--object-format=sha256', repo)
    commit(repo, 'one.txt')
    const first = git(repo, 'rev-parse', 'HEAD')
    git(repo, 'gc', '--quiet')
    const second = commit(repo, 'two.txt')
    const store = path.join(repo, '.git', 'objects')
    expect(await unverified(store, writtenSince(store, undefined))).toBeUndefined()
    const before = listStore(store)
    forgeLoose(path.join(repo, '.git'), store, first, second)
    expect(await unverified(store, writtenSince(store, before))).toBe(`the loose object ${second.slice(0, 2)}/${second.slice(2)} holds another object's bytes`)
  })
})
