// Covers: src/runner/inputs.ts and src/enter/plan.ts through the bundles.
// Inputs written to break things: options in disguise, forged file-command lines, paths that lead away.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, ROOT, type StepResult } from '../../scripts/runner.mjs'
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

  it('refuses a repository-path that is a file or a named pipe, naming it', async () => {
    const file = path.join(repos.root, 'a-file')
    fs.writeFileSync(file, '')
    const fifo = path.join(repos.root, 'a-pipe')
    execFileSync('mkfifo', [fifo])
    for (const value of [file, fifo]) {
      const step = await job.uses('.', { 'repository-path': value })
      expect(errorOf(step)).toContain(`Input 'repository-path' has the value \`${value}\`: it is not a folder`)
    }
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
    expect(errorOf(step)).toContain(`Input 'worktrees-dir' has the value \`${link}\`: it is a symbolic link (to \`${target}\`)`)
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
    expect(errorOf(step)).toContain(`it is not a worktree of \`${repos.clone}\``)
  })
})

describe('a worktrees-dir where no folder can be made', () => {
  // Each is refused before anything is made, naming the input and the value as typed, within moments: none
  // makes the step spin or wait (node's recursive mkdir loops forever in /proc, deaf to signals), so the
  // runner's first signal, SIGINT, is always the last.
  const made = (): string[] => [...worktreePaths(repos.clone), ...fs.readdirSync(path.join(repos.clone, '.git')).filter(n => n.endsWith('.lock'))]
  const cases: [string, () => string, string][] = [
    ['a folder in /proc', () => '/proc/agent-worktrees', "on the kernel's proc file system"],
    ["a folder deep in a process's /proc folder", () => '/proc/self/a/b', "on the kernel's proc file system"],
    ['a folder in /sys', () => '/sys/agent-worktrees', "on the kernel's sysfs file system"],
    ['a path through a named pipe', () => fifo('pipe') + '/wt', 'on the way is a named pipe, not a folder'],
    ['a path through a file', () => file('plain') + '/wt', 'on the way is a file, not a folder'],
    ['a path through a device', () => '/dev/null/wt', '`/dev/null` on the way is a device, not a folder'],
    ['a named pipe', () => fifo('pipe2'), 'it is a named pipe, not a folder']
  ]
  function fifo(name: string): string {
    const p = path.join(repos.root, name)
    execFileSync('mkfifo', [p])
    return p
  }
  function file(name: string): string {
    const p = path.join(repos.root, name)
    fs.writeFileSync(p, '')
    return p
  }

  it.each(cases)('%s', async (_what, value, problem) => {
    const dir = value()
    const before = made()
    const step = await job.uses('.', { 'worktrees-dir': dir }, { cancel: { afterMs: 3000 }, recordGit: true })
    expect(step.signals.filter(s => s.signal !== 'SIGINT')).toEqual([])
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toContain(`Input 'worktrees-dir' has the value \`${dir}\`: `)
    expect(errorOf(step)).toContain(problem)
    expect(step.gitCalls!.filter(c => /^worktree add|^branch/.test(c))).toEqual([])
    expect(made()).toEqual(before)
    await job.runPosts()
  })

  it('an include-file that is a named pipe, which git would wait on, is refused before anything is made', async () => {
    execFileSync('mkfifo', [path.join(repos.clone, 'pipe')])
    const step = await job.uses('.', { 'include-file': 'pipe' }, { cancel: { afterMs: 3000 } })
    expect(step.exitCode).toBe(1)
    expect(step.signals).toEqual([])
    expect(errorOf(step)).toBe(
      `Input 'include-file' has the value \`pipe\`: \`${path.join(repos.clone, 'pipe')}\` is not a regular file. Name a gitignore-style file in the checkout.`
    )
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    await job.runPosts()
  })

  it.each([
    ['/etc/passwd', 'an absolute path elsewhere'],
    ['../outside', 'a path that leads out'],
    ['inside-link', 'a link in the checkout to a file outside']
  ])('an include-file outside the checkout is refused before anything is made: %s (%s)', async value => {
    const outside = path.join(path.dirname(repos.clone), 'outside')
    fs.writeFileSync(outside, '*.env\n')
    fs.symlinkSync(outside, path.join(repos.clone, 'inside-link'))
    const step = await job.uses('.', { 'include-file': value })
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toMatch(
      /^Input 'include-file' has the value `[^`]+`: `[^`]+` is outside the checkout `[^`]+`\. Name a gitignore-style file in the checkout/
    )
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    await job.runPosts()
  })

  it('push: yes, no or on, in the main step and in the exit, is an error, never a branch of that name', async () => {
    for (const value of ['yes', 'no', 'on']) {
      const step = await job.uses('.', { push: value })
      expect(step.exitCode).toBe(1)
      expect(errorOf(step)).toContain(`Input 'push' has the value \`${value}\`: it reads as a yes or no, not as the name of a branch.`)
      expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    }
    const main = await job.uses('.', { name: 'agent' })
    expect(main.exitCode).toBe(0)
    const exit = await job.uses(path.join(ROOT, 'exit'), { push: 'yes' })
    expect(exit.exitCode).toBe(1)
    expect(errorOf(exit)).toContain("Input 'push' has the value `yes`: it reads as a yes or no")
    expect(git(repos.origin, 'branch', '--list')).not.toMatch(/\byes\b/)
    await job.runPosts()
  })

  it('a leg past the number of legs is refused before anything is made', async () => {
    const step = await job.uses('.', { name: 'agent', leg: '3/2' })
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toBe("Input 'leg' has the value `3/2`: a matrix of 2 leg(s) has no leg 3. Leave it out: its default is right in every workflow.")
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    await job.runPosts()
  })

  it('a read-only file system', async ({ skip }) => {
    const ro = path.join(repos.root, 'read-only')
    fs.mkdirSync(ro)
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', ro], { stdio: 'ignore' })
    } catch {
      return skip('mounting a read-only tmpfs needs root')
    }
    try {
      const step = await job.uses('.', { 'worktrees-dir': path.join(ro, 'wt') })
      expect(errorOf(step)).toContain(`Input 'worktrees-dir' has the value \`${ro}/wt\`: \`${ro}\` is on a read-only file system`)
      expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    } finally {
      execFileSync('umount', [ro])
    }
  })

  it('a Windows path on Linux is quoted as typed, its backslashes single', async () => {
    const step = await job.uses('.', { 'worktrees-dir': 'C:\\agents\\wt' })
    expect(errorOf(step)).toContain(`Input 'worktrees-dir' has the value \`C:\\agents\\wt\`: it is inside the checkout \`${repos.clone}\``)
  })
})
