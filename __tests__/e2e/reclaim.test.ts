// Covers: src/exit/reclaim.ts, src/enter/sweep.ts (reclaim, the list of kept worktrees) through the bundles.
// A kept worktree gives back its ignored build output: the post, the exit step and a later job's sweep.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { git, makeRepos, readOrNull, write, type Repos } from '../helpers/repos.js'
import { nodeModules } from '../helpers/node-modules.js'

const SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55'

let repos: Repos
let jobs = 0
beforeEach(() => {
  repos = makeRepos({ '.gitignore': 'node_modules/\nbuild/\n.env\n', 'README.md': '# sample\n', 'src/app.txt': 'app\n' })
})
afterEach(() => repos.cleanup())

function job(runner = `runner-${++jobs}`, run = jobs): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'temp', `${++jobs}`),
    env: { GITHUB_RUN_ID: String(run), GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: runner }
  })
}

describe('the post reclaims in the worktree it keeps', () => {
  it('the exit step takes its own input; a CACHEDIR.TAG folder goes by default, a link into the checkout is only unlinked', async () => {
    write(repos.clone, 'node_modules/dep/index.js', 'the checkout’s own\n')
    const j = job()
    const wt = (await j.uses('.', { name: 'linked', 'symlink-dirs': 'node_modules' })).outputs['worktree-path']
    expect(fs.lstatSync(path.join(wt, 'node_modules')).isSymbolicLink()).toBe(true)
    write(wt, 'build/cache/CACHEDIR.TAG', `${SIGNATURE}\n`)
    write(wt, 'build/cache/object.o', 'o\n')
    write(wt, 'build/report.html', 'kept: not tagged, not named\n')
    write(wt, 'notes.txt', 'untracked work\n')
    const exit = await j.uses('exit', { reclaim: 'node_modules' })
    expect(exit.outputs, exit.stdout).toMatchObject({ removed: 'false', reason: 'unsaved' })
    expect(fs.existsSync(path.join(wt, 'build/cache'))).toBe(false)
    expect(fs.existsSync(path.join(wt, 'node_modules'))).toBe(false)
    expect(readOrNull(path.join(repos.clone, 'node_modules/dep/index.js'))).toBe('the checkout’s own\n')
    expect(readOrNull(path.join(wt, 'build/report.html'))).not.toBeNull()
    expect(exit.stdout).toContain('`node_modules` (a link: unlinked, what it points to left alone)')
    expect(exit.summary).toContain('Reclaimed')
  })

  it('fails fast on a bad reclaim input, before anything is created', async () => {
    const main = await job().uses('.', { name: 'bad', reclaim: '!node_modules' })
    expect(main.exitCode).toBe(1)
    expect(main.annotations.filter(a => a.level === 'error')[0].message).toContain(
      "Input 'reclaim' has the value `!node_modules`: `!node_modules` starts with !, which gitignore reads as a negation or a comment."
    )
    expect(fs.existsSync(`${repos.clone}.worktrees`)).toBe(false)
  })
})

describe('the sweep of a later job', () => {
  it('reclaims once in a worktree an ended job kept on purpose, by its rule, and lists the kept worktrees by size with their age', async () => {
    const earlier = job('runner-1', 1)
    const kept = (await earlier.uses('.', { name: 'kept-on-purpose', 'on-exit': 'keep', reclaim: 'node_modules' })).outputs['worktree-path']
    nodeModules(kept, 2000)
    write(kept, 'build/CACHEDIR.TAG', `${SIGNATURE}\n`)
    git(kept, 'clone', '--quiet', repos.origin, path.join(kept, 'build', 'copy'))
    const unsaved = (await earlier.uses('.', { name: 'unsaved', reclaim: 'none' })).outputs['worktree-path']
    write(unsaved, 'work.txt', 'work\n')
    write(unsaved, 'build/cache/CACHEDIR.TAG', `${SIGNATURE}\n`)
    // The posts never run: the runner was killed.

    const later = await job('runner-1', 2).uses('.', { name: 'next' })
    expect(later.exitCode, later.stdout).toBe(0)
    expect(fs.existsSync(path.join(kept, 'node_modules'))).toBe(false)
    // build is tagged, but holds a repository: it stays (the sweep asks no remote here, so the gate counts its commits).
    expect(fs.existsSync(path.join(kept, 'build/copy/.git'))).toBe(true)
    expect(later.stdout).toContain('Left, though they matched: `build` (it holds work the gate counts).')
    // Its rule said none: the tagged folder stays.
    expect(fs.existsSync(path.join(unsaved, 'build/cache/CACHEDIR.TAG'))).toBe(true)
    expect(later.summary).toContain('2 worktree(s) that earlier jobs kept stay on this machine')
    expect(later.summary).toMatch(/<td><code>[^<]*kept-on-purpose<\/code><\/td><td>0 minutes<\/td><td>[0-9.]+ (KB|MB)<\/td><td>[0-9.]+ (KB|MB)<\/td>/)
    expect(later.summary).toContain('worktree remove -f -f')

    // Once: the next sweep measures nothing again and reclaims nothing.
    nodeModules(kept, 10)
    const third = await job('runner-1', 3).uses('.', { name: 'third' })
    expect(third.exitCode).toBe(0)
    expect(fs.existsSync(path.join(kept, 'node_modules'))).toBe(true)
    expect(third.stdout).not.toContain('Reclaimed')
  })
})
