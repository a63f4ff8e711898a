// Covers: src/os/paths.ts, src/os/processes.ts, src/os/untrusted-files.ts, src/exit/remove-worktree.ts.
// The rules that differ between Linux, macOS and Windows, each tested here with the platform injected:
// how paths compare, how a process tree is stopped, who works inside a folder, how removal retries.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { isInside, normalizePath, samePath } from '../../src/os/paths.js'
import { parseLsofCwd, residentsOf, spawnOptions, stopTree } from '../../src/os/processes.js'
import { deleteTree, renameFolder } from '../../src/exit/remove-worktree.js'
import { plainPath } from '../../src/os/untrusted-files.js'

const none = (): undefined => undefined

describe('paths, compared as each file system compares them', () => {
  it("on Windows: git's C:/a/repo is node's c:\\a\\repo, whatever the case and trailing separator", () => {
    expect(normalizePath('C:/a/Repo/', 'win32')).toBe(normalizePath('c:\\A\\repo', 'win32'))
    expect(samePath('C:/a/repo', 'c:\\a\\REPO\\', 'win32', none)).toBe(true)
    expect(samePath('C:/a/repo', 'D:\\a\\repo', 'win32', none)).toBe(false)
    expect(isInside('C:/a/repo.worktrees/x', 'c:\\a\\repo.worktrees', 'win32')).toBe(true)
    expect(isInside('C:/a/repo2', 'C:\\a\\repo', 'win32')).toBe(false)
    expect(isInside('C:\\', 'C:/', 'win32')).toBe(true)
  })

  it('on macOS: case is ignored for paths that do not exist, /var and /private/var are one folder', () => {
    expect(samePath('/Users/me/Repo', '/users/me/repo', 'darwin', none)).toBe(true)
    expect(isInside('/Users/me/Repo/wt', '/users/me/repo', 'darwin')).toBe(true)
  })

  it('on Linux: case matters, and a trailing slash does not', () => {
    expect(samePath('/a/Repo', '/a/repo', 'linux', none)).toBe(false)
    expect(samePath('/a/repo/', '/a/repo', 'linux', none)).toBe(true)
    expect(isInside('/a/repo-other', '/a/repo', 'linux')).toBe(false)
  })

  it('trusts the file system for paths that exist: one file is one path, two files are two, whatever the text says', () => {
    const same = (p: string) => (p.toLowerCase().endsWith('repo') ? { dev: 1, ino: 7 } : undefined)
    expect(samePath('/x/REPO', '/y/repo', 'darwin', same)).toBe(true)
    const distinct = (p: string) => ({ dev: 1, ino: p.includes('Repo') ? 1 : 2 })
    // A case-sensitive APFS volume: /a/Repo and /a/repo are two folders.
    expect(samePath('/a/Repo', '/a/repo', 'darwin', distinct)).toBe(false)
  })

  it('resolves symbolic links of paths that exist (a /tmp that is /private/tmp)', () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'paths-')))
    try {
      fs.mkdirSync(path.join(root, 'private-tmp', 'wt'), { recursive: true })
      fs.symlinkSync(path.join(root, 'private-tmp'), path.join(root, 'tmp'))
      expect(samePath(path.join(root, 'tmp', 'wt'), path.join(root, 'private-tmp', 'wt'))).toBe(true)
      expect(samePath(path.join(root, 'tmp', 'wt', 'not-yet'), path.join(root, 'private-tmp', 'wt', 'not-yet'))).toBe(true)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  })
})

describe('a path of a rescue or of an index the agent may have forged', () => {
  it('never names the git dir, in any spelling a file system takes for .git (as git refuses them to check out)', () => {
    for (const spelling of [
      '.git',
      '.GIT',
      '.Git',
      '.git.',
      '.git ',
      '.git. .',
      '.git::$INDEX_ALLOCATION',
      'git~1',
      'GIT~1',
      '.g\u200cit',
      '\ufeff.git',
      '.gi\u200dt'
    ]) {
      expect(plainPath(spelling), JSON.stringify(spelling)).toBe(false)
      expect(plainPath(`src/${spelling}/config`), JSON.stringify(spelling)).toBe(false)
    }
    for (const plain of ['.github/workflows/ci.yml', '.gitignore', 'git', 'a.git', '.git-blame-ignore-revs', 'git~2', 'src/.gitkeep'])
      expect(plainPath(plain), plain).toBe(true)
    for (const odd of ['', 'a//b', './a', 'a/../b', '/etc/passwd']) expect(plainPath(odd), odd).toBe(false)
  })
})

describe('process trees, stopped per platform', () => {
  it('POSIX: git leads a process group of its own; Windows has no groups and hides the console', () => {
    expect(spawnOptions('linux')).toEqual({ detached: true, windowsHide: true })
    expect(spawnOptions('darwin')).toEqual({ detached: true, windowsHide: true })
    expect(spawnOptions('win32')).toEqual({ detached: false, windowsHide: true })
  })

  it('Windows: a tree is stopped with taskkill /T /F, never with process.kill(-pid)', () => {
    const calls: string[][] = []
    const run = ((command: string, args: string[]) => {
      calls.push([command, ...args])
      return { status: 0 }
    }) as unknown as typeof import('node:child_process').spawnSync
    stopTree(4242, 'SIGTERM', 'win32', run)
    expect(calls).toEqual([['taskkill', '/pid', '4242', '/T', '/F']])
  })

  it('macOS: who works inside a folder comes from lsof; Windows cannot tell (a folder in use cannot be renamed there)', () => {
    expect(parseLsofCwd('p12\nfcwd\nn/w/repo.worktrees/a\np13\nfcwd\nn/elsewhere\n')).toEqual([
      { pid: 12, command: '/w/repo.worktrees/a' },
      { pid: 13, command: '/elsewhere' }
    ])
    const lsof = (() => ({
      stdout: 'p12\nfcwd\nn/w/repo.worktrees/a/src\np13\nfcwd\nn/elsewhere\n'
    })) as unknown as typeof import('node:child_process').spawnSync
    expect(residentsOf('/w/repo.worktrees/a', 'darwin', lsof)).toEqual([{ pid: 12, command: '/w/repo.worktrees/a/src' }])
    expect(residentsOf('C:\\w\\a', 'win32')).toEqual([])
  })
})

describe('removal, per platform', () => {
  let root: string
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'removal-'))
  })
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

  it('Windows: retries a rename while a file is held open, with a short back-off, then gives the error', async () => {
    let tries = 0
    const busy = () => {
      tries++
      if (tries < 3) throw Object.assign(new Error('resource busy or locked'), { code: 'EBUSY' })
    }
    await renameFolder('a', 'b', 'win32', busy)
    expect(tries).toBe(3)
    const always = () => {
      throw Object.assign(new Error('resource busy or locked'), { code: 'EBUSY' })
    }
    await expect(renameFolder('a', 'b', 'win32', always, 2)).rejects.toThrow('busy')
    // Elsewhere a failed rename is final at once.
    let once = 0
    await expect(
      renameFolder('a', 'b', 'linux', () => {
        once++
        throw Object.assign(new Error('busy'), { code: 'EBUSY' })
      })
    ).rejects.toThrow()
    expect(once).toBe(1)
  })

  it.each(['linux', 'win32'] as const)('%s rules: deletes read-only folders and files', async platform => {
    const tree = path.join(root, 'wt')
    fs.mkdirSync(path.join(tree, 'pkg', 'mod'), { recursive: true })
    fs.writeFileSync(path.join(tree, 'pkg', 'mod', 'go.sum'), 'x')
    fs.chmodSync(path.join(tree, 'pkg', 'mod', 'go.sum'), 0o444)
    fs.chmodSync(path.join(tree, 'pkg', 'mod'), 0o555)
    fs.chmodSync(path.join(tree, 'pkg'), 0o555)
    expect(await deleteTree(tree, platform)).toBeUndefined()
    expect(fs.existsSync(tree)).toBe(false)
  })
})
