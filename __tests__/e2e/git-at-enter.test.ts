// Covers: src/git/git-setup.ts, src/git/sealed-git.ts (remote calls through a view), src/remote/push.ts (the push) through the bundles.
// What our git may use is what the job had when the main step entered: the workflow's own git set-up (its GIT_*
// variables, HOME, credential helpers, insteadOf, extra headers) authenticates the rescue push and the restore's
// fetch exactly as it authenticates the workflow's own push; what changed after (GITHUB_ENV, GITHUB_PATH, a config
// file written later, another job's agent in a shared clone) takes no part. Through the committed bundles, as the
// runner runs them; the remotes are real (ssh by a stand-in ssh program, http by git http-backend).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { serveOrigin } from '../helpers/http-origin.js'
import { commit, git, makeRepos, readOrNull, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
let log: string
const cleanups: (() => void | Promise<void>)[] = []

beforeEach(() => {
  repos = makeRepos()
  log = path.join(repos.root, 'ran.log')
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  repos.cleanup()
})

function job(env: Record<string, string> = {}, workspace = repos.clone): Job {
  return new Job({
    workspace,
    temp: path.join(repos.root, `runner-${Math.random().toString(16).slice(2)}`, '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1', ...env }
  })
}

/** A program of the agent's: logs that it ran (and as what), then fails. */
function planted(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `#!/bin/sh\nprintf 'ran: %s %s\\n' "$0" "$*" >>'${log}'\nexit 1\n`, { mode: 0o755 })
  return file
}

function ran(): string[] {
  const text = readOrNull(log) ?? ''
  fs.rmSync(log, { force: true })
  return text.split('\n').filter(Boolean)
}

function said(step: StepResult): string {
  return `exit ${step.exitCode}\n${warnings(step).join('\n')}\n${step.stdout.slice(-2000)}\n${step.stderr.slice(-1000)}`
}

function rescueBranches(): string[] {
  return git(repos.origin, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/agent-worktree-rescue/').split('\n').filter(Boolean)
}

/** An ssh program as a workflow sets one up: it logs, and runs the remote's command here (the host is this machine). */
function sshProgram(): string {
  const program = path.join(repos.root, 'workflow-ssh')
  fs.writeFileSync(program, `#!/bin/sh\necho "ssh: $*" >>'${log}'\nfor last; do :; done\nexec sh -c "$last"\n`, { mode: 0o755 })
  return program
}

describe('the workflow’s git set-up of enter authenticates the rescue push', () => {
  it('GIT_SSH_COMMAND in the job’s env: the rescue push goes over it, as the workflow’s own push does', async () => {
    git(repos.clone, 'remote', 'set-url', 'origin', `ssh://git.example.invalid${repos.origin}`)
    const j = job({ GIT_SSH_COMMAND: sshProgram() })
    const main = await j.uses('.', { name: 'over-ssh', rescue: 'branch' })
    expect(main.exitCode, said(main)).toBe(0)
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n'), said(post)).toContain('pushed to the branch `agent-worktree-rescue/over-ssh/')
    expect(rescueBranches()).toEqual(['agent-worktree-rescue/over-ssh/agents-5-1'])
    expect(ran().some(line => line.includes('git-receive-pack'))).toBe(true)
    // A later job restores it over the same ssh set-up.
    const later = job({ GITHUB_RUN_ID: '6', GIT_SSH_COMMAND: sshProgram() })
    const restored = await later.uses('.', { name: 'again', restore: 'agent-worktree-rescue/over-ssh/agents-5-1' })
    expect(restored.outputs.restored, said(restored)).toBe('true')
    expect(readOrNull(path.join(restored.outputs['worktree-path'], 'notes.txt'))).toBe('notes\n')
    expect(ran().some(line => line.includes('git-upload-pack'))).toBe(true)
    await later.runPosts()
  })

  it('a credential helper the workflow set in the repository’s config before the main step', async () => {
    const origin = await serveOrigin(repos.origin)
    cleanups.push(() => origin.close())
    git(repos.clone, 'remote', 'set-url', 'origin', origin.url)
    git(repos.clone, 'config', 'credential.helper', '!f() { echo username=x-access-token; echo password=emulated; }; f')
    const j = job()
    const main = await j.uses('.', { name: 'helper', rescue: 'branch' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n'), said(post)).toContain('pushed to the branch `agent-worktree-rescue/helper/')
    expect(origin.requests.some(r => r.url.endsWith('git-receive-pack') && r.authorised)).toBe(true)
  })

  it('a token in an insteadOf of the repository’s config, set before the main step', async () => {
    const origin = await serveOrigin(repos.origin)
    cleanups.push(() => origin.close())
    git(repos.clone, 'remote', 'set-url', 'origin', origin.url)
    const base = origin.url.replace(/[^/]+$/, '')
    git(repos.clone, 'config', `url.${base.replace('//', '//x-access-token:emulated@')}.insteadOf`, base)
    const j = job()
    const main = await j.uses('.', { name: 'instead', rescue: 'branch' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n'), said(post)).toContain('pushed to the branch `agent-worktree-rescue/instead/')
  })

  it('an extra header in GIT_CONFIG_COUNT/KEY/VALUE of the job’s env; the agent’s own header exported later takes no part', async () => {
    const origin = await serveOrigin(repos.origin)
    cleanups.push(() => origin.close())
    git(repos.clone, 'remote', 'set-url', 'origin', origin.url)
    const j = job({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraheader', GIT_CONFIG_VALUE_0: `AUTHORIZATION: ${origin.authorization}` })
    const main = await j.uses('.', { name: 'header', rescue: 'branch' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    j.exported.GIT_CONFIG_VALUE_0 = 'AUTHORIZATION: basic c3RvbGVu'
    const [post] = await j.runPosts()
    // The value changed after enter: the rescue has no header of enter to send, and sends none of the agent's.
    expect(warnings(post).join('\n'), said(post)).not.toContain('pushed to the branch')
    expect(origin.requests.some(r => r.authorised)).toBe(false)
  })

  it('the same header, unchanged: the push authenticates', async () => {
    const origin = await serveOrigin(repos.origin)
    cleanups.push(() => origin.close())
    git(repos.clone, 'remote', 'set-url', 'origin', origin.url)
    const j = job({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraheader', GIT_CONFIG_VALUE_0: `AUTHORIZATION: ${origin.authorization}` })
    const main = await j.uses('.', { name: 'header', rescue: 'branch' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n'), said(post)).toContain('pushed to the branch `agent-worktree-rescue/header/')
  })
})

describe('what changed after enter never reaches our git', () => {
  /** The agent's global config: a clean filter for every file. */
  function agentGlobal(home: string): void {
    write(home, '.gitconfig', `[filter "evil"]\n\tclean = ${planted(path.join(home, 'evil'))}\n\tprocess = ${path.join(home, 'evil')}\n`)
  }

  /** A tracked file changed with its size kept and a new time, under the agent's .gitattributes: git must read it. */
  function touchTracked(wt: string): void {
    write(wt, '.gitattributes', '* filter=evil\n')
    write(wt, 'src/app.txt', 'ppa\n')
    fs.utimesSync(path.join(wt, 'src/app.txt'), new Date(), new Date(Date.now() + 5000))
  }

  it('HOME written to GITHUB_ENV: its global config’s filter never runs in the post', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'home' })
    const wt = main.outputs['worktree-path']
    touchTracked(wt)
    const home = path.join(repos.root, 'agent-home')
    agentGlobal(home)
    j.exported.HOME = home
    const [post] = await j.runPosts()
    expect(ran(), said(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('the global config of enter’s HOME, written by the agent: its filter never runs in the exit or the post', async () => {
    const home = path.join(repos.root, 'job-home')
    write(home, '.gitconfig', '[user]\n\tname = job\n')
    const j = job({ HOME: home })
    const main = await j.uses('.', { name: 'global' })
    const wt = main.outputs['worktree-path']
    touchTracked(wt)
    agentGlobal(home)
    const exit = await j.uses('exit', { 'on-exit': 'keep' })
    expect(ran(), said(exit)).toEqual([])
    const [post] = await j.runPosts()
    expect(ran(), said(post)).toEqual([])
  })

  it('a git in a folder added to GITHUB_PATH never runs in the exit or the post', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'path' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    const bin = path.join(repos.root, 'agent-bin')
    planted(path.join(bin, 'git'))
    j.addPath(bin)
    const exit = await j.uses('exit', { 'on-exit': 'keep' })
    expect(ran(), said(exit)).toEqual([])
    const [post] = await j.runPosts()
    expect(ran(), said(post)).toEqual([])
  })

  it('a shared clone: the upload-pack, receive-pack and git proxy another job’s agent set never run in the next job’s fetch, restore or rescue', async () => {
    const shared = path.join(repos.root, 'shared')
    git(repos.root, 'clone', '--quiet', repos.origin, shared)
    const first = job({}, repos.clone)
    const main1 = await first.uses('.', { name: 'one', 'repository-path': shared, rescue: 'branch' })
    expect(main1.exitCode, said(main1)).toBe(0)
    write(main1.outputs['worktree-path'], 'first.txt', 'first\n')
    const program = planted(path.join(repos.root, 'agent-pack'))
    for (const remote of ['origin', repos.origin]) for (const key of ['uploadpack', 'receivepack']) git(shared, 'config', `remote.${remote}.${key}`, program)
    git(shared, 'config', 'core.gitProxy', program)
    const [post1] = await first.runPosts()
    expect(ran(), said(post1)).toEqual([])
    expect(rescueBranches(), said(post1)).toEqual(['agent-worktree-rescue/one/agents-5-1'])
    commit(repos.clone, 'later.txt')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const second = job({ GITHUB_RUN_ID: '6' }, repos.clone)
    const inputs = { name: 'two', 'repository-path': shared, 'base-ref': 'origin/main', fetch: 'true', rescue: 'branch' }
    const main2 = await second.uses('.', { ...inputs, restore: 'agent-worktree-rescue/one/agents-5-1' })
    expect(ran(), said(main2)).toEqual([])
    expect(main2.outputs['base-sha'], said(main2)).toBe(git(repos.origin, 'rev-parse', 'main'))
    expect(readOrNull(path.join(main2.outputs['worktree-path'], 'first.txt'))).toBe('first\n')
    write(main2.outputs['worktree-path'], 'notes.txt', 'notes\n')
    const [post] = await second.runPosts()
    expect(ran(), said(post)).toEqual([])
    expect(rescueBranches(), said(post)).toContain('agent-worktree-rescue/two/agents-6-1')
  })
})
