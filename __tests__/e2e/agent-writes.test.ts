// Covers: src/sandbox/paths.ts, src/exit/clones.ts, src/exit/exit-worktree.ts, src/exit/worktree-pool.ts, src/enter/sweep.ts
// through the committed bundles.
// What an agent writes in the common dir is never believed: our clone registry (<common dir>/agent-worktree-clones)
// is read-only to an agent confined by the run sub-action, as the other worktrees' git dirs are; and an entry
// forged there anyway (by an agent under a sandbox of its own making, which does not list it) sends no post, pool or
// sweep to a folder the main step did not make. The shared clone of a self-hosted machine: one job's agent in a
// worktree, other jobs' clones beside it.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { spawnSync } from 'node:child_process'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { commit, git, makeRepos, type Repos } from '../helpers/repos.js'
import { inSrt, sandboxesHere } from '../helpers/sandboxes.js'
import { warnings } from '../helpers/steps.js'

const CONFINED = sandboxesHere('the confined agent of __tests__/e2e/agent-writes.test.ts')

function reposFor(t: TestContext): Repos {
  const repos = makeRepos()
  t.onTestFinished(() => repos.cleanup())
  return repos
}

/** A job of the runner `runner`, whose workspace is not the shared clone: the clone is given as repository-path. */
function job(repos: Repos, runner: string, run = '7'): Job {
  const workspace = path.join(repos.root, runner, 'workspace')
  fs.mkdirSync(workspace, { recursive: true })
  return new Job({ workspace, temp: path.join(repos.root, runner, '_temp'), env: { RUNNER_NAME: runner, GITHUB_RUN_ID: run, GITHUB_JOB: runner } })
}

async function enter(j: Job, inputs: Record<string, string>): Promise<StepResult> {
  const main = await j.uses('.', inputs)
  expect(main.exitCode, main.stdout).toBe(0)
  return main
}

/**
 * The agent's script, run twice: confined by the run sub-action of its job (where bubblewrap is there), which must
 * refuse it; then as an agent under a sandbox that does not list our folders would run it, on the host.
 */
async function asAgent(j: Job, script: string): Promise<void> {
  if (CONFINED) {
    const run = await j.uses('run', { command: `if ( ${script} ) 2>/dev/null; then echo WROTE; else echo refused; fi` })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout.trim()).toBe('refused')
  }
  const forged = spawnSync('sh', ['-ec', script], { encoding: 'utf8' })
  expect(forged.status, forged.stderr).toBe(0)
}

/** The original checkout as a person sees it: its files, HEAD and branches. */
function stateOf(repo: string): string {
  return [
    fs.existsSync(path.join(repo, '.git', 'HEAD')),
    git(repo, 'status', '--porcelain'),
    git(repo, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/')
  ].join('\n')
}

const sh = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`

describe.concurrent('the clone registry is not the agent’s to write, nor believed', () => {
  it("another clone's gitdir pointed at the original checkout: that clone's post keeps its own work and never touches the original", async t => {
    const repos = reposFor(t)
    const common = path.join(repos.clone, '.git')
    const a = job(repos, 'runner-a')
    const clone = (await enter(a, { 'repository-path': repos.clone, isolation: 'clone', name: 'a' })).outputs['worktree-path']
    const made = commit(clone, 'work.txt')
    const b = job(repos, 'runner-b')
    await enter(b, { 'repository-path': repos.clone, name: 'b' })
    const before = stateOf(repos.clone)
    await asAgent(b, `printf '%s\\n' ${sh(common)} > ${sh(path.join(common, 'agent-worktree-clones', 'a', 'gitdir'))}`)
    const [post] = await a.runPosts()
    expect(stateOf(repos.clone), post.stdout).toBe(before)
    expect(git(clone, 'rev-parse', 'HEAD')).toBe(made)
    expect(post.stdout).toContain(`Kept \`${clone}\``)
  })

  it("another clone's gitdir pointed at a decoy: that clone's post judges the real clone, keeps its work, never reports it removed", async t => {
    const repos = reposFor(t)
    const common = path.join(repos.clone, '.git')
    const a = job(repos, 'runner-a')
    const clone = (await enter(a, { 'repository-path': repos.clone, isolation: 'clone', name: 'a' })).outputs['worktree-path']
    const made = commit(clone, 'work.txt')
    const b = job(repos, 'runner-b')
    const wt = (await enter(b, { 'repository-path': repos.clone, name: 'b' })).outputs['worktree-path']
    // A clean repository of the agent's own, in its worktree.
    const decoy = path.join(wt, 'decoy')
    await asAgent(
      b,
      `git init -q ${sh(decoy)} && printf '%s\\n' ${sh(path.join(decoy, '.git'))} > ${sh(path.join(common, 'agent-worktree-clones', 'a', 'gitdir'))}`
    )
    const [post] = await a.runPosts()
    expect(post.stdout).not.toContain('removed')
    expect(post.stdout).toContain(`Kept \`${clone}\`: it has 1 unsaved commit.`)
    expect(git(clone, 'rev-parse', 'HEAD')).toBe(made)
  })

  it('a forged parked clone naming the original checkout: the next recycle + clone main step takes nothing of it', async t => {
    const repos = reposFor(t)
    const common = path.join(repos.clone, '.git')
    const b = job(repos, 'runner-b')
    await enter(b, { 'repository-path': repos.clone, name: 'b' })
    const head = git(repos.clone, 'rev-parse', 'HEAD')
    const entry = path.join(common, 'agent-worktree-clones', 'forged')
    const record = JSON.stringify({ token: '0123456789abcdef', exited: 'parked', parkedHead: head, parked: new Date().toISOString() })
    await asAgent(
      b,
      [
        `mkdir -p ${sh(entry)}`,
        `printf '%s\\n' ${sh(common)} > ${sh(path.join(entry, 'gitdir'))}`,
        `printf '%s\\n' ${sh(`agent-worktree parked ${new Date().toISOString()}`)} > ${sh(path.join(entry, 'locked'))}`,
        `printf '%s\\n' ${sh(record)} > ${sh(path.join(entry, 'agent-worktree.json'))}`,
        `git -C ${sh(repos.clone)} update-ref refs/agent-worktree/borrowed/forged HEAD`
      ].join(' && ')
    )
    const before = stateOf(repos.clone)
    const c = job(repos, 'runner-c')
    const main = await enter(c, { 'repository-path': repos.clone, isolation: 'clone', recycle: 'true', name: 'c' })
    expect(main.stdout).not.toContain('from the pool')
    expect(stateOf(repos.clone)).toBe(before)
    expect(fs.readdirSync(repos.clone).sort()).toEqual(['.git', '.gitignore', 'README.md', 'src'])
  })

  it("a forged clone entry and borrowed ref naming the original checkout: the next job's sweep leaves the shared clone and another job's kept work alone", async t => {
    const repos = reposFor(t)
    const common = path.join(repos.clone, '.git')
    // Another job's worktree, kept with an unpushed commit.
    const k = job(repos, 'runner-k')
    const kept = (await enter(k, { 'repository-path': repos.clone, name: 'k', 'on-exit': 'keep' })).outputs['worktree-path']
    const unpushed = commit(kept, 'kept.txt')
    await k.runPosts()
    // An earlier job of the sweeper's runner: its clone's record is what the agent copies.
    const earlier = job(repos, 'sweeper', '7')
    await enter(earlier, { 'repository-path': repos.clone, isolation: 'clone', name: 'real' })
    const b = job(repos, 'runner-b')
    await enter(b, { 'repository-path': repos.clone, name: 'b' })
    const entry = path.join(common, 'agent-worktree-clones', 'forged')
    const recordOf = JSON.parse(fs.readFileSync(path.join(common, 'agent-worktree-clones', 'real', 'agent-worktree.json'), 'utf8')) as Record<string, unknown>
    const record = JSON.stringify({ ...recordOf, token: '0123456789abcdef', id: 'forged', path: repos.clone, mac: undefined })
    await asAgent(
      b,
      [
        `mkdir -p ${sh(entry)}`,
        `printf '%s\\n' ${sh(common)} > ${sh(path.join(entry, 'gitdir'))}`,
        `printf '%s\\n' ${sh('agent-worktree 0123456789abcdef: run 7 attempt 1 job sweeper runner sweeper')} > ${sh(path.join(entry, 'locked'))}`,
        `printf '%s\\n' ${sh(record)} > ${sh(path.join(entry, 'agent-worktree.json'))}`,
        `git -C ${sh(repos.clone)} update-ref refs/agent-worktree/borrowed/forged "$(git -C ${sh(repos.clone)} commit-tree HEAD^{tree} $(git -C ${sh(repos.clone)} for-each-ref --format='-p %(objectname)' refs/heads refs/agent-worktree) -m x)"`
      ].join(' && ')
    )
    const before = stateOf(repos.clone)
    const later = job(repos, 'sweeper', '8')
    const main = await enter(later, { 'repository-path': repos.clone, isolation: 'clone', name: 'next' })
    expect(stateOf(repos.clone), main.stdout).toBe(before)
    expect(git(kept, 'cat-file', '-t', unpushed)).toBe('commit')
  })

  it("the sweep quotes every field of a kept clone's record it prints: an owner the agent rewrote forms no Markdown and starts no line", async t => {
    const repos = reposFor(t)
    const common = path.join(repos.clone, '.git')
    const earlier = job(repos, 'sweeper', '7')
    const kept = (await enter(earlier, { 'repository-path': repos.clone, isolation: 'clone', name: 'kept', 'on-exit': 'keep' })).outputs['worktree-path']
    const b = job(repos, 'runner-b')
    await enter(b, { 'repository-path': repos.clone, name: 'b' })
    const file = path.join(common, 'agent-worktree-clones', 'kept', 'agent-worktree.json')
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as { owner: Record<string, string> }
    const job2 = 'sweeper`](https://example.com) **bold**\n::error::forged'
    const forged = JSON.stringify({ ...record, owner: { ...record.owner, job: job2, run: '7\u202e-1' } })
    await asAgent(b, `printf '%s\\n' ${sh(forged)} > ${sh(file)}`)
    const later = job(repos, 'sweeper', '8')
    const main = await enter(later, { 'repository-path': repos.clone, isolation: 'clone', name: 'next' })
    expect(main.stdout).toContain(
      `Kept by earlier jobs, left as they are: \`${kept}\` (by an earlier job of this runner (run \`7\\u202e\` attempt \`1\` job \`\`sweeper\`](https://example.com) **bold**\\n::error::forged\`\` runner \`sweeper\``
    )
    expect(main.stdout).not.toMatch(/^::error::forged/m)
  })
})

/** The agent's script, confined by the run sub-action of its job where bubblewrap is there, else on the host: refs are its to write either way. */
async function inRun(j: Job, script: string): Promise<void> {
  if (!CONFINED) {
    const ran = spawnSync('sh', ['-ec', script], { encoding: 'utf8', cwd: j.env.AGENT_WORKTREE_PATH })
    expect(ran.status, ran.stderr).toBe(0)
    return
  }
  const run = await j.uses('run', { command: script })
  expect(run.exitCode, run.stdout + run.stderr).toBe(0)
}

describe.concurrent('refs of ours the agent can write', () => {
  it('a link at refs/agent-worktree, or at refs/agent-worktree/kept, leads no write of ours out of the repository', async t => {
    for (const [what, planted] of [
      [
        'refs/agent-worktree',
        (common: string, elsewhere: string) => `rm -rf ${sh(common)}/refs/agent-worktree && ln -s ${sh(elsewhere)} ${sh(common)}/refs/agent-worktree`
      ],
      [
        'refs/agent-worktree/kept',
        (common: string, elsewhere: string) => `mkdir -p ${sh(common)}/refs/agent-worktree && ln -s ${sh(elsewhere)} ${sh(common)}/refs/agent-worktree/kept`
      ]
    ] as const) {
      const repos = reposFor(t)
      const common = path.join(repos.clone, '.git')
      // A folder of the original checkout: the agent cannot write it, our post could.
      const elsewhere = path.join(repos.clone, 'src')
      const before = fs.readdirSync(elsewhere).sort()
      const a = job(repos, 'runner-a')
      const wt = (await enter(a, { 'repository-path': repos.clone, name: 'a' })).outputs['worktree-path']
      await inRun(
        a,
        `echo work > work.txt && git add work.txt && git -c user.name=a -c user.email=a@example.com commit -qm work && ${planted(common, elsewhere)}`
      )
      const made = git(wt, 'rev-parse', 'HEAD')
      const [post] = await a.runPosts()
      expect(post.stdout, what).toContain(`Kept \`${wt}\``)
      expect(fs.readdirSync(elsewhere).sort(), `${what}\n${post.stdout}`).toEqual(before)
      const kept = git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/kept/')
      expect(kept, what).toMatch(/^refs\/agent-worktree\/kept\/a\/[0-9a-f]{16}$/)
      git(repos.clone, 'merge-base', '--is-ancestor', made, kept)
      expect(fs.lstatSync(path.join(common, 'refs', 'agent-worktree')).isDirectory(), what).toBe(true)
    }
  })

  it("another job's kept and borrowed refs deleted by the agent are reported as shared changes, with their worktree still there", async t => {
    const repos = reposFor(t)
    const k = job(repos, 'runner-k')
    const kept = (await enter(k, { 'repository-path': repos.clone, name: 'k', 'on-exit': 'keep' })).outputs['worktree-path']
    commit(kept, 'kept.txt')
    await k.runPosts()
    const c = job(repos, 'runner-c')
    await enter(c, { 'repository-path': repos.clone, isolation: 'clone', name: 'c' })
    const [keptRef, borrowed] = ['refs/agent-worktree/kept/', 'refs/agent-worktree/borrowed/'].map(prefix =>
      git(repos.clone, 'for-each-ref', '--format=%(refname)', prefix)
    )
    expect(keptRef).toMatch(/^refs\/agent-worktree\/kept\/k\//)
    expect(borrowed).toBe('refs/agent-worktree/borrowed/c')
    const b = job(repos, 'runner-b')
    await enter(b, { 'repository-path': repos.clone, name: 'b' })
    await inRun(b, `git update-ref -d ${keptRef} && git update-ref -d ${borrowed}`)
    const exit = await b.uses('exit', {})
    const changes = JSON.parse(exit.outputs['shared-changes']) as { name: string; change: string; entry?: string }[]
    expect(changes.filter(ch => ch.name.startsWith('refs/agent-worktree/')).map(({ name, change, entry }) => ({ name, change, entry }))).toEqual([
      { name: borrowed, change: 'deleted', entry: 'there' },
      { name: keptRef, change: 'deleted', entry: 'there' }
    ])
    const [warning] = warnings(exit).filter(w => w.startsWith('What every worktree of'))
    expect(warning).toContain(`\`${keptRef}\` deleted (it was at`)
    expect(warning).toContain('its worktree is still there')
  })
})

describe.concurrent('the repository lock, in the common dir the agent writes', () => {
  it('a folder, a named pipe or a link the agent leaves at the lock path fails no later step: moved aside, the post and the next main step go on', async t => {
    for (const [what, planted] of [
      ['a folder', (lock: string) => `mkdir ${sh(lock)} && touch ${sh(lock)}/inside`],
      ['a named pipe', (lock: string) => `mkfifo ${sh(lock)}`],
      ['a link to /dev/zero', (lock: string) => `ln -s /dev/zero ${sh(lock)}`]
    ] as const) {
      const repos = reposFor(t)
      const lock = path.join(repos.clone, '.git', 'agent-worktree.lock')
      const a = job(repos, 'runner-a')
      const wt = (await enter(a, { 'repository-path': repos.clone, name: 'a' })).outputs['worktree-path']
      await inRun(a, planted(lock))
      expect(fs.lstatSync(lock, { throwIfNoEntry: false }), what).toBeDefined()
      const [post] = await a.runPosts()
      expect(post.stdout, what).toContain(`Removed \`${wt}\``)
      const next = await job(repos, 'runner-b').uses('.', { 'repository-path': repos.clone, name: 'b' })
      expect(next.exitCode, `${what}\n${next.stdout}`).toBe(0)
      expect(fs.existsSync(lock), what).toBe(false)
      expect(
        fs.readdirSync(path.join(repos.clone, '.git')).filter(n => n.startsWith('agent-worktree-aside.agent-worktree.lock.')),
        what
      ).toHaveLength(1)
    }
  })
})

describe.concurrent('srt-settings, as the run sub-action confines', () => {
  it.skipIf(!CONFINED)("denies the job's ~/.npm/_logs and ~/.claude/debug, which sandbox-runtime makes writable for every command", async t => {
    const repos = reposFor(t)
    const home = path.join(repos.root, 'home')
    for (const folder of ['.npm/_logs', '.claude/debug']) fs.mkdirSync(path.join(home, folder), { recursive: true })
    const workspace = path.join(repos.root, 'srt', 'workspace')
    fs.mkdirSync(workspace, { recursive: true })
    const j = new Job({
      workspace,
      temp: path.join(repos.root, 'srt', '_temp'),
      env: { RUNNER_NAME: 'srt', GITHUB_RUN_ID: '7', GITHUB_JOB: 'srt', HOME: home }
    })
    const main = await enter(j, { 'repository-path': repos.clone, name: 'srt' })
    const ran = inSrt(main.outputs['srt-settings'], repos.clone, {
      script: 'echo x > "$HOME/.npm/_logs/planted.log"; echo x > "$HOME/.claude/debug/planted.txt"; echo done',
      cwd: main.outputs['worktree-path'],
      env: { ...process.env, HOME: home }
    })
    expect(ran.stdout, ran.stderr).toContain('done')
    expect(fs.readdirSync(path.join(home, '.npm', '_logs'))).toEqual([])
    expect(fs.readdirSync(path.join(home, '.claude', 'debug'))).toEqual([])
  })
})

/** The plain-bubblewrap recipe of docs/sandboxes.md, as written: the write paths writable, then each existing read-only path read-only. */
function inPlainBwrap(sandbox: { write: string[]; readOnly: string[] }, cwd: string, script: string): { status: number | null; stdout: string } {
  const binds = [...sandbox.write.flatMap(p => ['--bind', p, p]), ...sandbox.readOnly.filter(p => fs.existsSync(p)).flatMap(p => ['--ro-bind', p, p])]
  const ran = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-user', ...binds, '--chdir', cwd, 'sh', '-c', script], {
    encoding: 'utf8'
  })
  return { status: ran.status, stdout: ran.stdout }
}

describe.concurrent('read-only entries that did not exist', () => {
  it.skipIf(!CONFINED)(
    'under a sandbox that protects only what exists, none can be created: every read-only entry handed out exists, as nothing that changes git',
    async t => {
      const repos = reposFor(t)
      const common = path.join(repos.clone, '.git')
      const a = job(repos, 'runner-a')
      const main = await enter(a, { 'repository-path': repos.clone, name: 'a' })
      const wt = main.outputs['worktree-path']
      const sandbox = JSON.parse(main.outputs.sandbox) as { write: string[]; readOnly: string[] }
      for (const p of sandbox.readOnly) expect(fs.lstatSync(p, { throwIfNoEntry: false }), p).toBeDefined()
      const gitDir = path.join(common, 'worktrees', 'a')
      const targets = [
        path.join(common, 'modules', 'lib', 'hooks', 'post-checkout'),
        path.join(common, 'config.worktree'),
        path.join(common, 'rr-cache', 'planted'),
        path.join(common, 'remotes', 'origin'),
        path.join(common, 'branches', 'origin'),
        path.join(common, 'info', 'grafts'),
        path.join(gitDir, 'config.worktree'),
        path.join(gitDir, 'info', 'sparse-checkout')
      ]
      const contentOf = (p: string): string | null => {
        try {
          return fs.readFileSync(p, 'utf8')
        } catch {
          return null
        }
      }
      const before = new Map(targets.map(p => [p, contentOf(p)]))
      const script = targets.map(p => `if { mkdir -p ${sh(path.dirname(p))} && echo planted >> ${sh(p)}; } 2>/dev/null; then echo "WROTE ${p}"; fi`).join('\n')
      const ran = inPlainBwrap(sandbox, wt, `${script}\necho done`)
      expect(ran.stdout.trim()).toBe('done')
      for (const p of targets) expect(contentOf(p), p).toBe(before.get(p))
      // Git reads the repository as before: not shallow, rerere off, no worktree config.
      expect(git(repos.clone, 'rev-parse', '--is-shallow-repository')).toBe('false')
      expect(fs.lstatSync(path.join(common, 'rr-cache')).isDirectory()).toBe(false)
      const [post] = await a.runPosts()
      expect(post.stdout).toContain(`Removed \`${wt}\``)
    }
  )

  it('a shallow file the agent makes, which no sandbox list can keep absent, is not believed: the post keeps the worktree, state unknown', async t => {
    const repos = reposFor(t)
    const a = job(repos, 'runner-a')
    const wt = (await enter(a, { 'repository-path': repos.clone, name: 'a' })).outputs['worktree-path']
    // History cut at the base: what lies behind it is out of every later walk's reach, the gate's too.
    await inRun(a, `git rev-parse HEAD > "$(git rev-parse --git-common-dir)/shallow"`)
    expect(git(repos.clone, 'rev-parse', '--is-shallow-repository')).toBe('true')
    const [post] = await a.runPosts()
    expect(post.stdout).toContain(`Kept \`${wt}\``)
    expect(post.stdout).toContain(`\`${path.join(repos.clone, '.git', 'shallow')}\` changed since the agent got the worktree`)
  })
})

describe.concurrent('who moved a shared ref', () => {
  it("a worktree the agent adds, locked and recorded as another job's, with the move in its reflog, does not make the agent's move another job's", async t => {
    const repos = reposFor(t)
    git(repos.clone, 'branch', 'release')
    const common = path.join(repos.clone, '.git')
    // Another job, there before: its lock and record are what the agent copies.
    const k = job(repos, 'runner-k')
    await enter(k, { 'repository-path': repos.clone, name: 'k' })
    const a = job(repos, 'runner-a')
    const wt = (await enter(a, { 'repository-path': repos.clone, name: 'a' })).outputs['worktree-path']
    const kGitDir = path.join(common, 'worktrees', 'k')
    await inRun(
      a,
      [
        'echo work > work.txt && git add work.txt && git -c user.name=a -c user.email=a@example.com commit -qm work',
        'git branch -f release HEAD',
        'git worktree add -q nested/evil release',
        `cat ${sh(path.join(kGitDir, 'locked'))} > ${sh(path.join(common, 'worktrees', 'evil', 'locked'))}`,
        `cat ${sh(path.join(kGitDir, 'agent-worktree.json'))} > ${sh(path.join(common, 'worktrees', 'evil', 'agent-worktree.json'))}`
      ].join(' && ')
    )
    const exit = await a.uses('exit', { 'on-exit': 'keep' })
    const [warning] = warnings(exit).filter(w => w.startsWith('What every worktree of'))
    expect(warning, exit.stdout).toContain('`refs/heads/release` moved')
    expect(exit.stdout).not.toMatch(/Changed meanwhile .*refs\/heads\/release/)
    expect(fs.existsSync(path.join(wt, 'nested', 'evil'))).toBe(true)
  })
})
