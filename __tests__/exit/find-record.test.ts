// Covers: src/exit/find-record.ts (setupOfEnter), src/stages/exit.ts, src/stages/run.ts, through the committed bundles.
// A later step (the exit, the run sub-action) pins the git of enter before its first git call, from the record the
// main step sealed, found by reading files: a worktree's .git file, or the original's folders of ours, which
// register worktrees and clones (isolation: clone) alike. Under a runner, a record that cannot be found or was
// changed stops the step before any git call; it never falls back to the git PATH names now.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { commit, git, makeRepos, readOrNull, write, type Repos } from '../helpers/repos.js'
import { sandboxesUnavailable } from '../helpers/sandboxes.js'
import { warnings } from '../helpers/steps.js'

const noSandbox = sandboxesUnavailable()

let repos: Repos
let home: string
let log: string

beforeEach(() => {
  repos = makeRepos()
  home = path.join(repos.root, 'home')
  write(home, '.gitconfig', '[user]\n\tname = Workflow\n\temail = workflow@example.com\n')
  log = path.join(repos.root, 'planted-git-ran')
})
afterEach(() => repos.cleanup())

function job(): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1', HOME: home }
  })
}

/** An earlier, unconfined step puts a git of its own first on PATH: it notes that it ran, and passes the call on. */
function plantGit(j: Job): void {
  const bin = path.join(repos.root, 'planted-bin')
  const real = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim()
  write(bin, 'git', `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`)
  fs.chmodSync(path.join(bin, 'git'), 0o755)
  j.addPath(bin)
}

/** The calls the planted git got since the last look. */
function ran(): string {
  const text = readOrNull(log) ?? ''
  fs.rmSync(log, { force: true })
  return text
}

function said(step: StepResult): string {
  return `exit ${step.exitCode}\n${step.annotations.map(a => `${a.level}: ${a.message}`).join('\n')}\n${step.stdout.slice(-1500)}`
}

const errorOf = (step: StepResult): string => step.annotations.find(a => a.level === 'error')?.message ?? ''

describe('isolation: clone: the record is found from the original, whose folder of ours names the clone', () => {
  it.skipIf(noSandbox !== undefined)(
    'the run sub-action, the exit (push: true) and the post run the git of enter, never one GITHUB_PATH put first',
    async () => {
      const j = job()
      const main = await j.uses('.', { name: 'clx', isolation: 'clone' })
      expect(main.exitCode, said(main)).toBe(0)
      plantGit(j)
      const run = await j.uses('run', { command: 'echo w > w.txt && git add w.txt && git commit -qm w' })
      expect(run.exitCode, said(run)).toBe(0)
      expect(ran()).toBe('')
      const exit = await j.uses('exit', { push: 'true' })
      expect(exit.exitCode, said(exit)).toBe(0)
      expect(ran()).toBe('')
      expect(git(repos.origin, 'log', '-1', '--format=%s', 'worktree-clx')).toBe('w')
      const [post] = await j.runPosts()
      expect(post.exitCode, said(post)).toBe(0)
      expect(ran()).toBe('')
    }
  )

  it("an insteadOf and a credential helper an earlier step wrote to the job's global config never redirect the exit's push: the commit is on origin before the clone goes", async () => {
    const j = job()
    const main = await j.uses('.', { name: 'clp', isolation: 'clone' })
    expect(main.exitCode, said(main)).toBe(0)
    const made = commit(main.outputs['worktree-path'], 'work.txt')
    const evil = path.join(repos.root, 'evil.git')
    git(repos.root, 'init', '--quiet', '--bare', evil)
    const marker = path.join(repos.root, 'helper-ran')
    fs.appendFileSync(
      path.join(home, '.gitconfig'),
      `[url "${evil}"]\n\tinsteadOf = ${repos.origin}\n[credential]\n\thelper = "!f() { echo ran >> '${marker}'; }; f"\n`
    )
    const exit = await j.uses('exit', { push: 'true' })
    expect(exit.exitCode, said(exit)).toBe(0)
    expect(git(evil, 'for-each-ref')).toBe('')
    expect(git(repos.origin, 'rev-parse', 'worktree-clp')).toBe(made)
    expect(exit.outputs).toMatchObject({ pushed: 'true', removed: 'true' })
    expect(readOrNull(marker)).toBeNull()
  })
})

describe('a worktree whose .git file an earlier step changed: the record is found from the original', () => {
  for (const change of ['removed', 'pointed at a copy of its git dir, with a record of its own'])
    it(`its .git file ${change}: the run sub-action runs no git PATH names now`, async () => {
      const j = job()
      const main = await j.uses('.', { name: 'ptr' })
      const wt = main.outputs['worktree-path']
      if (change === 'removed') fs.rmSync(path.join(wt, '.git'))
      else {
        const copy = path.join(repos.root, 'copy')
        fs.cpSync(main.outputs['git-dir'], copy, { recursive: true })
        fs.writeFileSync(path.join(copy, 'agent-worktree.json'), '{"token": "forged"}\n')
        fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${copy}\n`)
      }
      plantGit(j)
      const run = await j.uses('run', { command: 'true' })
      expect(run.exitCode, said(run)).toBe(1)
      expect(errorOf(run)).toContain('it is not a worktree that agent-worktree entered')
      expect(ran()).toBe('')
    })
})

describe('under a runner, no sealed record: the step stops before any git call', () => {
  /** An earlier step changes the record (its seal no longer holds): the exit takes it as a hint. */
  function changeRecord(main: StepResult): void {
    const file = path.join(main.outputs['git-dir'], 'agent-worktree.json')
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('"onExit": "remove"')
    fs.writeFileSync(file, text.replace('"onExit": "remove"', '"onExit": "keep"'))
  }

  it('a record that was changed: the exit runs the git of enter all the same, from the set-up the main step sealed in RUNNER_TEMP', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'hinted' })
    changeRecord(main)
    plantGit(j)
    const exit = await j.uses('exit')
    expect(exit.exitCode, said(exit)).toBe(0)
    expect(ran()).toBe('')
  })

  it('a record that was changed, and the set-up sealed in RUNNER_TEMP removed: the run sub-action and the exit fail naming the input and the value; the post still decides from its state', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'changed' })
    const wt = main.outputs['worktree-path']
    changeRecord(main)
    fs.rmSync(path.join(repos.root, 'runner', '_temp', 'agent-worktree-git-setup.json'))
    plantGit(j)
    const expected = `Input 'path (from AGENT_WORKTREE_PATH)' has the value \`${wt}\`: the record agent-worktree's main step sealed for it was changed, so the git of enter is not known`
    const run = await j.uses('run', { command: 'true' })
    expect(run.exitCode, said(run)).toBe(1)
    expect(errorOf(run)).toContain(expected)
    expect(ran()).toBe('')
    const exit = await j.uses('exit', { path: wt })
    expect(exit.exitCode, said(exit)).toBe(1)
    expect(errorOf(exit)).toContain(
      `Input 'path' has the value \`${wt}\`: the record agent-worktree's main step sealed for it was changed, so the git of enter is not known`
    )
    expect(ran()).toBe('')
    const [post] = await j.runPosts()
    expect(post.exitCode, said(post)).toBe(0)
    expect(warnings(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(false)
    expect(ran()).toBe('')
  })

  it('a worktree an earlier exit removed: the next exit says it is gone, without git', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'twice', isolation: 'clone' })
    expect((await j.uses('exit')).outputs.removed).toBe('true')
    plantGit(j)
    const again = await j.uses('exit')
    expect(again.exitCode, said(again)).toBe(0)
    expect(again.outputs).toMatchObject({ reason: 'gone', 'worktree-path': main.outputs['worktree-path'], 'original-path': repos.clone })
    expect(ran()).toBe('')
  })
})
