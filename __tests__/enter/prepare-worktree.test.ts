// Covers: src/enter/prepare-worktree.ts, src/enter/plan.ts through the bundles.
// A worktree an agent can work in at once: ignored local files copied, big folders linked, sparse trees.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'

let repos: Repos
let job: Job
beforeEach(() => {
  repos = makeRepos({
    '.gitignore': '*.log\n.env\n.env.*\nconfig/*.local.json\nnode_modules/\n.venv/\n',
    'README.md': '# sample\n',
    'config/app.json': '{}\n',
    'packages/a/index.txt': 'a\n',
    'packages/a/lib/deep.txt': 'a deep\n',
    'packages/b/index.txt': 'b\n',
    'tools/build.txt': 'tool\n'
  })
  job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner-temp'), env: {} })
})
afterEach(() => repos.cleanup())

const warnings = (step: StepResult): string[] => step.annotations.filter(a => a.level === 'warning').map(a => a.message)
const errorOf = (step: StepResult): string => step.annotations.find(a => a.level === 'error')?.message ?? ''

describe('copying ignored files named by .worktreeinclude', () => {
  beforeEach(() => {
    write(repos.clone, '.worktreeinclude', '.env\n.env.*\nconfig/*.local.json\nsecrets.txt\nREADME.md\n')
    write(repos.clone, '.env', 'TOKEN=local\n')
    write(repos.clone, 'config/dev.local.json', '{"dev":true}\n')
    write(repos.clone, 'secrets.txt', 'matched but not ignored: not copied\n')
    write(repos.clone, 'debug.log', 'ignored but not matched: not copied\n')
    fs.symlinkSync('/etc/hostname', path.join(repos.clone, '.env.outside'))
  })

  it('copies what is both matched and ignored, nothing tracked, no link leading outside; the copies are not unsaved work', async () => {
    const main = await job.uses('.', { name: 'included' })
    expect(main.exitCode).toBe(0)
    const wt = main.outputs['worktree-path']
    expect(fs.readFileSync(path.join(wt, '.env'), 'utf8')).toBe('TOKEN=local\n')
    expect(fs.readFileSync(path.join(wt, 'config/dev.local.json'), 'utf8')).toBe('{"dev":true}\n')
    for (const absent of ['secrets.txt', 'debug.log', '.env.outside']) expect(fs.existsSync(path.join(wt, absent))).toBe(false)
    expect(main.stdout).toContain('Copied 2 ignored file(s) that `.worktreeinclude` names: `.env`, `config/dev.local.json`.')
    expect(main.stdout).toContain('`.env.outside` (a symbolic link leading outside the checkout)')
    const [post] = await job.runPosts()
    expect(warnings(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(false)
    // The originals are untouched.
    expect(fs.readFileSync(path.join(repos.clone, '.env'), 'utf8')).toBe('TOKEN=local\n')
  })

  it('takes another file named by include-file, and refuses one that does not exist', async () => {
    write(repos.clone, 'agent.include', 'config/*.local.json\n')
    const main = await job.uses('.', { name: 'named', 'include-file': 'agent.include' })
    expect(fs.existsSync(path.join(main.outputs['worktree-path'], 'config/dev.local.json'))).toBe(true)
    expect(fs.existsSync(path.join(main.outputs['worktree-path'], '.env'))).toBe(false)
    const missing = await job.uses('.', { name: 'missing', 'include-file': 'nope.include' })
    expect(missing.exitCode).toBe(1)
    expect(errorOf(missing)).toContain("Input 'include-file' has the value `nope.include`: there is no file")
    expect(worktreePaths(repos.clone)).toHaveLength(2)
  })
})

describe('symlink-dirs', () => {
  beforeEach(() => {
    write(repos.clone, 'node_modules/dep/index.js', 'module.exports = 1\n')
    write(repos.clone, '.venv/bin/python', '#!/bin/sh\n')
  })

  it('links big ignored folders, which never count as unsaved work nor get touched by removal', async () => {
    const main = await job.uses('.', { name: 'linked', 'symlink-dirs': 'node_modules\n.venv/' })
    expect(main.exitCode).toBe(0)
    const wt = main.outputs['worktree-path']
    // node_modules/ (with the slash) does not match a link: git sees it as untracked, the gate knows better.
    expect(git(wt, 'status', '--porcelain')).toContain('?? node_modules')
    expect(fs.readlinkSync(path.join(wt, 'node_modules'))).toBe(path.join(repos.clone, 'node_modules'))
    expect(fs.readFileSync(path.join(wt, 'node_modules/dep/index.js'), 'utf8')).toBe('module.exports = 1\n')
    const [post] = await job.runPosts()
    expect(warnings(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(false)
    expect(fs.readFileSync(path.join(repos.clone, 'node_modules/dep/index.js'), 'utf8')).toBe('module.exports = 1\n')
    expect(fs.existsSync(path.join(repos.clone, '.venv/bin/python'))).toBe(true)
  })

  it('still keeps real work beside the links, and removes with discard-changes without touching their targets', async () => {
    const main = await job.uses('.', { name: 'linked-dirty', 'symlink-dirs': 'node_modules' })
    const wt = main.outputs['worktree-path']
    write(wt, 'work.txt', 'unsaved\n')
    const kept = await job.uses('exit')
    expect(kept.outputs).toMatchObject({ removed: 'false', 'uncommitted-files': '1' })
    const removed = await job.uses('exit', { 'discard-changes': 'true' })
    expect(removed.outputs.removed).toBe('true')
    expect(fs.readFileSync(path.join(repos.clone, 'node_modules/dep/index.js'), 'utf8')).toBe('module.exports = 1\n')
  })

  it('warns about a folder the checkout lacks, and refuses a tracked one or a path that leaves the checkout', async () => {
    const missing = await job.uses('.', { name: 'nolink', 'symlink-dirs': 'node_modules, .cache' })
    expect(missing.exitCode).toBe(0)
    expect(warnings(missing)).toEqual(['symlink-dirs: `.cache` not found in `' + repos.clone + '`, so not linked.'])
    const tracked = await job.uses('.', { name: 'tracked', 'symlink-dirs': 'packages/a' })
    expect(errorOf(tracked)).toContain("Input 'symlink-dirs' has the value `packages/a`: it is tracked in the base commit")
    const outside = await job.uses('.', { name: 'outside', 'symlink-dirs': '../other' })
    expect(errorOf(outside)).toContain("Input 'symlink-dirs' has the value `../other`")
  })
})

describe('sparse-paths', () => {
  it('checks out the folders asked for, and the gate works the same', async () => {
    const main = await job.uses('.', { name: 'sparse', 'sparse-paths': 'packages/a' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    expect(fs.existsSync(path.join(wt, 'packages/a/lib/deep.txt'))).toBe(true)
    expect(fs.existsSync(path.join(wt, 'README.md'))).toBe(true) // cone mode keeps the top level
    expect(fs.existsSync(path.join(wt, 'packages/b'))).toBe(false)
    expect(fs.existsSync(path.join(wt, 'tools'))).toBe(false)
    expect(git(wt, 'status', '--porcelain')).toBe('')
    // The original checkout stays whole.
    expect(fs.existsSync(path.join(repos.clone, 'packages/b/index.txt'))).toBe(true)
    write(wt, 'packages/a/new.txt', 'work\n')
    const kept = await job.uses('exit')
    expect(kept.outputs).toMatchObject({ removed: 'false', 'uncommitted-files': '1' })
    fs.rmSync(path.join(wt, 'packages/a/new.txt'))
    const removed = await job.uses('exit', { 'on-exit': 'remove' })
    expect(removed.outputs.removed).toBe('true')
  })

  it('refuses a path that leaves the checkout', async () => {
    const step = await job.uses('.', { 'sparse-paths': 'packages/a,/etc' })
    expect(errorOf(step)).toContain("Input 'sparse-paths' has the value `/etc`")
  })
})
