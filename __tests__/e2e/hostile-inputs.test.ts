// Covers: src/runner/inputs.ts and src/enter/plan.ts through the bundles.
// Inputs written to break things: options in disguise, forged file-command lines, paths that lead away.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { git, makeRepos, worktreePaths, type Repos } from '../helpers/repos.js'

let repos: Repos
let job: Job
let marker: string
beforeEach(() => {
  repos = makeRepos()
  job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner-temp'), env: { RUNNER_NAME: 'r' } })
  marker = path.join(repos.root, 'pwned')
})
afterEach(() => repos.cleanup())

function errorOf(step: StepResult): string {
  return step.annotations.find(a => a.level === 'error')?.message ?? ''
}

const INPUTS = ['name', 'path', 'base-ref', 'branch', 'repository-path', 'worktrees-dir', 'on-exit', 'discard-changes', 'fetch']

describe('values that look like options never reach git as options', () => {
  const values = () => ['-D', '--output=' + marker, `--upload-pack=touch ${marker}`, '-h', '--exec=touch ' + marker]
  it.each(INPUTS)('%s', async input => {
    const refs = git(repos.clone, 'for-each-ref')
    for (const value of values()) {
      const step = await job.uses('.', { [input]: value })
      if (step.exitCode === 0) {
        // Taken literally: a name within the rule ("-D"), or a folder inside the workspace; never as an option.
        expect(['name', 'worktrees-dir']).toContain(input)
        if (input === 'name') expect(step.outputs).toMatchObject({ name: value, branch: `worktree-${value}` })
        else expect(step.outputs['worktree-path'].startsWith(path.join(repos.clone, value))).toBe(true)
      } else {
        expect(errorOf(step)).toContain(`Input '${input}`)
      }
      expect(fs.existsSync(marker)).toBe(false)
    }
    await job.runPosts()
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    expect(git(repos.clone, 'for-each-ref')).toBe(refs)
  })
})

describe('no input can forge a file-command line', () => {
  it.each(INPUTS)('%s', async input => {
    const step = await job.uses('.', { [input]: 'x\nworktree-path=/etc\nAGENT_WORKTREE_PATH=/etc' })
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toContain('control character')
    expect(step.outputs).toEqual({})
    expect(step.env).toEqual({})
    // Only the keys the main step claims, empty, before it reads an input.
    expect(step.state).toEqual({ worktree: '', 'common-dir': '', 'restore-ref': '' })
  })
})

describe('refs and paths that lead astray', () => {
  it.each([
    ['base-ref', 'main..HEAD'],
    ['base-ref', 'HEAD:README.md'],
    ['branch', 'a/../b'],
    ['branch', 'refs/heads/../x'],
    ['branch', 'x.lock'],
    ['name', '../outside'],
    ['name', 'a/./b']
  ])('%s %j is refused', async (input, value) => {
    const step = await job.uses('.', { [input]: value })
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toContain(`Input '${input}`)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })

  it('refuses a worktrees-dir that is a file', async () => {
    const file = path.join(repos.root, 'a-file')
    fs.writeFileSync(file, '')
    const step = await job.uses('.', { 'worktrees-dir': file })
    expect(errorOf(step)).toContain("Input 'worktrees-dir'")
    expect(errorOf(step)).toContain('not a folder')
  })

  it('refuses a worktrees-dir that is a symbolic link, and writes nothing where it leads', async () => {
    const target = path.join(repos.root, 'elsewhere')
    fs.mkdirSync(target)
    const link = path.join(repos.root, 'link')
    fs.symlinkSync(target, link)
    const step = await job.uses('.', { 'worktrees-dir': link })
    expect(errorOf(step)).toContain(`Input 'worktrees-dir' has the value "${link}": it is a symbolic link (to ${target})`)
    expect(fs.readdirSync(target)).toEqual([])
  })

  it('refuses a path that is the main checkout, even by another spelling', async () => {
    const step = await job.uses('.', { path: `${repos.clone}/./` })
    expect(errorOf(step)).toContain('the checkout the job came from')
  })

  it('refuses a path that is a worktree of another repository', async () => {
    const other = path.join(repos.root, 'other')
    git(repos.root, 'clone', '--quiet', repos.origin, other)
    const wt = path.join(repos.root, 'other-wt')
    git(other, 'worktree', 'add', '--quiet', '-b', 'x', wt)
    const step = await job.uses('.', { path: wt })
    expect(errorOf(step)).toContain(`it is not a worktree of ${repos.clone}`)
  })
})
