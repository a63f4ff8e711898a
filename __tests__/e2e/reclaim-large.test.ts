// Covers: src/exit/reclaim.ts through the bundles, at the size of a real node_modules (npm run test:long).
// A kept worktree gives back 100,000 ignored files in one post, timed; what is work stays, and the gate counts the same.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { makeRepos, readOrNull, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'
import { nodeModules } from '../helpers/node-modules.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos({ '.gitignore': 'node_modules/\nbuild/\n.env\n', 'README.md': '# sample\n', 'src/app.txt': 'app\n' })
})
afterEach(() => repos.cleanup())

function job(): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'temp'),
    env: { GITHUB_RUN_ID: '1', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }
  })
}

describe('the post reclaims in the worktree it keeps', () => {
  it('node_modules of 100,000 files goes, timed; the tracked and the untracked files stay, and the gate counts the same', async () => {
    const j = job()
    const wt = (await j.uses('.', { name: 'big', reclaim: 'node_modules' })).outputs['worktree-path']
    write(wt, 'src/app.txt', 'the agent changed this\n')
    write(wt, '.env.local', 'TOKEN=kept\n')
    write(wt, '.env', 'TOKEN=ignored\n')
    const started = performance.now()
    nodeModules(wt, 100_000)
    console.log(`writing 100,000 files: ${(performance.now() - started).toFixed(0)} ms`)
    const timed = performance.now()
    const [post] = await j.runPosts()
    console.log(`the post that kept the worktree and reclaimed node_modules: ${(performance.now() - timed).toFixed(0)} ms`)
    expect(post.exitCode).toBe(0)
    expect(fs.existsSync(path.join(wt, 'node_modules'))).toBe(false)
    expect(readOrNull(path.join(wt, 'src/app.txt'))).toBe('the agent changed this\n')
    expect(readOrNull(path.join(wt, '.env.local'))).toBe('TOKEN=kept\n')
    expect(readOrNull(path.join(wt, '.env'))).toBe('TOKEN=ignored\n')
    expect(post.stdout).toMatch(/Reclaimed [0-9.]+ MB \(100000 files\) of ignored folders in the kept `[^`]+`: `node_modules` \([0-9.]+ MB\)\./)
    expect(post.summary).toMatch(/<p>Reclaimed [0-9.]+ MB \(100000 files\)/)
    expect(warnings(post)[0]).toContain(`Kept \`${wt}\`: it has 2 uncommitted files.`)
    // The gate, asked again, counts what it counted before.
    const exit = await j.uses('exit', { 'on-exit': 'keep', reclaim: 'none' })
    expect(exit.outputs, exit.stdout).toMatchObject({ 'uncommitted-files': '2', 'unsaved-commits': '0', reason: 'asked' })
  })
})
