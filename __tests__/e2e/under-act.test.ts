// The README's workflows and the examples as a user runs them first: under nektos/act in host mode (no
// Docker), with the action mapped to this checkout (--local-repository) and act's own local checkout standing
// in for actions/checkout. Stood in for, as they cannot run here: the agents (my-agent, Claude Code's CLI,
// openai/codex-action), each of which commits a file in its worktree; npm; sudo (a workflow's set-up of the
// machine); and the secrets. Claude Code's sandbox (srt) is this checkout's real one.
// act is found as AGENT_WORKTREE_ACT, else `act` on PATH, else ../shared/act/bin/act beside the checkout;
// without one, these tests are skipped and say so.
import { execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../../scripts/runner.mjs'
import { git } from '../helpers/repos.js'

function findAct(): string | undefined {
  const candidates = [process.env.AGENT_WORKTREE_ACT, 'act', path.join(ROOT, '..', 'shared', 'act', 'bin', 'act')]
  return candidates.find(c => c && spawnSync(c, ['--version'], { stdio: 'ignore' }).status === 0)
}

const act = process.platform === 'linux' ? findAct() : undefined
if (!act)
  console.warn(
    process.platform === 'linux'
      ? 'Skipped the workflows under act: no act here (set AGENT_WORKTREE_ACT, or put nektos/act 0.2.87 or newer on PATH).'
      : 'Skipped the workflows under act: its host mode is tested on Linux.'
  )

/** A fenced workflow: one with jobs of its own, not a snippet of steps. */
interface Workflow {
  from: string
  text: string
}

function workflows(): Workflow[] {
  const docs = ['README.md', ...(fs.existsSync(path.join(ROOT, 'docs')) ? fs.readdirSync(path.join(ROOT, 'docs')).map(f => `docs/${f}`) : [])]
  const fenced = docs
    .filter(f => f.endsWith('.md'))
    .flatMap(file =>
      [...fs.readFileSync(path.join(ROOT, file), 'utf8').matchAll(/```yaml\n([\s\S]*?)```/g)].map((m, i) => ({ from: `${file} workflow ${i + 1}`, text: m[1] }))
    )
  const examples = fs
    .readdirSync(path.join(ROOT, 'examples'))
    .filter(f => f.endsWith('.yml'))
    .map(f => ({ from: `examples/${f}`, text: fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8') }))
  return [...fenced, ...examples].filter(w => /^jobs:/m.test(w.text) && w.text.includes('OWNER/agent-worktree'))
}

// The agent a workflow names, as a script: it commits one file in the folder it runs in, and pushes when told.
const AGENT = `#!/bin/sh
set -e
echo "$*" > "agent-$$.txt"
git add "agent-$$.txt"
git -c user.name=agent -c user.email=agent@example.com commit -q -m "agent: $*"
case "$*" in *push*) git push -q origin HEAD ;; esac
`

// openai/codex-action, as a composite action that does what its agent would: a commit in working-directory.
const CODEX = `name: codex stand-in
inputs:
  openai-api-key: {}
  working-directory: {}
  sandbox: {}
  codex-args: {}
  prompt: {}
runs:
  using: composite
  steps:
    - shell: bash
      working-directory: \${{ inputs.working-directory }}
      env:
        PROMPT: \${{ inputs.prompt }}
      run: my-agent "$PROMPT"
`

let root: string
/** The action as a workflow gets it: this checkout's files without node_modules (act copies the folder for every use). */
let action: string
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-act-')))
  action = path.join(root, 'agent-worktree')
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\0')
  for (const file of files.filter(f => f && fs.existsSync(path.join(ROOT, f)))) {
    fs.mkdirSync(path.dirname(path.join(action, file)), { recursive: true })
    fs.copyFileSync(path.join(ROOT, file), path.join(action, file))
  }
  const bin = path.join(root, 'bin')
  fs.mkdirSync(bin)
  for (const name of ['my-agent', 'npx', 'claude']) fs.writeFileSync(path.join(bin, name), AGENT, { mode: 0o755 })
  // Claude Code's sandbox is real where this checkout has it (a devDependency); its agent is the stand-in.
  const srt = path.join(ROOT, 'node_modules', '.bin', 'srt')
  if (fs.existsSync(srt)) fs.symlinkSync(srt, path.join(bin, 'srt'))
  fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\nmkdir -p node_modules\n', { mode: 0o755 })
  // A workflow's set-up of the machine (apt packages, AppArmor profiles) is not the test's to change here.
  fs.writeFileSync(path.join(bin, 'sudo'), '#!/bin/sh\necho "sudo $*: not run under the test"\n', { mode: 0o755 })
  fs.mkdirSync(path.join(root, 'codex-action'))
  fs.writeFileSync(path.join(root, 'codex-action', 'action.yml'), CODEX)
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 }))

interface ActRun {
  code: number | null
  log: string
  origin: string
}

/** One workflow in a repository of its own with a bare origin, run by act as `act <event>`. */
async function runUnderAct(workflow: Workflow, n: number): Promise<ActRun> {
  const dir = path.join(root, `case-${n}`)
  const [ws, origin] = [path.join(dir, 'ws'), path.join(dir, 'origin.git')]
  git(root, 'init', '--quiet', '--bare', '-b', 'main', origin)
  git(root, 'init', '--quiet', '-b', 'main', ws)
  fs.writeFileSync(path.join(ws, 'README.md'), '# sample\n')
  fs.writeFileSync(path.join(ws, '.gitignore'), 'node_modules/\n')
  fs.mkdirSync(path.join(ws, '.github', 'workflows'), { recursive: true })
  fs.writeFileSync(path.join(ws, '.github', 'workflows', 'w.yml'), workflow.text)
  git(ws, 'add', '-A')
  git(ws, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'initial')
  git(ws, 'remote', 'add', 'origin', origin)
  git(ws, 'push', '--quiet', 'origin', 'main')
  const on = (parse(workflow.text) as { on: string | Record<string, unknown> }).on
  const event = typeof on === 'string' ? on : Object.keys(on)[0]
  const args = [
    event,
    '-P',
    'ubuntu-latest=-self-hosted',
    '--action-offline-mode',
    '--action-cache-path',
    path.join(dir, 'act-cache'),
    '--local-repository',
    `OWNER/agent-worktree@v1=${action}`,
    '--local-repository',
    `openai/codex-action@v1=${path.join(root, 'codex-action')}`,
    '-s',
    'OPENAI_API_KEY=stand-in',
    '-s',
    'ANTHROPIC_API_KEY=stand-in'
  ]
  const env = { ...process.env, PATH: `${path.join(root, 'bin')}${path.delimiter}${process.env.PATH}`, HOME: dir }
  return new Promise(resolve => {
    const child = spawn(act!, args, { cwd: ws, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let log = ''
    child.stdout.on('data', (d: Buffer) => (log += d.toString()))
    child.stderr.on('data', (d: Buffer) => (log += d.toString()))
    // eslint-disable-next-line no-control-regex
    child.on('close', code => resolve({ code, log: log.replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, ''), origin }))
  })
}

function branches(origin: string): string[] {
  return execFileSync('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/'], { cwd: origin, encoding: 'utf8' }).split('\n').filter(Boolean)
}

describe.skipIf(!act)('under act (host mode)', () => {
  const all = workflows()

  it('finds the quick start, the matrix and every example', () => {
    expect(all.filter(w => w.from.startsWith('README.md')).length).toBeGreaterThanOrEqual(2)
    expect(all.filter(w => w.from.startsWith('examples/')).length).toBe(fs.readdirSync(path.join(ROOT, 'examples')).filter(f => f.endsWith('.yml')).length)
  })

  // A workflow that opens a pull request needs GitHub's REST API, which act does not stand in for: that path runs
  // against a stand-in of the API in __tests__/exit/pull-request.test.ts, and its workflows are parsed by examples.test.
  const runnable = all.map((w, i) => [w.from, w, i] as const).filter(([, w]) => !/^\s*pull-request:\s*(true|draft)\b/m.test(w.text))

  // A run takes a few seconds (act starts, the legs of a matrix run at once); 60 s covers a loaded machine.
  it.each(runnable)(
    '%s runs green, and exits every worktree it entered',
    async (_from, workflow, n) => {
      const run = await runUnderAct(workflow, n)
      expect(run.code, run.log).toBe(0)
      expect(run.log).not.toMatch(/::error|Failure - /)
      expect(run.log).toMatch(/Job succeeded/)
      const entered = run.log.match(/::set-output:: worktree-path=/g)?.length ?? 0
      const exited = run.log.match(/Removed .* nothing unsaved was found|Kept |Nothing to do/g)?.length ?? 0
      expect(entered).toBeGreaterThan(0)
      expect(exited).toBeGreaterThanOrEqual(entered)
    },
    60_000
  )

  /** A job that enters a worktree, lets `agent` run in it, and exits it with the exit sub-action, whose outputs it prints. */
  const exitJob = (agent: string): Workflow => ({
    from: 'an exit mid-job',
    text: `on: push
jobs:
  agent:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: worktree
        uses: OWNER/agent-worktree@v1
      - name: Agent
        working-directory: \${{ steps.worktree.outputs.worktree-path }}
        env:
          GIT_DIR_OF_WORKTREE: \${{ steps.worktree.outputs.git-dir }}
        run: |
          ${agent}
      - id: exit
        uses: OWNER/agent-worktree/exit@v1
      - run: echo "EXIT reason=\${{ steps.exit.outputs.reason }} commits=\${{ steps.exit.outputs.unsaved-commits }}"
`
  })

  it('the exit sub-action removes a worktree the agent never touched as clean, and claims no change to the main step’s record', async () => {
    const run = await runUnderAct(exitJob('git status --short'), all.length + 1)
    expect(run.code, run.log).toBe(0)
    expect(run.log).toContain('EXIT reason=clean commits=0')
    expect(run.log).toMatch(/Removed `\S+` and deleted its branch `worktree-\S+`: nothing unsaved was found/)
    expect(run.log).not.toMatch(/::warning title=agent-worktree::Kept|was changed/)
  }, 60_000)

  it('a commit the agent pushed itself counts as saved; a record the agent changed is not believed', async () => {
    const pushed = await runUnderAct(exitJob('my-agent "work, then push"'), all.length + 2)
    expect(pushed.code, pushed.log).toBe(0)
    expect(pushed.log).toContain('EXIT reason=clean commits=0')
    // The agent moves the record's base to its own commit: the record is a hint, and the commit stays unsaved.
    const forged = await runUnderAct(
      exitJob(
        'my-agent work && sed -i "s/\\"baseSha\\": \\"[0-9a-f]*\\"/\\"baseSha\\": \\"$(git rev-parse HEAD)\\"/" "$GIT_DIR_OF_WORKTREE/agent-worktree.json"'
      ),
      all.length + 3
    )
    expect(forged.code, forged.log).toBe(0)
    expect(forged.log).toContain('EXIT reason=unsaved')
  }, 120_000)

  it("the quick start: the agent's branch is pushed, and the worktree removed", async () => {
    const quick = all.find(w => w.from.startsWith('README.md'))!
    const run = await runUnderAct(quick, all.length)
    expect(run.code, run.log).toBe(0)
    expect(
      branches(run.origin).filter(b => b.startsWith('worktree-')),
      run.log
    ).toHaveLength(1)
    expect(run.log).toMatch(/Removed `\S+` and deleted its branch `worktree-\S+`: nothing unsaved was found/)
  }, 60_000)
})
