// Covers: src/sandbox/paths.ts.
// The lists a sandbox is given: what the agent writes to do its git work, and what inside stays read-only.
import * as fs from 'node:fs'
import * as path from 'node:path'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { clonePaths, sandboxFacts, sandboxPaths, type SandboxFacts } from '../../src/sandbox/paths.js'
import { git, makeRepos, type Repos } from '../helpers/repos.js'

const FACTS: SandboxFacts = {
  worktree: '/w/repo.worktrees/x',
  gitDir: '/w/repo/.git/worktrees/x',
  commonDir: '/w/repo/.git',
  otherGitDirs: ['/w/repo/.git/worktrees/z', '/w/repo/.git/worktrees/y'],
  mainIndex: true
}

/** Whether `p` is `dir` or lies inside it. */
const within = (p: string, dir: string): boolean => p === dir || p.startsWith(`${dir}${path.sep}`)

describe('sandboxPaths', () => {
  it('writes the worktree, its git dir and the common dir; keeps read-only what git obeys and what is not its own', () => {
    expect(sandboxPaths(FACTS)).toEqual({
      write: ['/w/repo.worktrees/x', '/w/repo/.git/worktrees/x', '/w/repo/.git'],
      readOnly: [
        '/w/repo.worktrees/x/.git',
        '/w/repo/.git/config',
        '/w/repo/.git/config.worktree',
        '/w/repo/.git/hooks',
        '/w/repo/.git/info',
        '/w/repo/.git/shallow',
        '/w/repo/.git/objects/info',
        '/w/repo/.git/remotes',
        '/w/repo/.git/branches',
        '/w/repo/.git/rr-cache',
        '/w/repo/.git/modules',
        '/w/repo/.git/commondir',
        '/w/repo/.git/HEAD',
        '/w/repo/.git/index',
        '/w/repo/.git/logs/HEAD',
        '/w/repo/.git/worktrees/x/gitdir',
        '/w/repo/.git/worktrees/x/commondir',
        '/w/repo/.git/worktrees/x/locked',
        '/w/repo/.git/worktrees/x/config.worktree',
        '/w/repo/.git/worktrees/x/info',
        '/w/repo/.git/worktrees/x/agent-worktree.json',
        '/w/repo/.git/worktrees/x/agent-worktree-parked',
        '/w/repo/.git/worktrees/y',
        '/w/repo/.git/worktrees/z',
        '/w/repo/.git/agent-worktree-clones',
        '/w/repo/.git/agent-worktree-objects.json'
      ]
    })
  })

  it("leaves out the main checkout's index where there is none: an empty one in its place would break that checkout", () => {
    expect(sandboxPaths({ ...FACTS, mainIndex: false }).readOnly).not.toContain('/w/repo/.git/index')
  })

  it('holds for any layout: every read-only path lies inside a writable one and holds none (a deny that wins would shut it)', () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,8}$/).filter(s => s !== '.' && s !== '..')
    const folder = fc.array(segment, { minLength: 1, maxLength: 4 }).map(parts => path.join(path.sep, ...parts))
    fc.assert(
      fc.property(folder, folder, segment, fc.uniqueArray(segment, { maxLength: 5 }), fc.boolean(), (worktree, common, id, others, mainIndex) => {
        fc.pre(!within(worktree, common) && !within(common, worktree))
        const gitDir = path.join(common, 'worktrees', id)
        const otherGitDirs = others.filter(o => o !== id).map(o => path.join(common, 'worktrees', o))
        const { write, readOnly } = sandboxPaths({ worktree, gitDir, commonDir: common, otherGitDirs, mainIndex })
        for (const p of readOnly) {
          expect(write.some(w => within(p, w) && p !== w)).toBe(true)
          expect(write.some(w => within(w, p))).toBe(false)
        }
        expect(new Set(readOnly).size).toBe(readOnly.length)
      })
    )
  })
})

describe('clonePaths', () => {
  it("writes the clone, .git included, but what git obeys there; reads the original's objects, never writes them", () => {
    expect(clonePaths('/w/repo.worktrees/x', '/w/repo/.git/objects')).toEqual({
      write: ['/w/repo.worktrees/x', '/w/repo.worktrees/x/.git'],
      readOnly: [
        '/w/repo.worktrees/x/.git/config',
        '/w/repo.worktrees/x/.git/hooks',
        '/w/repo.worktrees/x/.git/info',
        '/w/repo.worktrees/x/.git/shallow',
        '/w/repo.worktrees/x/.git/objects/info',
        '/w/repo.worktrees/x/.git/commondir',
        '/w/repo/.git/objects'
      ]
    })
  })
})

describe('sandboxFacts', () => {
  let repos: Repos
  beforeEach(() => {
    repos = makeRepos()
  })
  afterEach(() => repos.cleanup())

  it('finds the other worktrees registered in the common dir, and whether the checkout has an index', () => {
    const common = path.join(repos.clone, '.git')
    for (const name of ['x', 'y', 'z']) git(repos.clone, 'worktree', 'add', '--quiet', '-b', name, path.join(repos.root, 'wts', name))
    const facts = sandboxFacts(path.join(repos.root, 'wts', 'x'), path.join(common, 'worktrees', 'x'), common)
    expect([...facts.otherGitDirs].sort()).toEqual([path.join(common, 'worktrees', 'y'), path.join(common, 'worktrees', 'z')])
    expect(facts.mainIndex).toBe(true)
  })

  it('finds no other worktree and no index in a bare repository with one worktree', () => {
    const wt = path.join(repos.root, 'wts', 'only')
    git(repos.origin, 'worktree', 'add', '--quiet', '-b', 'only', wt)
    const facts = sandboxFacts(wt, path.join(repos.origin, 'worktrees', 'only'), repos.origin)
    expect(facts).toEqual({ worktree: wt, gitDir: path.join(repos.origin, 'worktrees', 'only'), commonDir: repos.origin, otherGitDirs: [], mainIndex: false })
    expect(fs.existsSync(path.join(repos.origin, 'index'))).toBe(false)
  })
})
