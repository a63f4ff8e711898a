// Covers: src/git/parked-files.ts, and the gate's use of it (git-answers.ts dropIndexHints): what a park proved
// of each file is kept only for files unchanged since before the park's mark, and git believes it only for an entry
// that is still the one proven.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { inspect } from '../../src/gate/safety-gate.js'
import { markParking, PARKED_FILES, readParkedFiles, keepParkedFiles, type ParkedFiles } from '../../src/git/parked-files.js'
import { git } from '../helpers/repos.js'
import { eachLinkedWorktree } from '../helpers/worktree.js'

const linked = eachLinkedWorktree()
const SECOND = 1_000_000_000n
const MODULE = path.resolve('src/git/parked-files.ts')

/** The index entry git lists for `file` in the worktree. */
function entryOf(file: string): { mode: string; object: string; stage: number; name: Buffer } {
  const [mode, object] = git(linked.folder, 'ls-files', '-s', '--', file).split(/\s+/)
  return { mode, object, stage: 0, name: Buffer.from(file) }
}

const ctimeSecond = (file: string): bigint => fs.lstatSync(path.join(linked.folder, file), { bigint: true }).ctimeNs / SECOND

describe('the list a park keeps', () => {
  it('keeps a file changed in a second before the mark, never one changed in the mark’s second or later', () => {
    const entry = linked.input.gitDir
    const second = ctimeSecond('README.md')
    keepParkedFiles(entry, linked.folder, [entryOf('README.md')], second)
    expect(readParkedFiles(entry, 20)?.(Buffer.from('README.md'))).toBeUndefined()
    keepParkedFiles(entry, linked.folder, [entryOf('README.md')], second + 1n)
    const kept = readParkedFiles(entry, 20)?.(Buffer.from('README.md'))
    expect(kept?.object).toBe(git(linked.folder, 'rev-parse', 'HEAD:README.md'))
    expect(kept?.stat?.readUInt32BE(0)).toBe(Number(second))
  })

  it('keeps no conflict side, no gitlink, no skip-worktree entry, nothing absent', () => {
    const entry = linked.input.gitDir
    const file = entryOf('README.md')
    const mark = ctimeSecond('README.md') + 1n
    const gone = { ...file, name: Buffer.from('gone.txt') }
    keepParkedFiles(entry, linked.folder, [{ ...file, stage: 2 }, { ...file, mode: '160000' }, { ...file, skipWorktree: true }, gone], mark)
    expect(fs.readFileSync(path.join(entry, PARKED_FILES)).readUInt32BE(8)).toBe(0)
  })

  it('keeps no list where it has none to keep or cannot write one, and leaves no older one', () => {
    const entry = linked.input.gitDir
    const mark = ctimeSecond('README.md') + 1n
    keepParkedFiles(entry, linked.folder, [entryOf('README.md')], mark)
    expect(readParkedFiles(entry, 20)?.(Buffer.from('README.md'))).toBeDefined()
    keepParkedFiles(entry, linked.folder, undefined, mark)
    expect(fs.existsSync(path.join(entry, PARKED_FILES))).toBe(false)
    keepParkedFiles(entry, linked.folder, [entryOf('README.md')], mark)
    keepParkedFiles(entry, linked.folder, [entryOf('README.md')], undefined)
    expect(fs.existsSync(path.join(entry, PARKED_FILES))).toBe(false)
    fs.mkdirSync(path.join(entry, PARKED_FILES, 'in-the-way'), { recursive: true })
    expect(() => keepParkedFiles(entry, linked.folder, [entryOf('README.md')], mark)).not.toThrow()
    expect(readParkedFiles(entry, 20)).toBeUndefined()
  })

  it('reads nothing from a list that is not one: empty, cut short, a folder', () => {
    const entry = linked.input.gitDir
    const readme = Buffer.from('README.md')
    fs.writeFileSync(path.join(entry, PARKED_FILES), '')
    expect(readParkedFiles(entry, 20)?.(readme)).toBeUndefined()
    fs.writeFileSync(path.join(entry, PARKED_FILES), 'DIRC\0\0\0\x02\0\0\0\x05 five entries, none there')
    expect(readParkedFiles(entry, 20)?.(readme)).toBeUndefined()
    fs.rmSync(path.join(entry, PARKED_FILES))
    fs.mkdirSync(path.join(entry, PARKED_FILES))
    expect(readParkedFiles(entry, 20)).toBeUndefined()
  })

  it('marks a moment on the folder’s own filesystem: its change time', () => {
    const before = fs.lstatSync(linked.folder, { bigint: true }).ctimeNs
    const mark = markParking(linked.folder)
    const after = fs.lstatSync(linked.folder, { bigint: true }).ctimeNs
    expect(after).toBeGreaterThanOrEqual(before)
    expect(mark).toBe(after / SECOND)
    expect(markParking(path.join(linked.folder, 'no-such-folder'))).toBeUndefined()
    // git for Windows compares a file's creation time where git elsewhere compares its change time.
    expect(markParking(linked.folder, 'win32')).toBeUndefined()
  })

  it('leaves the folder’s mode as it is: a setgid folder of a group the runner’s user is not in stays setgid', () => {
    if (process.getuid?.() !== 0) return
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'setgid-'))
    try {
      fs.chownSync(folder, 65534, 0)
      fs.chmodSync(folder, 0o2775)
      // As a user of another group, as a runner's user may be (root keeps the bit whatever it does).
      const marked = spawnSync(
        process.execPath,
        ['--import', 'tsx', '-e', `import(${JSON.stringify(MODULE)}).then(m => m.markParking(${JSON.stringify(folder)}))`],
        {
          uid: 65534,
          gid: 65534,
          encoding: 'utf8'
        }
      )
      expect(marked.status, marked.stderr).toBe(0)
      expect(fs.lstatSync(folder).mode & 0o7777).toBe(0o2775)
    } finally {
      fs.rmSync(folder, { recursive: true, force: true })
    }
  })
})

describe('the gate of a take, given the list', () => {
  /** README.md rewritten to other bytes of another size, its time put in the past (git would read it otherwise as written in the index's second), and kept as proven as it is now. */
  function provenAsRewritten(object?: string): ParkedFiles | undefined {
    const file = path.join(linked.folder, 'README.md')
    fs.writeFileSync(file, 'not what the park proved\n')
    fs.utimesSync(file, new Date(2020, 0, 1), new Date(2020, 0, 1))
    const entry = { ...entryOf('README.md'), ...(object ? { object } : {}) }
    keepParkedFiles(linked.input.gitDir, linked.folder, [entry], ctimeSecond('README.md') + 1n)
    return readParkedFiles(linked.input.gitDir, 20)
  }

  it('lets git believe the stat data of a file whose entry is the one proven: its bytes are not read', async () => {
    const parkedFiles = provenAsRewritten()
    expect((await inspect({ ...linked.input, parkedFiles })).uncommitted).toEqual([])
    // Without the list, git reads the file.
    expect((await inspect({ ...linked.input, indexMemo: {} })).uncommitted).toEqual([{ code: ' M', path: 'README.md' }])
  })

  it('reads the bytes of a file whose entry now names another object than the one proven', async () => {
    const parkedFiles = provenAsRewritten(git(linked.folder, 'rev-parse', 'HEAD:src/app.txt'))
    expect((await inspect({ ...linked.input, parkedFiles })).uncommitted).toEqual([{ code: ' M', path: 'README.md' }])
  })

  it('reads the bytes of a file changed since the list was kept, its size and times put back', async () => {
    const parkedFiles = provenAsRewritten()
    const file = path.join(linked.folder, 'README.md')
    // A second later, as any change after a park's mark is.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100)
    fs.writeFileSync(file, 'NOT what the park proved\n')
    fs.utimesSync(file, new Date(2020, 0, 1), new Date(2020, 0, 1))
    expect((await inspect({ ...linked.input, parkedFiles })).uncommitted).toEqual([{ code: ' M', path: 'README.md' }])
  })
})

describe('the gate of a take, with git set up by the workflow to compare less', () => {
  it('compares a file’s change time all the same (core.trustctime false, core.checkStat minimal)', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'home-'))
    fs.writeFileSync(path.join(home, '.gitconfig'), '[core]\n\ttrustctime = false\n\tcheckStat = minimal\n')
    const previous = process.env.HOME
    process.env.HOME = home
    try {
      const file = path.join(linked.folder, 'README.md')
      fs.utimesSync(file, new Date(2020, 0, 1), new Date(2020, 0, 1))
      keepParkedFiles(linked.input.gitDir, linked.folder, [entryOf('README.md')], ctimeSecond('README.md') + 1n)
      const parkedFiles = readParkedFiles(linked.input.gitDir, 20)
      expect((await inspect({ ...linked.input, parkedFiles })).uncommitted).toEqual([])
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1100)
      fs.writeFileSync(file, '# sampLE\n')
      fs.utimesSync(file, new Date(2020, 0, 1), new Date(2020, 0, 1))
      expect((await inspect({ ...linked.input, parkedFiles })).uncommitted).toEqual([{ code: ' M', path: 'README.md' }])
    } finally {
      process.env.HOME = previous
      fs.rmSync(home, { recursive: true, force: true })
    }
  })
})
