// Covers: src/sandbox/stand-ins.ts, src/git/shallow-file.ts (and its use by the main step and the run sub-action, through the committed bundles).
// Every read-only entry a sandbox is given exists when it is handed out, in a form that changes nothing git or this
// action does: on real git, in a repository as actions/checkout leaves one, with the lists of a worktree and a clone.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { clonePaths, sandboxFacts, sandboxPaths } from '../../src/sandbox/paths.js'
import { handOut, rerereEnabled } from '../../src/sandbox/stand-ins.js'
import { commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'

let repos: Repos
let common: string
beforeEach(() => {
  repos = makeRepos()
  common = path.join(repos.clone, '.git')
})
afterEach(() => repos.cleanup())

const no = (): Promise<boolean> => Promise.resolve(false)

function worktreeLists(): ReturnType<typeof sandboxPaths> {
  const wt = path.join(repos.root, 'wts', 'x')
  git(repos.clone, 'worktree', 'add', '--quiet', '-b', 'x', wt)
  return sandboxPaths(sandboxFacts(wt, path.join(common, 'worktrees', 'x'), common))
}

describe('makeStandIns', () => {
  it("makes every absent read-only entry of a worktree's lists, and git reads the repository as it did", async () => {
    const paths = worktreeLists()
    const before = git(repos.clone, 'log', '--format=%H', '--all')
    const absent = paths.readOnly.filter(p => !fs.existsSync(p))
    expect(absent.map(p => path.relative(common, p)).sort()).toEqual(
      [
        'agent-worktree-clones',
        'agent-worktree-objects.json',
        'commondir',
        'config.worktree',
        'modules',
        'remotes',
        'rr-cache',
        'shallow',
        'worktrees/x/config.worktree',
        'worktrees/x/info',
        'worktrees/x/agent-worktree.json',
        'worktrees/x/agent-worktree-parked',
        'worktrees/x/locked'
      ].sort()
    )
    const handed = await handOut(paths, no)
    // Every entry handed out exists; left out: what has no harmless form (shallow), and what the main step makes
    // before it hands the lists out (the lock, the record).
    for (const p of handed.readOnly) expect(fs.lstatSync(p, { throwIfNoEntry: false }), p).toBeDefined()
    expect(paths.readOnly.filter(p => !handed.readOnly.includes(p)).map(p => path.relative(common, p))).toEqual([
      'shallow',
      'worktrees/x/locked',
      'worktrees/x/agent-worktree.json'
    ])
    expect(fs.existsSync(path.join(common, 'shallow'))).toBe(false)
    expect(fs.lstatSync(path.join(common, 'rr-cache')).isFile()).toBe(true)
    expect(fs.readFileSync(path.join(common, 'commondir'), 'utf8')).toBe('.\n')
    expect(fs.readFileSync(path.join(common, 'config.worktree'), 'utf8')).toBe('')
    // Read as a list that cannot be read: the next enter verifies the whole store.
    expect(fs.readFileSync(path.join(common, 'agent-worktree-objects.json'), 'utf8')).toBe('')
    // Read as nothing a park proved: the next take reads every file.
    expect(fs.readFileSync(path.join(common, 'worktrees', 'x', 'agent-worktree-parked'), 'utf8')).toBe('')
    for (const folder of ['modules', 'remotes', 'branches', 'agent-worktree-clones', 'worktrees/x/info'])
      expect(fs.readdirSync(path.join(common, folder))).toEqual([])
    // Not shallow, the whole history, rerere off; the main checkout and the worktree as they were.
    expect(git(repos.clone, 'rev-parse', '--is-shallow-repository', '--path-format=absolute', '--git-common-dir')).toBe(`false\n${common}`)
    expect(git(repos.clone, 'log', '--format=%H', '--all')).toBe(before)
    expect(git(repos.clone, 'status', '--porcelain')).toBe('')
    expect(git(path.join(repos.root, 'wts', 'x'), 'status', '--porcelain')).toBe('')
    git(repos.clone, 'switch', '--quiet', '-c', 'side')
    commit(repos.clone, 'README.md', 'side\n')
    git(repos.clone, 'switch', '--quiet', 'main')
    commit(repos.clone, 'README.md', 'main\n')
    const merged = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'merge', 'side'], { cwd: repos.clone, encoding: 'utf8' })
    expect(merged.stdout + merged.stderr).toContain('CONFLICT')
    expect(merged.stdout + merged.stderr).not.toMatch(/rerere|rr-cache/i)
    expect(fs.lstatSync(path.join(common, 'rr-cache')).isFile()).toBe(true)
    git(repos.clone, 'merge', '--abort')
    git(repos.clone, 'fsck', '--no-progress')
    git(repos.clone, 'gc', '--quiet')
    // A fetch that makes the repository shallow works as ever; then its shallow file is handed out.
    execFileSync('git', ['fetch', '--quiet', '--depth=1', 'origin', 'main'], { cwd: repos.clone })
    expect((await handOut(paths, no)).readOnly).toContain(path.join(common, 'shallow'))
  })

  it("makes a clone's absent entries, and leaves every entry that is there as it is", async () => {
    const clone = path.join(repos.root, 'wts', 'c')
    git(repos.root, 'init', '--quiet', '--template=', clone)
    const paths = clonePaths(clone, path.join(common, 'objects'))
    write(clone, '.git/info/exclude', 'kept\n')
    const handed = await handOut(paths, no)
    for (const p of handed.readOnly) expect(fs.lstatSync(p, { throwIfNoEntry: false }), p).toBeDefined()
    expect(paths.readOnly.filter(p => !handed.readOnly.includes(p))).toEqual([path.join(clone, '.git', 'shallow')])
    expect(fs.readFileSync(path.join(clone, '.git', 'info', 'exclude'), 'utf8')).toBe('kept\n')
    expect(git(clone, 'rev-parse', '--is-shallow-repository', '--path-format=absolute', '--git-common-dir')).toBe(`false\n${path.join(clone, '.git')}`)
  })

  it('makes rr-cache a folder where rerere.enabled is true: git would make one at the first merge', async () => {
    const paths = worktreeLists()
    await handOut(paths, () => Promise.resolve(true))
    expect(fs.lstatSync(path.join(common, 'rr-cache')).isDirectory()).toBe(true)
  })

  it('makes commondir whole or not at all: a git of another job never reads it empty (git dies on an empty one)', async () => {
    // A reader in its own process, as another matrix leg's git is, spinning on the file while this one makes it.
    const commondir = path.join(common, 'commondir')
    const reader = spawn(process.execPath, [
      '-e',
      `const fs = require('fs'); let empty = 0
       const stop = Date.now() + 20000
       process.stdin.on('data', () => { process.stdout.write(String(empty)); process.exit(0) })
       const spin = () => { for (let i = 0; i < 2000; i++) { try { if (fs.readFileSync(${JSON.stringify(commondir)}, 'utf8') === '') empty++ } catch {} } if (Date.now() < stop) setImmediate(spin) }
       spin()`
    ])
    let seen = ''
    reader.stdout.on('data', chunk => (seen += String(chunk)))
    const done = new Promise(resolve => reader.on('exit', resolve))
    for (let i = 0; i < 3000; i++) {
      fs.rmSync(commondir, { force: true })
      await handOut({ write: [], readOnly: [commondir] }, no)
    }
    reader.stdin.write('\n')
    await done
    expect(seen).toBe('0')
    expect(fs.readFileSync(commondir, 'utf8')).toBe('.\n')
    expect(fs.readdirSync(common).filter(name => name.endsWith('.tmp'))).toEqual([])
  })

  it('reads rerere.enabled as git does', () => {
    expect(rerereEnabled([])).toBe(false)
    expect(rerereEnabled([{ key: 'rerere.enabled', value: 'true' }])).toBe(true)
    expect(rerereEnabled([{ key: 'rerere.enabled' }])).toBe(true)
    expect(
      rerereEnabled([
        { key: 'rerere.enabled', value: 'true' },
        { key: 'rerere.enabled', value: 'off' }
      ])
    ).toBe(false)
    expect(rerereEnabled([{ key: 'rerere.enabled', value: '' }])).toBe(false)
  })
})
