// Covers: src/git/index-file.ts, the index a sealed view gets, written from git's listing of the agent's index:
// git reads back exactly the entries it listed, with no stat data but ours and no bit but a kept skip-worktree; and
// an index so written reads back as it was written.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { indexBytes, indexReader, writeIndexFile, type IndexEntry } from '../../src/git/index-file.js'
import { git } from '../helpers/repos.js'

let root: string
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'index-file-')))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

/** git's listing of an index file, raw: `<mode> <object> <stage>\t<path>` per entry, NUL-ended. */
function listing(repo: string, index: string, ...options: string[]): Buffer {
  return execFileSync('git', ['ls-files', '-s', '-z', ...options], { cwd: repo, env: { ...process.env, GIT_INDEX_FILE: index } })
}

/** The entries of a listing, as the gate hands them to the writer. */
function entriesOf(listed: Buffer): IndexEntry[] {
  return listed
    .toString('latin1')
    .split('\0')
    .filter(Boolean)
    .map(field => {
      const [, mode, object, stage, name] = /^(\d+) ([0-9a-f]+) (\d)\t(.*)$/s.exec(field)!
      return { mode, object, stage: Number(stage), name: Buffer.from(name, 'latin1') }
    })
}

/** A repository whose index holds every kind of entry: files, an executable, a link, a submodule, a conflict, odd and long names. */
function variedRepository(objectFormat: 'sha1' | 'sha256'): string {
  const repo = path.join(root, objectFormat)
  git(root, 'init', '--quiet', '-b', 'main', `--object-format=${objectFormat}`, repo)
  for (const [k, v] of Object.entries({ 'user.email': 'a@example.com', 'user.name': 'A' })) git(repo, 'config', k, v)
  fs.writeFileSync(path.join(repo, 'a.txt'), 'a\n')
  fs.writeFileSync(path.join(repo, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 })
  fs.symlinkSync('a.txt', path.join(repo, 'link'))
  fs.writeFileSync(Buffer.from(path.join(repo, 'caf\xe9.txt'), 'latin1'), 'not UTF-8\n')
  fs.writeFileSync(path.join(repo, 'both.txt'), 'base\n')
  git(repo, 'add', '-A')
  git(repo, 'commit', '--quiet', '-m', 'base')
  // A conflict: stages 1 to 3 of both.txt.
  git(repo, 'checkout', '--quiet', '-b', 'other')
  fs.writeFileSync(path.join(repo, 'both.txt'), 'other\n')
  git(repo, 'commit', '--quiet', '-am', 'other')
  git(repo, 'checkout', '--quiet', 'main')
  fs.writeFileSync(path.join(repo, 'both.txt'), 'main\n')
  git(repo, 'commit', '--quiet', '-am', 'main')
  expect(() => git(repo, 'merge', '--quiet', 'other')).toThrow()
  // A gitlink, and a name longer than the 12 bits of an entry's name length: entries of the index alone.
  git(repo, 'update-index', '--add', '--cacheinfo', `160000,${git(repo, 'rev-parse', 'HEAD')},sub`)
  const long = `${Array.from({ length: 17 }, () => 'n'.repeat(250)).join('/')}/long.txt`
  git(repo, 'update-index', '--add', '--cacheinfo', `100644,${git(repo, 'rev-parse', 'HEAD:a.txt')},${long}`)
  return repo
}

for (const objectFormat of ['sha1', 'sha256'] as const) {
  it(`git reads back every entry it listed, with no stat data (${objectFormat})`, () => {
    const repo = variedRepository(objectFormat)
    const original = path.join(repo, '.git', 'index')
    const listed = listing(repo, original)
    const entries = entriesOf(listed)
    expect(entries.map(e => e.stage)).toEqual(expect.arrayContaining([1, 2, 3]))
    expect(Math.max(...entries.map(e => e.name.length))).toBeGreaterThan(0xfff)
    expect(entries.map(e => e.mode)).toEqual(expect.arrayContaining(['100644', '100755', '120000', '160000']))
    const written = path.join(root, 'written-index')
    writeIndexFile(written, entries)
    expect(listing(repo, written).equals(listed)).toBe(true)
    const debug = listing(repo, written, '--debug').toString('latin1')
    // Every time, device, inode, owner and size is 0: git has nothing to trust but the files' bytes.
    expect(debug.match(/(ctime|mtime): 0:0/g)).toHaveLength(2 * entries.length)
    expect(debug.match(/dev: 0\tino: 0/g)).toHaveLength(entries.length)
    expect(debug.match(/size: 0\tflags: [0-9a-f]+/g)).toHaveLength(entries.length)
    // git's own check of the file: its checksum, and entries in order.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, env: { ...process.env, GIT_INDEX_FILE: written } }).toString()).toMatch(
      /^UU both\.txt$/m
    )
  })
}

it('writes format 3 where an entry keeps its skip-worktree bit, and only there', () => {
  const repo = variedRepository('sha1')
  const entries = entriesOf(listing(repo, path.join(repo, '.git', 'index'))).filter(e => e.stage === 0)
  const kept = entries.find(e => e.name.toString() === 'a.txt')!
  kept.skipWorktree = true
  const written = path.join(root, 'written-index')
  writeIndexFile(written, entries)
  expect(fs.readFileSync(written).readUInt32BE(4)).toBe(3)
  const tags = listing(repo, written, '-v')
    .toString('latin1')
    .split('\0')
    .filter(Boolean)
    .map(line => `${line[0]} ${line.slice(line.indexOf('\t') + 1)}`)
  expect(tags.filter(t => t.startsWith('S '))).toEqual(['S a.txt'])
  expect(tags.filter(t => !t.startsWith('H '))).toEqual(['S a.txt'])
})

it('writes each mode as git makes one: any mode an agent wrote is a file, a link, a folder of a sparse index or a gitlink', () => {
  const repo = variedRepository('sha1')
  const object = git(repo, 'rev-parse', 'HEAD:a.txt')
  const modes = { '0': '100644', '000644': '100644', '100664': '100644', '110755': '100755', '170000': '100644', '120777': '120000', '160644': '160000' }
  const entries = Object.keys(modes).map((mode, i) => ({ mode, object, stage: 0, name: Buffer.from(`m${i}.txt`) }))
  const written = path.join(root, 'written-index')
  writeIndexFile(written, entries)
  const listed = entriesOf(listing(repo, written))
  expect(listed.map(e => e.mode)).toEqual(Object.values(modes))
  // git reads it to the end, where a mode it does not know stops it.
  expect(() => execFileSync('git', ['status', '--porcelain'], { cwd: repo, env: { ...process.env, GIT_INDEX_FILE: written }, stdio: 'pipe' })).not.toThrow()
})

it('writes the stat data it is given as git keeps it, and finds every entry of stage 0 as written, in both formats', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    const repo = variedRepository(format)
    const idBytes = format === 'sha1' ? 20 : 32
    const index = path.join(repo, '.git', 'index')
    git(repo, 'status', '--porcelain')
    const gits = indexReader(fs.readFileSync(index), idBytes)
    const entries = entriesOf(listing(repo, index)).map(entry => (entry.stage ? entry : { ...entry, stat: gits(entry.name)?.stat }))
    expect(entries.filter(e => !e.stage && !e.stat?.some(Boolean))).toEqual([])
    const written = path.join(root, `written-${format}`)
    writeIndexFile(written, entries)
    const debug = (file: string): string =>
      execFileSync('git', ['ls-files', '--debug'], { cwd: repo, env: { ...process.env, GIT_INDEX_FILE: file } }).toString()
    expect(debug(written)).toBe(debug(index))
    const ours = indexReader(indexBytes(entries), idBytes)
    for (const entry of entries.filter(e => !e.stage)) expect(ours(entry.name)).toEqual(entry)
  }
})

it("finds, asked in git's order, each name that is there and none that is not; nothing in bytes that are not a whole index", () => {
  const entries = ['a.txt', 'b/c.txt', 'd.txt'].map(name => ({ mode: '100644', object: 'a'.repeat(40), stage: 0, name: Buffer.from(name) }))
  const bytes = indexBytes(entries)
  const reader = indexReader(bytes, 20)
  expect(reader(Buffer.from('a.txt'))?.name.toString()).toBe('a.txt')
  expect(reader(Buffer.from('b'))).toBeUndefined()
  expect(reader(Buffer.from('b/a.txt'))).toBeUndefined()
  expect(reader(Buffer.from('d.txt'))?.name.toString()).toBe('d.txt')
  expect(reader(Buffer.from('e.txt'))).toBeUndefined()
  expect(indexReader(bytes.subarray(0, 30), 20)(Buffer.from('a.txt'))).toBeUndefined()
  expect(indexReader(Buffer.from('not an index'), 20)(Buffer.from('a.txt'))).toBeUndefined()
})

it('reads the bytes once, however long a name in them: each name asked for is compared, never looked for again', () => {
  // A name of 4 MB that sorts after every other: read again for each name asked for, this took minutes.
  const long = { mode: '100644', object: 'a'.repeat(40), stage: 0, name: Buffer.alloc(4 * 1024 * 1024, 0xff) }
  const reader = indexReader(indexBytes([long]), 20)
  const started = performance.now()
  for (let i = 0; i < 20_000; i++) expect(reader(Buffer.from(`f${String(i).padStart(5, '0')}`))).toBeUndefined()
  // One pass over 4 MB, and 20,000 comparisons of a byte or so: milliseconds.
  expect(performance.now() - started).toBeLessThan(2000)
})
