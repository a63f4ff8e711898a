// Covers: src/exit/exit-worktree.ts (locate), src/record/ through the bundles.
// Nothing an agent can write makes the action touch what it does not own. The agent can write its worktree,
// its git dir (agent-worktree.json, locked, HEAD) and the common git dir; a later step can export variables
// through GITHUB_ENV. Each case forges one of these and checks, through the committed bundles as the runner
// runs them, that another job's worktree, another clone, or a folder outside every worktree stays as it was.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { parseAllDocuments } from 'yaml'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, ROOT, type StepResult } from '../../scripts/runner.mjs'
import { branchExists, commit, git, makeRepos, readOrNull, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
/** Folders a defective build could create outside the test's root (worktrees-dir: /): removed after. */
const strays: string[] = []

beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => {
  for (const stray of strays.splice(0)) fs.rmSync(stray, { recursive: true, force: true })
  repos.cleanup()
})

/**
 * A job on `runner`. The runner's identity is its name, the host and the folder above RUNNER_TEMP: jobs of
 * one runner share that folder, jobs of different runners do not.
 */
function job(runner: string, run: number, env: Record<string, string> = {}): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runners', runner, '_temp'),
    env: { GITHUB_RUN_ID: String(run), GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: runner, ...env }
  })
}

function errorOf(step: StepResult): string {
  return step.annotations.find(a => a.level === 'error')?.message ?? ''
}

function gitDirOf(wt: string): string {
  return git(wt, 'rev-parse', '--absolute-git-dir')
}

const RECORD = 'agent-worktree.json'

function readRecord(gitDir: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(gitDir, RECORD), 'utf8')) as Record<string, unknown>
}

/** What the agent does: rewrites the record in its git dir. */
function forge(gitDir: string, patch: Record<string, unknown>): void {
  const record = { ...readRecord(gitDir), ...patch }
  for (const [key, value] of Object.entries(patch)) if (value === undefined) delete record[key]
  fs.writeFileSync(path.join(gitDir, RECORD), `${JSON.stringify(record, null, 2)}\n`)
}

function tokenOf(gitDir: string): string {
  return readRecord(gitDir).token as string
}

/** Whether the commit is still reachable from some ref, HEAD or reflog of the repository. */
function reachable(repo: string, sha: string): boolean {
  return git(repo, 'rev-list', '--all', '--reflog').split('\n').includes(sha)
}

/** A worktree another job holds: locked, with an uncommitted file and a commit that no remote has. */
interface Held {
  job: Job
  wt: string
  gitDir: string
  branch: string
  commit: string
  lock: string | null
  record: string | null
}

async function holdWork(runner = 'runner-2', name = 'held'): Promise<Held> {
  const holder = job(runner, 900)
  const main = await holder.uses('.', { name })
  expect(main.exitCode).toBe(0)
  const wt = main.outputs['worktree-path']
  const sha = commit(wt, 'unpushed.txt', 'unpushed work\n')
  write(wt, 'uncommitted.txt', 'uncommitted work\n')
  const gitDir = gitDirOf(wt)
  return {
    job: holder,
    wt,
    gitDir,
    branch: main.outputs.branch,
    commit: sha,
    lock: readOrNull(path.join(gitDir, 'locked')),
    record: readOrNull(path.join(gitDir, RECORD))
  }
}

function expectIntact(held: Held): void {
  expect(fs.existsSync(held.wt)).toBe(true)
  expect(readOrNull(path.join(held.wt, 'uncommitted.txt'))).toBe('uncommitted work\n')
  expect(readOrNull(path.join(held.wt, 'unpushed.txt'))).toBe('unpushed work\n')
  expect(git(held.wt, 'rev-parse', 'HEAD')).toBe(held.commit)
  expect(git(held.wt, 'branch', '--show-current')).toBe(held.branch)
  expect(git(repos.clone, 'rev-parse', `refs/heads/${held.branch}`)).toBe(held.commit)
  expect(worktreePaths(repos.clone)).toContain(held.wt)
  expect(readOrNull(path.join(held.gitDir, 'locked'))).toBe(held.lock)
  expect(readOrNull(path.join(held.gitDir, RECORD))).toBe(held.record)
}

describe('1. the exit sub-action on a record the agent forged to name another job’s worktree', () => {
  const forgeries: [string, (b: Held) => Record<string, unknown>][] = [
    ['path', b => ({ path: b.wt })],
    ['token', b => ({ token: tokenOf(b.gitDir) })],
    ['path and token', b => ({ path: b.wt, token: tokenOf(b.gitDir) })],
    ['path, token and id', b => ({ path: b.wt, token: tokenOf(b.gitDir), id: path.basename(b.gitDir) })],
    ['the whole record of B', b => readRecord(b.gitDir)]
  ]
  const cases = forgeries.flatMap(([what, patch]) => [false, true].map(discard => ({ what, patch, discard })))
  it.each(cases)('forged $what, discard-changes: $discard: B’s worktree and work survive', async ({ patch, discard }) => {
    const b = await holdWork()
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'a' })
    expect(main.exitCode).toBe(0)
    forge(gitDirOf(main.outputs['worktree-path']), patch(b))
    await a.uses('exit', discard ? { 'discard-changes': 'true' } : {})
    expectIntact(b)
    await a.runPosts()
    expectIntact(b)
  })

  it('forged token, id and branch of B, with B’s lock copied into A’s: the exit acts on A’s git dir, never on B', async () => {
    const b = await holdWork()
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'a' })
    const aGitDir = gitDirOf(main.outputs['worktree-path'])
    forge(aGitDir, { token: tokenOf(b.gitDir), id: path.basename(b.gitDir), branch: b.branch })
    fs.writeFileSync(path.join(aGitDir, 'locked'), b.lock!)
    const exit = await a.uses('exit', { 'discard-changes': 'true' })
    expect(exit.outputs['worktree-path']).toBe(main.outputs['worktree-path'])
    expectIntact(b)
    await a.runPosts()
    expectIntact(b)
  })
})

describe('2. a record whose path names a folder that holds only a .git file', () => {
  it('is never deleted, by the exit or by the post', async () => {
    // It looks like what a cut-short add leaves: its .git file points into this repository's worktrees.
    const victim = path.join(repos.root, 'victim')
    const pointer = `gitdir: ${path.join(repos.clone, '.git', 'worktrees', 'victim')}\n`
    write(victim, '.git', pointer)
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'a' })
    expect(main.exitCode).toBe(0)
    forge(gitDirOf(main.outputs['worktree-path']), { path: victim })
    await a.uses('exit')
    expect(readOrNull(path.join(victim, '.git'))).toBe(pointer)
    await a.runPosts()
    expect(readOrNull(path.join(victim, '.git'))).toBe(pointer)
    expect(fs.readdirSync(victim)).toEqual(['.git'])
  })
})

describe('3. a record whose repository names another clone', () => {
  it.each([
    ['repository', (other: string) => ({ repository: other })],
    ['repository and a path that is no worktree', (other: string) => ({ repository: other, path: path.join(repos.root, 'nowhere') })],
    [
      'repository, commonDir and a path that is no worktree',
      (other: string) => ({ repository: other, commonDir: path.join(other, '.git'), path: path.join(repos.root, 'nowhere') })
    ]
  ])('forged %s: the other clone’s branch of the same name survives', async (_what, patch) => {
    const other = path.join(repos.root, 'other-clone')
    git(repos.root, 'clone', '--quiet', repos.origin, other)
    git(other, 'branch', 'worktree-a')
    const refsBefore = git(other, 'for-each-ref')
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'a' })
    expect(main.exitCode).toBe(0)
    const wt = main.outputs['worktree-path']
    // Stepped off its branch (clean, nothing to lose), so that no worktree of the job has worktree-a checked out.
    git(wt, 'switch', '--quiet', '--detach')
    forge(gitDirOf(wt), patch(other))
    await a.uses('exit')
    await a.runPosts()
    expect(branchExists(other, 'worktree-a')).toBe(true)
    expect(git(other, 'for-each-ref')).toBe(refsBefore)
    expect(worktreePaths(other)).toEqual([other])
  })
})

describe('4. the exit pointed at another job’s locked worktree', () => {
  it.each([
    ['AGENT_WORKTREE_PATH exported by a later step', 'env'],
    ['the path input', 'input']
  ])('through %s: refused, naming the input; the other worktree intact', async (_title, how) => {
    const b = await holdWork()
    const a = job('runner-1', 1)
    expect((await a.uses('.', { name: 'a' })).exitCode).toBe(0)
    if (how === 'env') a.exported.AGENT_WORKTREE_PATH = b.wt
    const exit = await a.uses('exit', { 'discard-changes': 'true', ...(how === 'input' ? { path: b.wt } : {}) })
    expect(exit.exitCode).toBe(1)
    expect(errorOf(exit)).toContain("Input 'path")
    expectIntact(b)
  })
})

describe('5. the sweep at enter following a forged record and lock', () => {
  it.each([
    ['with a commit that no remote has', false],
    ['on purpose (on-exit: keep), clean', true]
  ])('leaves another runner’s worktree, kept %s, alone', async (_title, onPurpose) => {
    // Another runner's job kept its worktree.
    const k = job('runner-2', 5)
    const kMain = await k.uses('.', { name: 'kept', ...(onPurpose ? { 'on-exit': 'keep' } : {}) })
    expect(kMain.exitCode).toBe(0)
    const kWt = kMain.outputs['worktree-path']
    const kSha = onPurpose ? git(kWt, 'rev-parse', 'HEAD') : commit(kWt, 'work.txt', 'work\n')
    await k.runPosts()
    expect(fs.existsSync(kWt)).toBe(true)
    // An earlier job of runner-1, whose record shows what runner-1's owner looks like.
    const e = job('runner-1', 6)
    const eMain = await e.uses('.', { name: 'earlier' })
    expect(eMain.exitCode).toBe(0)
    const runner1Owner = (JSON.parse(eMain.state.worktree) as { owner: unknown }).owner
    await e.runPosts()
    // The agent rewrites the kept worktree's lock and record as if runner-1's earlier job had left it, with a
    // base at its newest commit and its branch checked out again.
    const kGitDir = gitDirOf(kWt)
    const token = '0123456789abcdef'
    fs.writeFileSync(path.join(kGitDir, 'locked'), `agent-worktree ${token}: run 6 attempt 1 job agents runner runner-1`)
    forge(kGitDir, { token, owner: runner1Owner, onExit: 'remove', onExitGiven: false, exited: undefined, baseSha: kSha, created: true })
    fs.writeFileSync(path.join(kGitDir, 'HEAD'), `ref: refs/heads/${kMain.outputs.branch}\n`)

    const later = job('runner-1', 7)
    const lMain = await later.uses('.', { name: 'later' })
    expect(lMain.exitCode).toBe(0)
    expect(fs.existsSync(kWt)).toBe(true)
    expect(worktreePaths(repos.clone)).toContain(kWt)
    expect(branchExists(repos.clone, kMain.outputs.branch)).toBe(true)
    expect(reachable(repos.clone, kSha)).toBe(true)
    if (!onPurpose) expect(readOrNull(path.join(kWt, 'work.txt'))).toBe('work\n')
  })
})

describe('6. "removing": true written into the record by the agent', () => {
  it.each([
    ['in place', false],
    ['with the folder moved where a removal moves it', true]
  ])('%s: the post does not force-remove; the work survives', async (_title, moveAside) => {
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'marked' })
    const wt = main.outputs['worktree-path']
    const sha = commit(wt, 'committed.txt', 'committed\n')
    write(wt, 'uncommitted.txt', 'uncommitted\n')
    forge(gitDirOf(wt), { removing: true })
    const aside = path.join(path.dirname(wt), `.${path.basename(wt)}.agent-worktree-removing`)
    if (moveAside) fs.renameSync(wt, aside)
    const [post] = await a.runPosts()
    // Kept where git has it registered, and where the message says, not where a removal moved it.
    expect(fs.existsSync(aside)).toBe(false)
    expect(post.outputs.message ?? post.stdout).toContain(wt)
    expect(readOrNull(path.join(wt, 'uncommitted.txt'))).toBe('uncommitted\n')
    expect(readOrNull(path.join(wt, 'committed.txt'))).toBe('committed\n')
    expect(reachable(repos.clone, sha)).toBe(true)
    expect(worktreePaths(repos.clone)).toContain(wt)
  })

  it('with the deletion already begun where a removal moves it: kept there, and the message names that place', async () => {
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'begun' })
    const wt = main.outputs['worktree-path']
    write(wt, 'uncommitted.txt', 'uncommitted\n')
    forge(gitDirOf(wt), { removing: true })
    const aside = path.join(path.dirname(wt), `.${path.basename(wt)}.agent-worktree-removing`)
    fs.renameSync(wt, aside)
    // A deletion begun takes the .git file with it: the folder cannot go back where git has it.
    fs.rmSync(path.join(aside, '.git'))
    const [post] = await a.runPosts()
    expect(readOrNull(path.join(aside, 'uncommitted.txt'))).toBe('uncommitted\n')
    expect(warnings(post).join('\n')).toContain(`Kept \`${aside}\``)
  })
})

describe('6b. the gitdir file of the worktree’s git dir deleted by the agent', () => {
  it('the post never deletes the git dir: the commit only its HEAD holds stays', async () => {
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'unlisted' })
    const wt = main.outputs['worktree-path']
    git(wt, 'switch', '--quiet', '--detach')
    const sha = commit(wt, 'detached.txt', 'detached work\n')
    const gitDir = gitDirOf(wt)
    fs.rmSync(path.join(gitDir, 'gitdir'))
    const [post] = await a.runPosts()
    expect(post.exitCode).toBe(0)
    // git no longer lists the worktree, so only its own HEAD holds the commit.
    expect(git(repos.clone, `--git-dir=${gitDir}`, 'rev-parse', 'HEAD'), post.stdout).toBe(sha)
    expect(readOrNull(path.join(wt, 'detached.txt'))).toBe('detached work\n')
  })
})

describe('7. entering by path a worktree that a running job holds', () => {
  it.each(['created', 'entered by path'])('one it %s: refused, naming path; its record and lock unchanged', async how => {
    let b: Held
    if (how === 'created') {
      b = await holdWork()
    } else {
      const wt = path.join(repos.root, 'by-hand')
      git(repos.clone, 'worktree', 'add', '--quiet', '-b', 'by-hand', wt)
      const sha = commit(wt, 'unpushed.txt', 'unpushed work\n')
      write(wt, 'uncommitted.txt', 'uncommitted work\n')
      const holder = job('runner-2', 900)
      expect((await holder.uses('.', { path: wt })).exitCode).toBe(0)
      const gitDir = gitDirOf(wt)
      b = {
        job: holder,
        wt,
        gitDir,
        branch: 'by-hand',
        commit: sha,
        lock: readOrNull(path.join(gitDir, 'locked')),
        record: readOrNull(path.join(gitDir, RECORD))
      }
    }
    expect(b.lock).toMatch(/^agent-worktree [0-9a-f]{16}: /)
    const a = job('runner-1', 1)
    const enter = await a.uses('.', { path: b.wt })
    expect(enter.exitCode).toBe(1)
    expect(errorOf(enter)).toContain("Input 'path'")
    expectIntact(b)
    await a.runPosts()
    expectIntact(b)
  })
})

describe('8. branch and base-ref that name a remote-tracking branch', () => {
  it('branch: origin/main is refused, naming branch', async () => {
    const refs = git(repos.clone, 'for-each-ref')
    const step = await job('runner-1', 1).uses('.', { branch: 'origin/main' })
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toContain("Input 'branch'")
    expect(git(repos.clone, 'for-each-ref')).toBe(refs)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })

  it('base-ref: origin/main beside a local branch origin/main is an error, not the local one', async () => {
    const local = commit(repos.clone, 'local-only.txt')
    git(repos.clone, 'update-ref', 'refs/heads/origin/main', local)
    expect(git(repos.clone, 'rev-parse', 'refs/remotes/origin/main')).not.toBe(local)
    const refs = git(repos.clone, 'for-each-ref')
    const step = await job('runner-1', 1).uses('.', { 'base-ref': 'origin/main' })
    expect(step.outputs['base-sha']).not.toBe(local)
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toContain("Input 'base-ref'")
    expect(git(repos.clone, 'for-each-ref')).toBe(refs)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })
})

describe('9. copying and linking through a symbolic link that the base commit tracks', () => {
  it.each(['include-file', 'symlink-dirs'])('%s: nothing is written outside the worktree, and a warning names the link', async input => {
    const outside = path.join(repos.root, 'outside')
    fs.mkdirSync(outside)
    // The checkout has config/ as a folder; the base, a branch, tracks config as a link to a folder outside.
    write(repos.clone, '.gitignore', '*.log\nbuild/\n.env\nnode_modules/\n')
    write(repos.clone, 'config/settings.txt', 'settings\n')
    git(repos.clone, 'add', '-A')
    git(repos.clone, 'commit', '--quiet', '-m', 'config folder')
    git(repos.clone, 'switch', '--quiet', '-c', 'linked')
    git(repos.clone, 'rm', '--quiet', '-r', 'config')
    fs.symlinkSync(outside, path.join(repos.clone, 'config'))
    git(repos.clone, 'add', 'config')
    git(repos.clone, 'commit', '--quiet', '-m', 'config is a link')
    git(repos.clone, 'push', '--quiet', 'origin', 'linked')
    git(repos.clone, 'switch', '--quiet', 'main')
    expect(fs.lstatSync(path.join(repos.clone, 'config')).isDirectory()).toBe(true)
    write(repos.clone, 'config/.env', 'SECRET=1\n')
    write(repos.clone, 'config/node_modules/pkg/index.js', 'module.exports = 1\n')
    const inputs: Record<string, string> = { name: 'linked', 'base-ref': 'origin/linked' }
    if (input === 'include-file') write(repos.clone, '.worktreeinclude', 'config/.env\n')
    else inputs['symlink-dirs'] = 'config/node_modules'

    expect(git(repos.clone, 'ls-tree', 'origin/linked', 'config')).toMatch(/^120000 /)

    const step = await job('runner-1', 1).uses('.', inputs)
    expect(fs.readdirSync(outside)).toEqual([])
    const what = input === 'include-file' ? 'config/.env' : 'config/node_modules'
    expect(warnings(step).some(w => w.includes(input) && w.includes(what) && /link/i.test(w))).toBe(true)
  })
})

describe('10. worktrees-dir and branch that git would take, or misread', () => {
  const refused: [string, (r: Repos) => string][] = [
    ['inside .git', r => path.join(r.clone, '.git', 'agent-wts')],
    ['inside .git/worktrees', r => path.join(r.clone, '.git', 'worktrees', 'agent-wts')],
    ['the root of the file system', () => '/'],
    ['inside the checkout, where git does not ignore it', r => path.join(r.clone, 'agent-wts')]
  ]
  it.each(refused)('%s is refused, naming worktrees-dir; nothing is created', async (_title, dirOf) => {
    const dir = dirOf(repos)
    const name = `aw-trust-${path.basename(repos.root).replace(/[^A-Za-z0-9]/g, '')}`
    if (dir === '/') strays.push(path.join('/', name))
    const existed = fs.existsSync(dir)
    const refs = git(repos.clone, 'for-each-ref')
    const step = await job('runner-1', 1).uses('.', { name, 'worktrees-dir': dir })
    expect(step.exitCode).toBe(1)
    expect(errorOf(step)).toContain("Input 'worktrees-dir'")
    expect(fs.existsSync(path.join(dir, name))).toBe(false)
    if (!existed) expect(fs.existsSync(dir)).toBe(false)
    expect(git(repos.clone, 'for-each-ref')).toBe(refs)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    const registered = path.join(repos.clone, '.git', 'worktrees')
    expect(fs.existsSync(registered) ? fs.readdirSync(registered).filter(id => id !== 'agent-wts') : []).toEqual([])
    git(repos.clone, 'fsck', '--no-progress')
  })

  it('inside the checkout where .gitignore ignores it is accepted', async () => {
    write(repos.clone, '.gitignore', '*.log\nbuild/\nagent-wts/\n')
    git(repos.clone, 'commit', '--quiet', '-am', 'ignore agent-wts')
    const dir = path.join(repos.clone, 'agent-wts')
    const j = job('runner-1', 1)
    const step = await j.uses('.', { name: 'inside', 'worktrees-dir': dir })
    expect(step.exitCode).toBe(0)
    expect(step.outputs['worktree-path']).toBe(path.join(dir, 'inside'))
    expect(git(repos.clone, 'status', '--porcelain')).toBe('')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })

  it('a 300-character branch is an error naming branch, not a raw git command line', async () => {
    const refs = git(repos.clone, 'for-each-ref')
    const step = await job('runner-1', 1).uses('.', { branch: 'x'.repeat(300) })
    expect(step.exitCode).toBe(1)
    const error = errorOf(step)
    expect(error).toContain("Input 'branch'")
    expect(error).not.toMatch(/git (-c \S+ )*worktree add|fatal:|--no-checkout|--lock/)
    expect(git(repos.clone, 'for-each-ref')).toBe(refs)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    expect(fs.existsSync(`${repos.clone}.worktrees`)).toBe(false)
  })
})

describe('11. script injection', () => {
  const PAYLOAD = '\n::error::injected $(touch pwned)'
  const ALLOWED = /^::(warning|error|debug|notice)( [^:]*)?::/

  /** No line of the step's output starts a workflow command other than the action's own annotations. */
  function expectNoInjection(step: StepResult): void {
    for (const line of `${step.stdout}\n${step.stderr}`.split(/\r?\n/)) {
      const trimmed = line.trimStart()
      if (!trimmed.startsWith('::')) continue
      expect(trimmed).toMatch(ALLOWED)
      expect(trimmed.startsWith('::error::injected')).toBe(false)
    }
    for (const [name, value] of Object.entries(step.outputs)) expect(`${name}=${value}`).not.toMatch(/[\r\n]/)
    expect(fs.existsSync(path.join(repos.root, 'pwned'))).toBe(false)
  }

  const kinds: [string, (wt: string) => string][] = [
    [
      'an untracked file and a nested repository whose names carry a command',
      wt => {
        write(wt, `notes${PAYLOAD}.txt`, 'x\n')
        const nested = path.join(wt, `nested${PAYLOAD}`)
        fs.mkdirSync(nested)
        git(nested, 'init', '--quiet')
        commit(nested, 'inner.txt')
        return wt
      }
    ],
    [
      'a gitlink whose git error text carries a command',
      wt => {
        const name = `sub${PAYLOAD}`
        git(wt, 'update-index', '--add', '--cacheinfo', `160000,${git(wt, 'rev-parse', 'HEAD')},${name}`)
        write(wt, path.join(name, '.git'), `gitdir: /nonexistent/x${PAYLOAD}\n`)
        return wt
      }
    ],
    [
      'the worktree moved to a folder whose name carries a command',
      wt => {
        write(wt, 'work.txt', 'work\n')
        const to = path.join(path.dirname(wt), `moved${PAYLOAD}`)
        git(repos.clone, 'worktree', 'unlock', wt)
        git(repos.clone, 'worktree', 'move', wt, to)
        return to
      }
    ]
  ]
  it.each(kinds)('%s: the exit’s message and every log line stay one line', async (_title, plant) => {
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'inject' })
    expect(main.exitCode).toBe(0)
    const wt = plant(main.outputs['worktree-path'])
    const exit = await a.uses('exit')
    expectNoInjection(exit)
    // The exit is told the worktree by its path at enter: one the agent moved is the post's to find.
    if (exit.exitCode === 0) {
      expect(exit.outputs.message).toBeTruthy()
      expect(exit.outputs.message).not.toMatch(/[\r\n]/)
      expect(exit.outputs.removed).toBe('false')
    }
    for (const post of await a.runPosts()) expectNoInjection(post)
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('a file copied by include-file whose name carries a command: every log line of the main step stays one line', async () => {
    write(repos.clone, '.gitignore', '*.log\nbuild/\n*.env\n')
    git(repos.clone, 'commit', '--quiet', '-am', 'ignore env files')
    write(repos.clone, `local${PAYLOAD}.env`, 'SECRET=1\n')
    write(repos.clone, '.worktreeinclude', '*.env\n')
    const a = job('runner-1', 1)
    const main = await a.uses('.', { name: 'include' })
    expect(main.exitCode).toBe(0)
    expectNoInjection(main)
    for (const post of await a.runPosts()) expectNoInjection(post)
  })

  it('every README snippet and example passes step outputs to run: only through env:', () => {
    const sources: [string, string][] = [
      ...fs
        .readdirSync(path.join(ROOT, 'examples'))
        .filter(f => /\.ya?ml$/.test(f))
        .map((f): [string, string] => [`examples/${f}`, fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8')]),
      ...[...fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m, i): [string, string] => [
        `README.md snippet ${i + 1}`,
        dedent(m[1])
      ])
    ]
    expect(sources.length).toBeGreaterThan(0)
    const problems: string[] = []
    for (const [where, text] of sources) {
      const docs = parseAllDocuments(text)
      for (const doc of Array.isArray(docs) ? docs : [docs]) {
        if (doc.errors.length) {
          problems.push(`${where}: does not parse: ${doc.errors[0].message}`)
          continue
        }
        for (const run of runBlocks(doc.toJS())) {
          const expression = /\$\{\{[\s\S]*?\}\}/.exec(run)
          if (expression) problems.push(`${where}: run: block uses ${expression[0]}`)
        }
      }
    }
    expect(problems).toEqual([])
  })
})

function dedent(text: string): string {
  const lines = text.split('\n')
  const indent = Math.min(...lines.filter(l => l.trim()).map(l => l.length - l.trimStart().length))
  return lines.map(l => l.slice(indent)).join('\n')
}

/** The value of every `run:` key anywhere in the parsed YAML. */
function runBlocks(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(runBlocks)
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => (key === 'run' && typeof v === 'string' ? [v] : runBlocks(v)))
  }
  return []
}
