// Covers: scripts/runner.mjs.
// The runner emulation (scripts/runner.mjs) itself, with throwaway node actions written at test time.
// The actions live in each test's temporary folder and are passed to job.uses() by absolute path (an
// absolute actionDir is taken as it is), so nothing is written into the repository.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, OUTPUT_DRAIN_MS, parseAnnotations, SIGINT_TIMEOUT_MS, SIGTERM_TIMEOUT_MS, type StepResult } from '../../scripts/runner.mjs'

let root: string
let workspace: string
let jobs: Job[]

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'runner-emulation-')))
  // Reachable by another user, for the user option.
  fs.chmodSync(root, 0o755)
  workspace = path.join(root, 'workspace')
  fs.mkdirSync(workspace)
  execFileSync('git', ['init', '--quiet', workspace])
  jobs = []
})

afterEach(async () => {
  // Nothing of a test outlives it.
  for (const job of jobs) await job.end()
  fs.rmSync(root, { recursive: true, force: true })
})

function newJob(options: { user?: { uid: number; gid: number } } = {}): Job {
  const job = new Job({ workspace, temp: path.join(root, `temp-${jobs.length}`), env: { RUNNER_NAME: 'emulation' }, ...options })
  jobs.push(job)
  return job
}

/** Writes a throwaway node24 action and returns its absolute folder. */
function action(name: string, scripts: { main: string; post?: string; inputs?: string[] }): string {
  const dir = path.join(root, 'actions', name)
  fs.mkdirSync(dir, { recursive: true })
  const yml = [
    `name: ${name}`,
    'description: a throwaway action of the runner emulation test',
    ...(scripts.inputs ? ['inputs:', ...scripts.inputs.map(line => `  ${line}`)] : []),
    'runs:',
    '  using: node24',
    '  main: main.mjs',
    ...(scripts.post ? ['  post: post.mjs'] : [])
  ]
  fs.writeFileSync(path.join(dir, 'action.yml'), `${yml.join('\n')}\n`)
  const prelude = "import { execFileSync, spawn } from 'node:child_process'\nimport * as fs from 'node:fs'\n"
  fs.writeFileSync(path.join(dir, 'main.mjs'), prelude + scripts.main)
  if (scripts.post) fs.writeFileSync(path.join(dir, 'post.mjs'), prelude + scripts.post)
  return dir
}

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

const signalsOf = (step: StepResult) => step.signals.map(s => s.signal)

// Starts a sleeping child that is not in a group of its own, records its pid, then calls git.
const SLEEPER_THEN_GIT = `
const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' })
fs.appendFileSync(process.env.GITHUB_OUTPUT, 'sleeper=' + sleeper.pid + '\\n')
execFileSync('git', ['--version'])
console.log('not reached')
setInterval(() => {}, 1000)
`

describe('workflow commands', () => {
  it('reads annotations as the runner does: ::command:: after leading white space, and the older ##[command] anywhere in a line', () => {
    const stdout = [
      '  ::warning title=a%3A b::one%0Atwo',
      '::ERROR::upper',
      'text ##[error]old%3B syntax',
      'a ##[group]b ##[error]c',
      '::debug::no',
      'plain ::error:: mid'
    ].join('\n')
    expect(parseAnnotations(stdout)).toEqual([
      { level: 'warning', message: 'one\ntwo' },
      { level: 'error', message: 'upper' },
      { level: 'error', message: 'old; syntax' }
    ])
  })
})

describe('signals go to node only, never to its children', () => {
  it('a cancel sends SIGINT to the pid: a child lives on, strays() finds it, end() kills it', async () => {
    const job = newJob()
    const step = await job.uses(action('cancelled', { main: SLEEPER_THEN_GIT }), {}, { cancel: { onGit: '*--version*' } })
    expect(step.triggered).toBe(true)
    expect(step.stoppedBy).toBe('cancel')
    expect(step.signal).toBe('SIGINT')
    expect(signalsOf(step)).toEqual(['SIGINT'])
    expect(step.stdout).not.toContain('not reached')
    const sleeper = Number(step.outputs.sleeper)
    expect(alive(sleeper)).toBe(true)
    expect(job.strays()).toContainEqual({ pid: sleeper, argv: ['sleep', '300'], command: 'sleep 300' })

    const killed = await job.end()
    expect(killed.map(p => p.pid)).toContain(sleeper)
    expect(alive(sleeper)).toBe(false)
    expect(job.strays()).toEqual([])
    await expect(job.uses(action('late', { main: '' }))).rejects.toThrow('the job has ended')
  })

  it('a crash sends SIGKILL to the pid: the child lives on', async () => {
    const job = newJob()
    const step = await job.uses(action('crashed', { main: SLEEPER_THEN_GIT }), {}, { crash: { onGit: '--version' } })
    expect(step).toMatchObject({ triggered: true, stoppedBy: 'crash', signal: 'SIGKILL', exitCode: null })
    expect(signalsOf(step)).toEqual(['SIGKILL'])
    expect(alive(Number(step.outputs.sleeper))).toBe(true)
    expect(job.strays().map(p => p.pid)).toContain(Number(step.outputs.sleeper))
  })

  it('the deprecated { killAfterMs, signal } signals the pid only', async () => {
    const job = newJob()
    const main = `
const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' })
fs.appendFileSync(process.env.GITHUB_OUTPUT, 'sleeper=' + sleeper.pid + '\\n')
setInterval(() => {}, 1000)
`
    // The signal must come after node has started and spawned its child: on two cores at a load of 8, a node
    // start and a spawn took up to 3 s (1 s when idle), so 5 s leaves room without making the test slow.
    const step = await job.uses(action('legacy', { main }), {}, { killAfterMs: 5000, signal: 'SIGTERM' })
    expect(step).toMatchObject({ triggered: true, stoppedBy: 'signal', signal: 'SIGTERM' })
    expect(alive(Number(step.outputs.sleeper))).toBe(true)
  })

  it('escalates as the runner does: SIGTERM 7.5 s after SIGINT, SIGKILL 2.5 s after SIGTERM', async () => {
    const job = newJob()
    const main = `
process.on('SIGINT', () => console.log('SIGINT ignored'))
process.on('SIGTERM', () => console.log('SIGTERM ignored'))
execFileSync('git', ['--version'])
setInterval(() => {}, 1000)
`
    const step = await job.uses(action('stubborn', { main }), {}, { cancel: { onGit: '--version' } })
    expect(signalsOf(step)).toEqual(['SIGINT', 'SIGTERM', 'SIGKILL'])
    expect(step.signal).toBe('SIGKILL')
    expect(step.stdout).toContain('SIGINT ignored')
    expect(step.stdout).toContain('SIGTERM ignored')
    const [int, term, kill] = step.signals.map(s => s.atMs)
    expect(term - int).toBeGreaterThanOrEqual(SIGINT_TIMEOUT_MS - 5)
    expect(term - int).toBeLessThan(SIGINT_TIMEOUT_MS + 500)
    expect(kill - term).toBeGreaterThanOrEqual(SIGTERM_TIMEOUT_MS - 5)
    expect(kill - term).toBeLessThan(SIGTERM_TIMEOUT_MS + 500)
  }, 30_000)
})

describe('triggers on a git call', () => {
  // SIGINT is taken in JavaScript and then given its default action, so that node dies of it only after
  // it has written the pid spawn returned: on a loaded machine the signal can come first.
  const main = `
process.once('SIGINT', () => process.kill(process.pid, 'SIGINT'))
execFileSync('git', ['--version'])
fs.writeSync(1, 'version done\\n')
const child = spawn('git', ['rev-parse', '--git-dir'], { stdio: 'ignore' })
fs.writeSync(1, 'rev-parse pid ' + child.pid + '\\n')
child.on('exit', () => fs.writeSync(1, 'rev-parse done\\n'))
`
  it.each([
    ['a glob', { onGit: '*rev-parse*' }],
    ['the nth git call', { onGit: '*', nth: 2 }]
  ])('land while the matching git child runs: %s', async (_title, trigger) => {
    const job = newJob()
    const step = await job.uses(action('two-calls', { main }), {}, { cancel: trigger })
    expect(step.gitCalls).toEqual(['--version', 'rev-parse --git-dir'])
    expect(step.triggered).toBe(true)
    expect(step.signal).toBe('SIGINT')
    // Not on the first call: it ran to its end.
    expect(step.stdout).toContain('version done')
    // On the second, while it ran: node died before seeing it end, and the shim's pid is git's.
    expect(step.stdout).toContain(`rev-parse pid ${step.triggerPid}`)
    expect(step.stdout).not.toContain('rev-parse done')
  })

  it('does not fire when no call matches, and records the calls only when asked', async () => {
    const job = newJob()
    const quiet = await job.uses(action('quiet', { main: "execFileSync('git', ['status', '--porcelain'])\n" }), {}, { cancel: { onGit: '*commit*' } })
    expect(quiet).toMatchObject({ exitCode: 0, triggered: false, stoppedBy: undefined, signals: [], gitCalls: ['status --porcelain'] })
    const unrecorded = await job.uses(action('unrecorded', { main: "execFileSync('git', ['--version'])\n" }))
    expect(unrecorded.gitCalls).toBeUndefined()
    const recorded = await job.uses(
      action('recorded', { main: "execFileSync('git', ['log', '-1', '--format=%s\\nsecond line'], { stdio: 'ignore' })\n" }),
      {},
      { recordGit: true }
    )
    expect(recorded.gitCalls).toEqual(['log -1 --format=%s\nsecond line'])
    // No git call of these steps outlived its step.
    expect(job.strays()).toEqual([])
  })
})

describe('the environment of a step', () => {
  it('sets a declared input without default and without a value to an empty string', async () => {
    const job = newJob()
    const inputs = [
      'given:',
      '  description: x',
      'defaulted:',
      '  description: x',
      '  default: fallback',
      'absent:',
      '  description: x',
      'on-exit:',
      '  description: x',
      'bare:'
    ]
    const main = `
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('INPUT_') || ['RUNNER_TRACKING_ID', 'GITHUB_ACTIONS', 'CI'].includes(k)))
console.log(JSON.stringify(env))
`
    const dir = action('inputs', { main, inputs })
    const step = await job.uses(dir, { given: 'value' })
    expect(JSON.parse(step.stdout)).toEqual({
      INPUT_GIVEN: 'value',
      INPUT_DEFAULTED: 'fallback',
      INPUT_ABSENT: '',
      'INPUT_ON-EXIT': '',
      INPUT_BARE: '',
      RUNNER_TRACKING_ID: job.trackingId,
      GITHUB_ACTIONS: 'true',
      CI: process.env.CI ?? 'true'
    })
    expect(job.trackingId).toMatch(/^github_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    await expect(job.uses(dir, { undeclared: 'x' })).rejects.toThrow('unexpected input undeclared')
  })

  it('hands the state of a failed main to its post, with the inputs again', async () => {
    const job = newJob()
    const dir = action('stateful', {
      inputs: ['who:', '  description: x'],
      main: "fs.appendFileSync(process.env.GITHUB_STATE, 'token=abc\\nmulti<<EOF\\nline 1\\nline 2\\nEOF\\n')\nprocess.exit(1)\n",
      post: 'console.log(JSON.stringify({ token: process.env.STATE_token, multi: process.env.STATE_multi, who: process.env.INPUT_WHO }))\n'
    })
    const main = await job.uses(dir, { who: 'me' })
    expect(main.exitCode).toBe(1)
    expect(main.state).toEqual({ token: 'abc', multi: 'line 1\nline 2' })
    const [post] = await job.runPosts()
    expect(JSON.parse(post.stdout)).toEqual({ token: 'abc', multi: 'line 1\nline 2', who: 'me' })
  })

  it('lets a state string over 128 KiB fail the post as Linux does (E2BIG), and runs the other posts', async () => {
    const limit = 128 * 1024 - 1 // "NAME=VALUE" without its terminating NUL
    const state = (size: number) =>
      action(`state-${size}`, {
        main: `fs.appendFileSync(process.env.GITHUB_STATE, 'big=' + 'x'.repeat(${size}) + '\\n')\n`,
        post: "console.log('post ran with ' + process.env.STATE_big.length)\n"
      })
    const job = newJob()
    await job.uses(state(limit - 'STATE_big='.length))
    await job.uses(state(limit - 'STATE_big='.length + 1))
    const failure = job.runPosts()
    await expect(failure).rejects.toMatchObject({ code: 'E2BIG', syscall: 'spawn' })
    const results = (await failure.catch((error: { results: StepResult[] }) => error.results)) as StepResult[]
    expect(results).toHaveLength(1)
    expect(results[0].stdout).toContain(`post ran with ${limit - 'STATE_big='.length}`)
  })

  it("gives a step none of the caller's act, Actions, runner or job variables: only what the job sets", async () => {
    const caller = {
      ACT: 'true',
      ACTIONS_RUNTIME_TOKEN: 'token-of-the-caller',
      ACTIONS_RESULTS_URL: 'http://127.0.0.1:1/',
      GITHUB_WORKSPACE: '/elsewhere',
      GITHUB_RUN_ID: '77',
      RUNNER_ENVIRONMENT: 'github-hosted',
      RUNNER_NAME: 'the-callers-runner',
      AGENT_WORKTREE_PATH: '/elsewhere.worktrees/x',
      AGENT_WORKTREE_ORIGINAL_PATH: '/elsewhere'
    }
    const saved = { ...process.env }
    Object.assign(process.env, caller)
    try {
      const job = newJob()
      const main = `console.log(JSON.stringify(Object.fromEntries(${JSON.stringify(Object.keys(caller))}.map(k => [k, process.env[k] ?? null]))))\n`
      const step = await job.uses(action('callers-env', { main }))
      expect(JSON.parse(step.stdout)).toEqual({
        ACT: null,
        // The job's own, as the runner's node handler sets it for an action: never the caller's.
        ACTIONS_RUNTIME_TOKEN: job.runtimeToken,
        ACTIONS_RESULTS_URL: null,
        GITHUB_WORKSPACE: workspace,
        GITHUB_RUN_ID: null,
        RUNNER_ENVIRONMENT: null,
        RUNNER_NAME: 'emulation',
        AGENT_WORKTREE_PATH: null,
        AGENT_WORKTREE_ORIGINAL_PATH: null
      })
    } finally {
      process.env = saved
    }
  })

  it('watches the programs a step starts: each one seen, and whether it holds the runtime token', async () => {
    const job = newJob()
    // Two children at once, for seconds: the watch looks every few milliseconds, but a loaded machine may
    // hold the test's own process back for a while.
    const main = [
      'const { ACTIONS_RUNTIME_TOKEN, ...env } = process.env',
      "const children = [spawn('sleep', ['4']), spawn('sleep', ['4.5'], { env })]",
      "await Promise.all(children.map(c => new Promise(resolve => c.on('exit', resolve))))",
      ''
    ].join('\n')
    const step = await job.uses(action('starts-two', { main }), {}, { watchChildren: true })
    expect(step.children?.map(c => [c.command, c.token]).sort()).toEqual([
      ['sleep 4', true],
      ['sleep 4.5', false]
    ])
  })

  it('prepends GITHUB_PATH entries to PATH of later steps, the newest first', async () => {
    const job = newJob()
    await job.uses(action('adds-path', { main: "fs.appendFileSync(process.env.GITHUB_PATH, '/opt/first\\n/opt/second\\n')\n" }))
    const step = await job.uses(action('prints-path', { main: 'console.log(process.env.PATH)\n' }))
    expect(step.stdout.trim()).toMatch(/^\/opt\/second:\/opt\/first:/)
    expect(job.env.PATH).toMatch(/^\/opt\/second:\/opt\/first:/)
  })

  it('runs the git of the machine itself, with no shim on PATH, when told to (shim: false), and refuses to record then', async () => {
    const gitOf = action('which-git', { main: "console.log(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim())\n" })
    const shimmed = await newJob().uses(gitOf)
    const plain = new Job({ workspace, temp: path.join(root, 'temp-plain'), env: {}, shim: false })
    jobs.push(plain)
    const machine = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim()
    expect(shimmed.stdout.trim()).not.toBe(machine)
    expect((await plain.uses(gitOf)).stdout.trim()).toBe(machine)
    await expect(plain.uses(gitOf, {}, { recordGit: true })).rejects.toThrow(/need the git shim/)
  })

  it('waits at most 5 s for output a child still holds after node exited', async () => {
    const job = newJob()
    const main = "spawn('sleep', ['300'], { stdio: ['ignore', 'inherit', 'ignore'] }).unref()\nconsole.log('main done')\n"
    const started = Date.now()
    const step = await job.uses(action('holder', { main }))
    // What is waited for starts when node exits (durationMs after the spawn), however long a loaded machine
    // took to start it. The child holds the output for 300 s: anything well short of that is the drain's end,
    // and a loaded machine fires the drain's timer late by seconds, never by another 5.
    const afterExit = Date.now() - started - step.durationMs
    expect(step.exitCode).toBe(0)
    expect(step.stdout).toContain('main done')
    expect(afterExit).toBeGreaterThanOrEqual(OUTPUT_DRAIN_MS - 5)
    expect(afterExit).toBeLessThan(2 * OUTPUT_DRAIN_MS)
    expect(job.strays().map(p => p.command)).toEqual(['sleep 300'])
  }, 20_000)
})

describe('timeout-minutes', () => {
  it('applies to the post too, with the same cancel', async () => {
    const job = newJob()
    const dir = action('slow-post', { main: "console.log('main done')\n", post: 'setInterval(() => {}, 1000)\n' })
    const main = await job.uses(dir, {}, { timeoutMinutes: 0.02 })
    expect(main).toMatchObject({ exitCode: 0, timedOut: false, signals: [] })
    const [post] = await job.runPosts()
    expect(post).toMatchObject({ timedOut: true, stoppedBy: 'timeout', signal: 'SIGINT', triggered: false })
    expect(post.signals[0].atMs).toBeGreaterThanOrEqual(1200)
    expect(post.signals[0].atMs).toBeLessThan(3000)
  })
})

describe('the user option', () => {
  it.skipIf(process.getuid?.() !== 0)('runs node as that uid without supplementary groups, with writable step files and temp', async () => {
    const job = newJob({ user: { uid: 65534, gid: 65534 } })
    const main = `
fs.writeFileSync(process.env.RUNNER_TEMP + '/written', 'x')
fs.appendFileSync(process.env.GITHUB_OUTPUT, 'ids=' + JSON.stringify([process.getuid(), process.geteuid(), process.getgid(), process.getgroups(), process.env.HOME]) + '\\n')
fs.appendFileSync(process.env.GITHUB_STATE, 'saved=yes\\n')
`
    const step = await job.uses(action('as-nobody', { main, post: "console.log('post as ' + process.getuid() + ' with ' + process.env.STATE_saved)\n" }))
    expect(step.exitCode, step.stderr).toBe(0)
    // Node always lists the effective group among the groups; --clear-groups leaves no other.
    expect(JSON.parse(step.outputs.ids)).toEqual([65534, 65534, 65534, [65534], '/nonexistent'])
    expect(fs.statSync(path.join(root, 'temp-0', 'written')).uid).toBe(65534)
    const [post] = await job.runPosts()
    expect(post.stdout).toContain('post as 65534 with yes')
  })
})
