// Covers: src/git/ (sealed-git, git-command-manager), src/os/processes.ts through the bundles.
// Our steps are a privilege boundary: main, post and exit hold the job's runtime credentials
// (ACTIONS_RUNTIME_TOKEN and the service URLs, which a `run:` step never gets) and run outside any sandbox
// the agent had. Nothing the agent wrote may run a program in them, reach those credentials, block them,
// carry a secret off the machine, or take a removal past the worktree. Each case plants what an agent can
// write (the shared config, config.worktree, an included file, info/attributes, .gitattributes, hooks, named
// pipes, mounts, a forged record) and runs the committed bundles as the runner runs them, watching every
// program they start.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { serveOrigin } from '../helpers/http-origin.js'
import { restoreCommandsOf } from '../helpers/restore.js'
import { startResultsService } from '../helpers/results-service.js'
import { commit, git, makeRepos, readOrNull, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
let marker: string
let markerLog: string
const cleanups: (() => void | Promise<void>)[] = []

beforeEach(() => {
  repos = makeRepos()
  markerLog = path.join(repos.root, 'marker.log')
  marker = path.join(repos.root, 'marker.sh')
  // Logs that it ran, and whether it holds the runtime token; passes its input on (as a filter would).
  fs.writeFileSync(
    marker,
    `#!/bin/sh\n{ printf '%s' "$0 $*"; [ -n "\${ACTIONS_RUNTIME_TOKEN+x}" ] && printf ' [token]'; echo; } >>'${markerLog}'\ncat 2>/dev/null\nexit 0\n`,
    { mode: 0o755 }
  )
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  repos.cleanup()
})

function job(env: Record<string, string> = {}): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1', ...env },
    watchChildren: true
  })
}

/** What the marker logged since the last call; clears the log. */
function ran(): string[] {
  const text = readOrNull(markerLog) ?? ''
  fs.rmSync(markerLog, { force: true })
  return text.split('\n').filter(Boolean)
}

/** No program the step started had the runtime token, and the marker never ran. */
function expectSealed(step: StepResult): void {
  expect(ran()).toEqual([])
  expect(step.children?.filter(c => c.token)).toEqual([])
  expect(step.gitCallsWithToken).toEqual([])
  // The shim saw the step's git calls (the watch itself is tested in runner-emulation.test.ts; a call of a
  // few milliseconds may pass between two of its looks).
  expect(step.gitCalls?.length).toBeGreaterThan(0)
}

const HOOKS = [
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-push',
  'pre-receive',
  'update',
  'proc-receive',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'post-index-change',
  'fsmonitor-watchman'
]

/** Every hook, as the marker, in `dir`. */
function plantHooks(dir: string): void {
  fs.mkdirSync(dir, { recursive: true })
  for (const hook of HOOKS) fs.copyFileSync(marker, path.join(dir, hook))
}

/**
 * Every configuration that names a program, in one config file: filters, diff and merge drivers, an external
 * diff, fsmonitor, hooks, pagers and editors, askpass and credential helpers, ssh commands, proxies,
 * receive-pack and upload-pack, an ext:: push URL and an insteadOf that leads to one, signing, alternate refs,
 * push options and follow-tags.
 */
function plantConfig(file: string, hooks: string): void {
  const set = (key: string, value: string): string => git(repos.root, 'config', '--file', file, key, value)
  for (const kind of ['clean', 'smudge', 'process']) set(`filter.evil.${kind}`, marker)
  set('diff.evil.textconv', marker)
  set('diff.evil.command', marker)
  set('diff.external', marker)
  set('merge.evil.driver', marker)
  set('core.fsmonitor', marker)
  set('core.hooksPath', hooks)
  for (const key of ['core.pager', 'pager.log', 'pager.status', 'pager.diff', 'core.editor', 'sequence.editor', 'core.askPass', 'gpg.program']) set(key, marker)
  set('credential.helper', `!${marker}`)
  set('core.sshCommand', marker)
  set('core.gitProxy', marker)
  set('core.alternateRefsCommand', marker)
  set('remote.origin.receivepack', marker)
  set('remote.origin.uploadpack', marker)
  set(`remote.${repos.origin}.receivepack`, marker)
  set('protocol.ext.allow', 'always')
  set('protocol.allow', 'always')
  set('remote.origin.pushurl', `ext::${marker} %S`)
  set(`url.ext::${marker} %S #.pushInsteadOf`, repos.origin)
  set('commit.gpgSign', 'true')
  set('log.showSignature', 'true')
  set('push.gpgSign', 'true')
  set('push.followTags', 'true')
  set('push.pushOption', 'evil')
  set('push.recurseSubmodules', 'on-demand')
  set('status.submoduleSummary', 'true')
}

const ATTRIBUTES = '* filter=evil diff=evil merge=evil\n'

/**
 * The agent plants everything it can reach in the repository: the shared config (and a file it includes),
 * the per-worktree config, info/attributes, hooks; in its worktree .gitattributes.
 */
function plantEverything(wt: string | undefined): void {
  const common = path.join(repos.clone, '.git')
  const hooks = path.join(repos.root, 'planted-hooks')
  plantHooks(hooks)
  plantHooks(path.join(common, 'hooks'))
  const included = path.join(repos.root, 'included.config')
  plantConfig(included, hooks)
  plantConfig(path.join(common, 'config'), hooks)
  git(repos.clone, 'config', 'include.path', included)
  fs.mkdirSync(path.join(common, 'info'), { recursive: true })
  fs.writeFileSync(path.join(common, 'info', 'attributes'), ATTRIBUTES)
  // An alternate, so that alternate refs would be asked for.
  fs.mkdirSync(path.join(common, 'objects', 'info'), { recursive: true })
  fs.appendFileSync(path.join(common, 'objects', 'info', 'alternates'), `${path.join(repos.origin, 'objects')}\n`)
  if (wt) {
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir')
    git(repos.clone, 'config', 'extensions.worktreeConfig', 'true')
    plantConfig(path.join(gitDir, 'config.worktree'), hooks)
    write(wt, '.gitattributes', ATTRIBUTES)
  }
}

function remoteRefs(): string[] {
  return git(repos.origin, 'for-each-ref', '--format=%(refname)').split('\n').filter(Boolean)
}

describe('1. programs named by what the agent planted never run in our steps, and none gets the runtime token', () => {
  it('post: a kept worktree is judged, rescued to a branch and reported; nothing planted runs, nothing but the rescue branch is pushed', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'planted', rescue: 'branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    expectSealed(main)
    const wt = main.outputs['worktree-path']
    // The agent's work: a commit, an edit of the same size (git must read the file), a new file, a release tag.
    commit(wt, 'feature.txt')
    write(wt, 'src/app.txt', 'ppa\n')
    fs.utimesSync(path.join(wt, 'src/app.txt'), new Date(0), new Date(0))
    write(wt, 'notes.txt', 'notes\n')
    git(wt, 'tag', '-a', 'v9.9.9', '-m', 'a release prepared before the job')
    const before = remoteRefs()
    plantEverything(wt)
    ran()
    const [post] = await j.runPosts()
    expectSealed(post)
    expect(fs.existsSync(wt)).toBe(true)
    // (The commit is saved: the tag the agent made holds it, on a machine that stays.)
    expect(warnings(post).join('\n')).toMatch(/Kept .*: it has 3 uncommitted files/)
    // Exactly one ref more on the remote: the rescue branch, and no tag.
    const added = remoteRefs().filter(ref => !before.includes(ref))
    expect(added).toEqual([expect.stringMatching(/^refs\/heads\/agent-worktree-rescue\/planted\//)])
    expect(warnings(post).join('\n')).toContain('pushed to the branch `agent-worktree-rescue/planted/')
  })

  it('exit sub-action: the same, through its own rescue; and the post after it', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'planted-exit' })
    const wt = main.outputs['worktree-path']
    commit(wt, 'feature.txt')
    write(wt, 'notes.txt', 'notes\n')
    const before = remoteRefs()
    plantEverything(wt)
    ran()
    const exit = await j.uses('exit', { rescue: 'branch' })
    expectSealed(exit)
    expect(exit.outputs.reason).toBe('unsaved')
    expect(exit.outputs.rescued).toBe('true')
    expect(remoteRefs().filter(ref => !before.includes(ref))).toEqual([`refs/heads/${exit.outputs['rescue-ref']}`])
    const [post] = await j.runPosts()
    expectSealed(post)
  })

  it('post: a clean worktree is removed and its branch deleted; nothing planted in the repository runs', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'planted-clean' })
    const wt = main.outputs['worktree-path']
    plantEverything(undefined)
    ran()
    const [post] = await j.runPosts()
    expectSealed(post)
    expect(fs.existsSync(wt)).toBe(false)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })

  it('main: what a main step never needs (hooks, fsmonitor, pagers, editors, signing, diff drivers, ext::) never runs there; nor in the sweep of a leftover', async () => {
    // An earlier job's agent planted it all, and its post never ran (the runner was killed): a leftover.
    const earlier = job({ GITHUB_RUN_ID: '4' })
    const left = await earlier.uses('.', { name: 'leftover' })
    write(left.outputs['worktree-path'], 'notes.txt', 'notes\n')
    plantEverything(left.outputs['worktree-path'])
    // Filters and attributes the base's files would go through are the checkout's own business at enter.
    fs.rmSync(path.join(repos.clone, '.git', 'info', 'attributes'))
    ran()
    const j = job()
    const main = await j.uses('.', { name: 'after-planting' })
    expect(main.exitCode, main.stdout).toBe(0)
    expectSealed(main)
    expect(fs.existsSync(left.outputs['worktree-path'])).toBe(true)
  })
})

describe('2. the rescue push sends one ref, to the remote of enter, with the credentials of enter', () => {
  it('reaches an origin that wants actions/checkout’s persisted credentials (an included file), at the URL of enter', async () => {
    const origin = await serveOrigin(repos.origin)
    cleanups.push(() => origin.close())
    const credentials = path.join(repos.root, 'git-credentials-0f0e0d0c-0b0a-4908-8706-050403020100.config')
    fs.writeFileSync(credentials, `[http "${origin.url.replace(/[^/]+$/, '')}"]\n\textraheader = AUTHORIZATION: ${origin.authorization}\n`)
    git(repos.clone, 'remote', 'set-url', 'origin', origin.url)
    git(repos.clone, 'config', `includeIf.gitdir:${path.join(repos.clone, '.git')}.path`, credentials)
    git(repos.clone, 'config', `includeIf.gitdir:${path.join(repos.clone, '.git', 'worktrees')}/*.path`, credentials)
    const j = job()
    const main = await j.uses('.', { name: 'with-credentials', rescue: 'branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    // The agent adds a header of its own, and points the remote elsewhere.
    git(repos.clone, 'config', `http.${origin.url}.extraheader`, 'X-Agent: planted')
    git(repos.clone, 'remote', 'set-url', '--push', 'origin', 'http://127.0.0.1:9/elsewhere.git')
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n')).toContain('pushed to the branch')
    expect(origin.requests.filter(r => r.method === 'POST' && r.url.endsWith('git-receive-pack')).every(r => r.authorised)).toBe(true)
    expect(origin.requests.some(r => r.url.endsWith('git-receive-pack') && r.authorised)).toBe(true)
    expect(git(repos.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent-worktree-rescue/')).toMatch(/with-credentials/)
  })

  it('never overwrites a branch of that name that is already on the remote', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'taken', rescue: 'branch' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    const someone = git(repos.clone, 'rev-parse', 'HEAD')
    git(repos.clone, 'push', '--quiet', 'origin', `${someone}:refs/heads/agent-worktree-rescue/taken/agents-5-1`)
    const [post] = await j.runPosts()
    // The name is taken: the rescue takes the next one, and the branch that was there stays as it was.
    expect(warnings(post).join('\n')).toContain('pushed to the branch `agent-worktree-rescue/taken/agents-5-1-take2` of `origin`')
    expect(git(repos.origin, 'rev-parse', 'refs/heads/agent-worktree-rescue/taken/agents-5-1')).toBe(someone)
    expect(git(repos.origin, 'show', 'refs/heads/agent-worktree-rescue/taken/agents-5-1-take2:notes.txt')).toBe('notes')
  })
})

/** Runs a command line as a person would paste it into a shell, with git and gh that only log. */
function paste(command: string): string[] {
  const bin = path.join(repos.root, 'paste-bin')
  const log = path.join(repos.root, 'paste.log')
  fs.mkdirSync(bin, { recursive: true })
  for (const tool of ['git', 'gh']) fs.writeFileSync(path.join(bin, tool), `#!/bin/sh\nprintf '%s\\n' "${tool} $*" >>'${log}'\n`, { mode: 0o755 })
  spawnSync('/bin/sh', ['-c', command], { cwd: repos.root, env: { PATH: `${bin}:/usr/bin:/bin` } })
  return (readOrNull(log) ?? '').split('\n').filter(Boolean)
}

describe('3. names in a command a person may paste', () => {
  it('a name forged in the record the exit sub-action reads runs nothing when its restore command is pasted', async () => {
    // A forged record is no longer sealed: it is a hint, and sends nothing (the remote of enter, and what the
    // job brought in, are unknown); whatever the message gives to paste runs nothing of the name.
    const service = await startResultsService()
    cleanups.push(() => service.close())
    const j = job({ ...service.env, GITHUB_REPOSITORY: 'octo/sample' })
    const main = await j.uses('.', { name: 'forged-name', rescue: 'artifact' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir')
    const recordFile = path.join(gitDir, 'agent-worktree.json')
    const record = JSON.parse(fs.readFileSync(recordFile, 'utf8')) as Record<string, unknown>
    fs.writeFileSync(recordFile, JSON.stringify({ ...record, name: `x;${marker}\${IFS}pwned;y` }))
    const exit = await j.uses('exit', { rescue: 'artifact' })
    expect(exit.outputs.rescued, exit.stdout).toBe('false')
    expect(warnings(exit).join('\n')).toContain('Rescue: nothing was sent: what the job brought in')
    expect(service.artifacts.size).toBe(0)
    expect(restoreCommandsOf(exit.outputs.message)).toEqual([])
    for (const command of exit.outputs.message.match(/git -C .*? goes back/g) ?? []) paste(command.replace(/ goes back$/, ''))
    expect(ran()).toEqual([])
  })
})

/** A named pipe at `file` in place of what was there. */
function fifo(file: string): void {
  fs.rmSync(file, { force: true })
  execFileSync('mkfifo', [file])
}

describe('4. named pipes, sockets and devices: work, never read; no step waits on one', () => {
  it('a tracked file replaced by a named pipe: the post keeps the worktree at once, names the pipe, rescues the rest', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'piped', rescue: 'branch' })
    const wt = main.outputs['worktree-path']
    fifo(path.join(wt, 'src/app.txt'))
    write(wt, 'notes.txt', 'notes\n')
    const [post] = await j.runPosts({ timeoutMinutes: 1 })
    expect(post.stoppedBy).toBeUndefined()
    expect(post.durationMs).toBeLessThan(20_000)
    const said = warnings(post).join('\n')
    expect(said).toMatch(/Kept/)
    expect(said).toContain('`src/app.txt` (a named pipe)')
    expect(said).toMatch(/pushed to the branch/)
    const branch = /pushed to the branch `(\S+)` of/.exec(said)?.[1] ?? ''
    expect(git(repos.origin, 'show', `refs/heads/${branch}:notes.txt`)).toBe('notes')
  })

  it('a .gitignore that is a named pipe stops git: the post stops it, keeps the worktree, names the pipe, in seconds', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'blocked' })
    const wt = main.outputs['worktree-path']
    fs.mkdirSync(path.join(wt, 'deep'))
    fifo(path.join(wt, 'deep', '.gitignore'))
    const [post] = await j.runPosts({ timeoutMinutes: 1 })
    expect(post.stoppedBy).toBeUndefined()
    expect(post.durationMs).toBeLessThan(20_000)
    const said = warnings(post).join('\n')
    expect(said).toMatch(/Kept .*state could not be determined/)
    expect(said).toContain(path.join('deep', '.gitignore'))
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('a pipe in place of a tracked file, with the runner’s cancel: the post hears SIGINT, keeps the worktree, no git of ours outlives it', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'cancelled' })
    const wt = main.outputs['worktree-path']
    fifo(path.join(wt, 'src/app.txt'))
    fifo(path.join(wt, '.gitignore'))
    const [post] = await j.runPosts({ cancel: { afterMs: 300 } })
    // Stopped by SIGINT, or done before it: never SIGTERM or SIGKILL.
    expect(post.signals.map(s => s.signal).filter(s => s !== 'SIGINT')).toEqual([])
    expect(fs.existsSync(wt)).toBe(true)
    expect(j.strays()).toEqual([])
  })

  it('pipes in the git dir (index, HEAD’s reflog, the record, the lock) and in place of the repository lock: every step ends, the work stays', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'piped-git-dir' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir')
    for (const file of ['index', 'logs/HEAD', 'agent-worktree.json', 'locked']) fifo(path.join(gitDir, file))
    fifo(path.join(repos.clone, '.git', 'agent-worktree.lock'))
    const exit = await j.uses('exit', {}, { timeoutMinutes: 1 })
    expect(exit.stoppedBy).toBeUndefined()
    const [post] = await j.runPosts({ timeoutMinutes: 1 })
    expect(post.stoppedBy).toBeUndefined()
    expect(readOrNull(path.join(wt, 'notes.txt'))).toBe('notes\n')
    // The next job's main step, which sweeps, is not held either: git's own listing of the worktrees would wait for
    // ever on the pipe in place of the other worktree's lock; the step reads each lock itself, and never a pipe.
    fs.rmSync(path.join(repos.clone, '.git', 'agent-worktree.lock'), { force: true })
    const next = await job({ GITHUB_RUN_ID: '6' }).uses('.', { name: 'next' }, { timeoutMinutes: 1 })
    expect(next.stoppedBy).toBeUndefined()
    expect(next.durationMs).toBeLessThan(20_000)
    expect(next.exitCode, next.stdout).toBe(0)
    expect(readOrNull(path.join(wt, 'notes.txt'))).toBe('notes\n')
  })

  it('a socket in place of a tracked file, and (as root) a device: kept and named, never read', async t => {
    const j = job()
    const main = await j.uses('.', { name: 'sockets' })
    const wt = main.outputs['worktree-path']
    fs.rmSync(path.join(wt, 'src/app.txt'))
    const server = net.createServer()
    await new Promise<void>(resolve => server.listen(path.join(wt, 'src/app.txt'), resolve))
    cleanups.push(() => new Promise<void>(resolve => server.close(() => resolve())))
    const root = process.getuid?.() === 0
    if (root) {
      fs.rmSync(path.join(wt, 'README.md'))
      execFileSync('mknod', [path.join(wt, 'README.md'), 'c', '1', '3'])
    } else t.annotate('not root: no device node was made (mknod needs root)')
    const [post] = await j.runPosts({ timeoutMinutes: 1 })
    expect(post.stoppedBy).toBeUndefined()
    const said = warnings(post).join('\n')
    expect(said).toContain('`src/app.txt` (a socket)')
    if (root) expect(said).toContain('`README.md` (a device)')
    expect(fs.existsSync(wt)).toBe(true)
  })
})

describe('5. removal never crosses a mount point', () => {
  const root = process.getuid?.() === 0
  it.skipIf(!root)('a folder bind-mounted inside the worktree: kept, the mount named, the files that live elsewhere intact (needs root)', async () => {
    const elsewhere = path.join(repos.root, 'elsewhere')
    write(elsewhere, 'precious.txt', 'precious\n')
    const j = job()
    const main = await j.uses('.', { name: 'mounted', 'discard-changes': 'true' })
    const wt = main.outputs['worktree-path']
    const point = path.join(wt, 'build')
    fs.mkdirSync(point)
    execFileSync('mount', ['--bind', elsewhere, point])
    cleanups.push(() => void spawnSync('umount', ['-l', point]))
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n')).toMatch(/another file system is mounted inside it \(`.*build`\)/)
    expect(readOrNull(path.join(elsewhere, 'precious.txt'))).toBe('precious\n')
    expect(fs.existsSync(wt)).toBe(true)
  })

  it.skipIf(root)('(skipped: a bind mount needs root)', () => undefined)
})
