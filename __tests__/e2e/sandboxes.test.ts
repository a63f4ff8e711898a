// Covers: src/sandbox/, src/enter/enter.ts and src/stages/main.ts through the committed bundles, under the real sandboxes; the agent steps of examples/claude-code-matrix.yml and examples/codex-matrix.yml.
// A sandboxed agent in the worktree, through the committed bundles: under Claude Code's sandbox (the srt-settings
// output), Codex's (the codex-home output's permission profile) and plain bubblewrap (the sandbox output as it
// is), the agent edits, adds, commits, branches, stashes and rebases; every write that would reach outside
// (hooks, configuration, info/, another job's worktree git dir, the original checkout, RUNNER_TEMP, the job
// summary, the sandbox configurations themselves) is refused, and the host shows nothing of them afterwards.
// Then the post judges the work as any other. Created, path-entered, pooled, restored and sparse worktrees,
// and a shared clone.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { parse } from 'yaml'
import { git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import {
  CODEX,
  fakeResponses,
  inBwrap,
  inCodex,
  inSrt,
  refusingUserNamespaces,
  sandboxesHere,
  spawnAsync,
  type Ran,
  type SandboxRun
} from '../helpers/sandboxes.js'
import { Job, ROOT } from '../../scripts/runner.mjs'

const RUNS = sandboxesHere('the real-sandbox tests (__tests__/e2e/sandboxes.test.ts)')

const JOB_ENV = { GITHUB_RUN_ID: '5150', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }
const IDENTITY = { GIT_AUTHOR_NAME: 'Agent', GIT_AUTHOR_EMAIL: 'agent@example.com', GIT_COMMITTER_NAME: 'Agent', GIT_COMMITTER_EMAIL: 'agent@example.com' }

let repos: Repos
beforeEach(() => {
  repos = makeRepos({ 'README.md': '# sample\n', 'src/app.txt': 'app\n', 'docs/guide.md': 'guide\n' })
})
afterEach(() => repos.cleanup())

function newJob(env: Record<string, string> = {}, workspace = repos.clone): Job {
  return new Job({ workspace, temp: path.join(repos.root, 'runner-temp'), env: { ...JOB_ENV, ...env } })
}

/** Another job's worktree beside ours, locked as a live job's is. */
function otherJobsWorktree(repo = repos.clone): string {
  const wt = path.join(`${repo}.worktrees`, 'other-job')
  git(repo, 'worktree', 'add', '--quiet', '--lock', '--reason', 'agent-worktree 0123456789abcdef: another job', '-b', 'worktree-other-job', wt)
  return git(wt, 'rev-parse', '--absolute-git-dir')
}

/** Ordinary git work: each step prints `did <step>` or `FAILED <step>`. */
function work(tag: string, rebase: boolean): string {
  const steps: [string, string][] = [
    ['edit', `echo ${tag} > src/${tag}.txt`],
    ['add', `git add src/${tag}.txt`],
    ['commit', `git commit -q -m "${tag}: first"`],
    ['branch', `git branch ${tag}-side`],
    ['stash', `echo more >> src/${tag}.txt && git stash -q && test -z "$(git diff --name-only)" && git stash pop -q`],
    ['commit-stashed', `git commit -q -am "${tag}: second"`],
    ['rebase', rebase ? 'git rebase -q --force-rebase HEAD~2' : 'true'],
    ['status', 'git status --porcelain >/dev/null']
  ]
  return steps.map(([name, command]) => `if { ${command}; } >/dev/null 2>&1; then echo "did ${name}"; else echo "FAILED ${name}"; fi`).join('\n')
}

/** Each write that must be refused: `refused <what>` or `WROTE <what>`. The targets come in as T_<n>. */
function attempts(targets: string[]): string {
  return targets
    .map((_, i) => `if { mkdir -p "$(dirname "$T_${i}")" && echo evil >> "$T_${i}"; } 2>/dev/null; then echo "WROTE $T_${i}"; else echo "refused $T_${i}"; fi`)
    .join('\n')
}

interface Entered {
  job: Job
  outputs: Record<string, string>
  /** Files the agent must not write: their content (or null when absent) before the agent ran. */
  guarded: Map<string, string | null>
  summary: string
}

const read = (file: string): string | null => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null)

async function enter(job: Job, inputs: Record<string, string>, otherGitDir: string, original = repos.clone): Promise<Entered> {
  const main = await job.uses('.', inputs)
  expect(main.exitCode, main.stdout).toBe(0)
  const outputs = main.outputs
  const common = outputs['git-common-dir']
  const gitDir = outputs['git-dir']
  const temp = path.join(repos.root, 'runner-temp')
  const summary = path.join(temp, '_runner_file_commands', 'step_summary_agent')
  fs.mkdirSync(path.dirname(summary), { recursive: true })
  fs.writeFileSync(summary, '')
  const targets = [
    path.join(common, 'hooks', 'pre-push'),
    path.join(common, 'config'),
    path.join(common, 'config.worktree'),
    path.join(gitDir, 'config.worktree'),
    path.join(common, 'info', 'attributes'),
    path.join(common, 'info', 'exclude'),
    path.join(otherGitDir, 'HEAD'),
    path.join(otherGitDir, 'index'),
    path.join(gitDir, 'agent-worktree.json'),
    // What a park proved of the files, which the next take believes.
    path.join(gitDir, 'agent-worktree-parked'),
    path.join(gitDir, 'commondir'),
    // Rewritten, it would send every later git of the main checkout to a git dir of the agent's.
    path.join(common, 'commondir'),
    path.join(outputs['worktree-path'], '.git'),
    path.join(original, 'README.md'),
    path.join(temp, 'planted'),
    summary,
    path.join(outputs['codex-home'], 'config.toml'),
    outputs['srt-settings']
  ]
  return { job, outputs, guarded: new Map(targets.map(t => [t, read(t)])), summary }
}

function agentRun(e: Entered, tag: string, rebase = true): SandboxRun {
  const targets = [...e.guarded.keys()]
  return {
    script: `${work(tag, rebase)}\n${attempts(targets)}`,
    cwd: e.outputs['worktree-path'],
    env: { ...process.env, ...e.job.env, ...IDENTITY, GITHUB_STEP_SUMMARY: e.summary, ...Object.fromEntries(targets.map((t, i) => [`T_${i}`, t])) }
  }
}

/** The agent's work succeeded, every write outside was refused, and the host shows none of them. */
function confined(e: Entered, sandbox: string, result: Ran): void {
  const said = result.stdout + result.stderr
  for (const step of ['edit', 'add', 'commit', 'branch', 'stash', 'commit-stashed', 'rebase', 'status']) expect(said, sandbox).toContain(`did ${step}\n`)
  expect(said, sandbox).not.toContain('FAILED')
  for (const [file, before] of e.guarded) {
    expect(said, sandbox).toContain(`refused ${file}\n`)
    expect(read(file), `${sandbox}: ${file}`).toBe(before)
  }
  expect(result.status, `${sandbox}: ${said}`).toBe(0)
}

/** Under each of the three sandboxes in turn, the agent's work with a tag of its own. */
function underEverySandbox(e: Entered, rebase = true): void {
  const sandbox = JSON.parse(e.outputs.sandbox) as { write: string[]; readOnly: string[] }
  // What a sandbox put in place of an absent read-only path while it ran (an empty file, seen by other jobs of
  // a shared clone) is gone afterwards.
  for (const p of sandbox.readOnly) if (!fs.existsSync(p)) e.guarded.set(p, null)
  const tag = (name: string): string => `${name}-${e.outputs.name}`
  confined(e, 'srt', inSrt(e.outputs['srt-settings'], repos.clone, agentRun(e, tag('srt'), rebase)))
  confined(e, 'codex', inCodex(e.outputs['codex-home'], path.join(repos.root, 'codex-tmp'), agentRun(e, tag('codex'), rebase)))
  confined(e, 'bwrap', inBwrap(sandbox, agentRun(e, tag('bwrap'), rebase)))
  const log = git(e.outputs['worktree-path'], 'log', '--format=%s')
  for (const name of ['srt', 'codex', 'bwrap']) expect(log).toContain(`${tag(name)}: second`)
}

describe.runIf(RUNS)('a sandboxed agent', () => {
  it('given the git dir and the common dir writable whole (the recipe of old), plants a hook that the next push runs outside the sandbox', async () => {
    const e = await enter(newJob(), { name: 'whole' }, otherJobsWorktree())
    const settings = path.join(repos.root, 'whole.json')
    const whole = [e.outputs['worktree-path'], e.outputs['git-dir'], e.outputs['git-common-dir']]
    fs.writeFileSync(
      settings,
      JSON.stringify({ filesystem: { allowWrite: whole, denyWrite: [], denyRead: [] }, network: { allowedDomains: [], deniedDomains: [] } })
    )
    const marker = path.join(repos.root, 'ran-outside')
    // Started in the worktree, as the old example's step: sandbox-runtime's own protection of .git/hooks is for the folder it starts in.
    const planted = inSrt(settings, e.outputs['worktree-path'], {
      ...agentRun(e, 'whole'),
      script: `printf '#!/bin/sh\\ntouch ${marker}\\n' > "$(git rev-parse --git-common-dir)/hooks/pre-push" && chmod +x "$(git rev-parse --git-common-dir)/hooks/pre-push"`
    })
    expect(planted.status, planted.stderr).toBe(0)
    git(e.outputs['worktree-path'], 'push', '--quiet', 'origin', `HEAD:refs/heads/${e.outputs.branch}`)
    expect(fs.existsSync(marker)).toBe(true)
    await e.job.runPosts()
  })

  it('in a created worktree: its commits are unsaved, so the post keeps it; pushed, the post removes it', async () => {
    const other = otherJobsWorktree()
    const e = await enter(newJob(), { name: 'created' }, other)
    underEverySandbox(e)
    const wt = e.outputs['worktree-path']
    const [post] = await e.job.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(fs.existsSync(wt)).toBe(true)
    expect(post.stdout).toMatch(/Kept/)

    const again = await enter(newJob({ GITHUB_RUN_ID: '5151' }), { name: 'pushed' }, other)
    // No rebase here: the commits a rebase rewrote stay in the worktree's reflog, which the gate counts as
    // unsaved work however the rewritten ones were pushed.
    underEverySandbox(again, false)
    const pushedWt = again.outputs['worktree-path']
    git(pushedWt, 'push', '--quiet', 'origin', `HEAD:refs/heads/${again.outputs.branch}`)
    for (const name of ['srt', 'codex', 'bwrap']) git(pushedWt, 'branch', '--quiet', '-D', `${name}-pushed-side`)
    const [pushedPost] = await again.job.runPosts()
    expect(pushedPost.stdout).toContain('nothing unsaved was found')
    expect(fs.existsSync(pushedWt)).toBe(false)
  })

  it('in a worktree entered by path: the post keeps it, as every worktree entered by path', async () => {
    const other = otherJobsWorktree()
    const wt = path.join(`${repos.clone}.worktrees`, 'by-hand')
    git(repos.clone, 'worktree', 'add', '--quiet', '-b', 'by-hand', wt)
    const e = await enter(newJob(), { path: wt }, other)
    expect(e.outputs.created).toBe('false')
    underEverySandbox(e)
    const [post] = await e.job.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('in a sparse worktree: the sparse patterns stay as the main step set them', async () => {
    const other = otherJobsWorktree()
    const e = await enter(newJob(), { name: 'sparse', 'sparse-paths': 'src' }, other)
    const wt = e.outputs['worktree-path']
    const patterns = path.join(e.outputs['git-dir'], 'info', 'sparse-checkout')
    const before = read(patterns)
    expect(before).not.toBeNull()
    e.guarded.set(patterns, before)
    underEverySandbox(e)
    expect(fs.existsSync(path.join(wt, 'docs'))).toBe(false)
    const [post] = await e.job.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('in a worktree taken from the pool', async () => {
    const other = otherJobsWorktree()
    const first = newJob()
    const parked = await first.uses('.', { name: 'pool-1', recycle: 'true' })
    expect(parked.exitCode, parked.stdout).toBe(0)
    await first.runPosts()
    const e = await enter(newJob({ GITHUB_RUN_ID: '5152' }), { name: 'pool-2', recycle: 'true' }, other)
    // Taken from the pool: moved to its new name.
    expect(fs.existsSync(parked.outputs['worktree-path'])).toBe(false)
    underEverySandbox(e)
    const [post] = await e.job.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(fs.existsSync(e.outputs['worktree-path'])).toBe(true)
  })

  it('in a worktree a rescue was restored into', async () => {
    const other = otherJobsWorktree()
    const first = newJob()
    const left = await first.uses('.', { name: 'rescued', rescue: 'branch' })
    write(left.outputs['worktree-path'], 'src/draft.txt', 'draft\n')
    const [rescue] = await first.runPosts()
    const branch = /pushed to the branch `(\S+)` of `origin`/.exec(rescue.stdout)?.[1]
    expect(branch, rescue.stdout).toBeDefined()
    const e = await enter(newJob({ GITHUB_RUN_ID: '5153' }), { name: 'restored', restore: branch! }, other)
    expect(e.outputs.restored).toBe('true')
    underEverySandbox(e)
    expect(read(path.join(e.outputs['worktree-path'], 'src', 'draft.txt'))).toBe('draft\n')
    const [post] = await e.job.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(fs.existsSync(e.outputs['worktree-path'])).toBe(true)
  })

  it("in a shared clone (repository-path), whose own checkout and the job's checkout are out of reach alike", async () => {
    const shared = path.join(repos.root, 'shared', 'sample')
    git(repos.root, 'clone', '--quiet', repos.origin, shared)
    const other = otherJobsWorktree(shared)
    const e = await enter(newJob(), { name: 'shared', 'repository-path': shared }, other, shared)
    // The job's own checkout is out of reach too.
    e.guarded.set(path.join(repos.clone, 'README.md'), read(path.join(repos.clone, 'README.md')))
    e.guarded.set(path.join(repos.clone, '.git', 'config'), read(path.join(repos.clone, '.git', 'config')))
    underEverySandbox(e)
    const [post] = await e.job.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    expect(fs.existsSync(e.outputs['worktree-path'])).toBe(true)
    expect(worktreePaths(shared)).toHaveLength(3)
  })
})

describe.runIf(RUNS)("the Claude Code example's agent step, as written", () => {
  it('runs Claude under sandbox-runtime from the checkout: the work lands in the worktree, a hook does not', async () => {
    const e = await enter(newJob(), { name: 'claude/add-tests', 'symlink-dirs': '' }, otherJobsWorktree())
    const step = exampleStep('claude-code-matrix.yml', s => !!s.run?.includes('claude -p'), e)
    const env = step.env!
    // Stands in for Claude Code: what it does with Bash(git:*), and a hook it plants.
    const bin = path.join(repos.root, 'bin')
    write(
      bin,
      'claude',
      '#!/bin/sh\nmkdir -p "$CLAUDE_CONFIG_DIR" && echo state > "$CLAUDE_CONFIG_DIR/state" && echo state-kept\necho "$2" > claude.txt && git add claude.txt && git commit -qm "$TASK" && echo committed in "$PWD"\nhooks="$(git rev-parse --git-common-dir)/hooks"\n{ echo "#!/bin/sh" > "$hooks/pre-push"; } 2>/dev/null && echo WROTE the hook || echo refused the hook\n'
    )
    fs.chmodSync(path.join(bin, 'claude'), 0o755)
    const shell = spawnSync('bash', ['-e', '-c', step.run!], {
      cwd: repos.clone,
      env: { ...process.env, ...e.job.env, ...IDENTITY, ...env, PATH: `${bin}:${path.join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}` },
      encoding: 'utf8'
    })
    expect(shell.stdout, shell.stderr).toBe(`state-kept\ncommitted in ${e.outputs['worktree-path']}\nrefused the hook\n`)
    expect(git(e.outputs['worktree-path'], 'log', '-1', '--format=%s')).toBe('add-tests')
    expect(fs.existsSync(path.join(e.outputs['git-common-dir'], 'hooks', 'pre-push'))).toBe(false)
    fs.rmSync(path.join(env.CLAUDE_CONFIG_DIR, 'state'), { force: true })
    await e.job.runPosts()
  })
})

/** The step of an example that runs the agent, and the values of its expressions in this job. */
function exampleStep(file: string, pick: (s: ExampleStep) => boolean, e: Entered): ExampleStep {
  const example = parse(fs.readFileSync(path.join(ROOT, 'examples', file), 'utf8')) as { jobs: Record<string, { steps: ExampleStep[] }> }
  const step = Object.values(example.jobs)[0].steps.find(pick)!
  const values: Record<string, string> = { 'secrets.ANTHROPIC_API_KEY': 'sk-test', 'secrets.OPENAI_API_KEY': 'sk-test', 'matrix.task': 'add-tests' }
  for (const [name, value] of Object.entries(e.outputs)) values[`steps.worktree.outputs.${name}`] = value
  const evaluate = (fields?: Record<string, string>) =>
    fields && Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.replace(/\$\{\{ ([^}]+) \}\}/g, (_m, x: string) => values[x.trim()])]))
  return { ...step, env: evaluate(step.env), with: evaluate(step.with) }
}

interface ExampleStep {
  name?: string
  uses?: string
  run?: string
  env?: Record<string, string>
  with?: Record<string, string>
}

describe.runIf(RUNS)("the Codex example's codex-action step, as codex-action runs codex exec", () => {
  it('Codex works in the worktree under the permission profile of the main step: its commits land, every write outside is refused', async () => {
    const e = await enter(newJob(), { name: 'codex/add-tests' }, otherJobsWorktree())
    const given = exampleStep('codex-matrix.yml', s => s.uses === 'openai/codex-action@v1', e).with!
    const run = agentRun(e, 'codex-exec')
    // OpenAI's API, which cannot be reached here, stands in: it has Codex run the agent's commands in its tool.
    const api = await fakeResponses(run.script)
    try {
      // codex-action's write-proxy-config (src/writeProxyConfig.ts): its provider above the home's config.toml, the proxy's address below.
      const config = path.join(given['codex-home'], 'config.toml')
      const proxy = `[model_providers.openai-proxy]\nname = "OpenAI Proxy"\nbase_url = "${api.url}"\nwire_api = "responses"\n`
      fs.writeFileSync(config, `model_provider = "openai-proxy"\n\n${fs.readFileSync(config, 'utf8')}\n${proxy}`)
      e.guarded.set(config, read(config))
      // codex-action's runCodexExec (src/runCodexExec.ts): the command it builds for a permission profile, the prompt on stdin.
      const last = path.join(repos.root, 'codex-last-message.md')
      fs.mkdirSync(path.join(repos.root, 'codex-tmp'), { recursive: true })
      const codex = await spawnAsync(
        CODEX,
        [
          'exec',
          '--skip-git-repo-check',
          '--cd',
          given['working-directory'],
          '--output-last-message',
          last,
          '--config',
          `default_permissions=${JSON.stringify(given['permission-profile'])}`
        ],
        { cwd: repos.clone, env: { ...run.env, CODEX_HOME: given['codex-home'], TMPDIR: path.join(repos.root, 'codex-tmp') }, input: given.prompt }
      )
      expect(codex.status, codex.stderr).toBe(0)
      expect(api.outputs, codex.stderr).toHaveLength(1)
      const tool = JSON.parse(api.outputs[0]) as { output: { text: string }[] }
      const result = JSON.parse(tool.output.map(o => o.text).find(t => t.startsWith('{'))!) as { exit_code: number; output: string }
      confined(e, 'codex exec', { status: result.exit_code, stdout: result.output, stderr: '' })
      expect(git(given['working-directory'], 'log', '-1', '--format=%s')).toBe('codex-exec: second')
    } finally {
      await api.close()
    }
    await e.job.runPosts()
  })
})

describe.runIf(RUNS)('a confined agent on a runner with no git identity (a hosted runner has none)', () => {
  it("cannot set one inside, where the repository's config is read-only; given the identity of the example's agent step, it commits under Claude Code's and Codex's sandbox", async () => {
    const e = await enter(newJob(), { name: 'identity' }, otherJobsWorktree())
    const home = path.join(repos.root, 'runner-home')
    fs.mkdirSync(home)
    // No identity anywhere: not in the environment (the tests' own is taken out), not in a global or system config.
    const env = { ...process.env, ...e.job.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' }
    const script = `${work('TAG', false)}
if git config user.email agent@example.com 2>/dev/null; then echo "SET the identity"; else echo "refused the identity"; fi
`
    const attempt = (name: string): SandboxRun => ({ script: script.replaceAll('TAG', name), cwd: e.outputs['worktree-path'], env })
    const under = {
      srt: (run: SandboxRun) => inSrt(e.outputs['srt-settings'], repos.clone, run),
      codex: (run: SandboxRun) => inCodex(e.outputs['codex-home'], path.join(repos.root, 'codex-tmp'), run)
    }
    for (const [name, sandbox] of Object.entries(under)) {
      const said = sandbox(attempt(`${name}-bare`))
      expect(said.stdout, said.stderr).toContain('FAILED commit\n')
      expect(said.stdout, name).toContain('refused the identity\n')
    }
    // The identity each example gives its agent step, as the workflow runs it: in the environment.
    const identityOf = (file: string, pick: (s: ExampleStep) => boolean): Record<string, string> => {
      const given = Object.entries(exampleStep(file, pick, e).env ?? {}).filter(([k]) => k.startsWith('GIT_'))
      expect(given.map(([k]) => k).sort(), `the identity of the agent step of examples/${file}`).toEqual([
        'GIT_AUTHOR_EMAIL',
        'GIT_AUTHOR_NAME',
        'GIT_COMMITTER_EMAIL',
        'GIT_COMMITTER_NAME'
      ])
      return Object.fromEntries(given)
    }
    const identity: Record<string, Record<string, string>> = {
      srt: identityOf('claude-code-matrix.yml', s => !!s.run?.includes('claude -p')),
      codex: identityOf('codex-matrix.yml', s => s.uses === 'openai/codex-action@v1')
    }
    for (const [name, sandbox] of Object.entries(under)) {
      const said = sandbox({ ...attempt(`${name}-given`), env: { ...env, ...identity[name] } })
      expect(said.stdout, said.stderr).not.toContain('FAILED')
      expect(said.stdout).toContain('refused the identity\n')
      expect(git(e.outputs['worktree-path'], 'log', '-1', '--format=%s by %an <%ae>')).toBe(
        `${name}-given: second by github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>`
      )
    }
    await e.job.runPosts()
  })
})

describe.runIf(RUNS)('where the kernel refuses the sandbox its user namespace (Ubuntu 24.04 AppArmor default)', () => {
  it('no sandbox runs the agent: nothing it would do happens, and the post removes the clean worktree', async () => {
    const other = otherJobsWorktree()
    const e = await enter(newJob(), { name: 'refused' }, other)
    const run = { ...agentRun(e, 'refused'), wrap: refusingUserNamespaces }
    const sandbox = JSON.parse(e.outputs.sandbox) as { write: string[]; readOnly: string[] }
    for (const result of [
      inSrt(e.outputs['srt-settings'], repos.clone, run),
      inCodex(e.outputs['codex-home'], path.join(repos.root, 'codex-tmp'), run),
      inBwrap(sandbox, run)
    ]) {
      expect(result.status).not.toBe(0)
      expect(result.stdout).toBe('')
      expect(result.stderr).toMatch(/namespace/)
    }
    for (const [file, before] of e.guarded) expect(read(file), file).toBe(before)
    const [post] = await e.job.runPosts()
    expect(post.stdout).toContain('nothing unsaved was found')
    expect(fs.existsSync(e.outputs['worktree-path'])).toBe(false)
  })
})
