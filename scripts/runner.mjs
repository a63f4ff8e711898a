// Runs the committed bundles as the GitHub Actions runner (actions/runner) runs a node action. Used by the
// end-to-end and fault tests and by the demo; __tests__/e2e/runner-emulation.test.ts checks the emulation itself.
//
// Emulated, after the runner's source:
// - One node process per step (Runner.Worker/Handlers/NodeScriptActionHandler.cs: cwd GITHUB_WORKSPACE,
//   NODE_ICU_DATA removed, killProcessOnCancel: false), its environment built as the runner builds it: the
//   runner's own environment (the caller's, without what only a job has: GITHUB_*, RUNNER_*, ACTIONS_*,
//   ACT, INPUT_*, STATE_*, AGENT_WORKTREE_PATH), RUNNER_TRACKING_ID, the job's `env:`, everything exported
//   through GITHUB_ENV, the runtime variables the handler sets after those (ACTIONS_RUNTIME_URL,
//   ACTIONS_RUNTIME_TOKEN, ACTIONS_CACHE_URL: what a JavaScript action gets and a `run:` step never does;
//   ACTIONS_RESULTS_URL only where the job's env names a results service, such as the tests' stand-in: an
//   unreachable one would make every artifact upload wait out its retries), INPUT_* and STATE_*; then
//   GITHUB_ACTIONS=true, and CI=true unless CI is set (Runner.Sdk/ProcessInvoker.cs ExecuteAsync). Stdin is a
//   pipe closed at once, stdout and stderr are pipes.
// - Inputs (Runner.Worker/ActionRunner.cs merges the action.yml defaults, Handlers/Handler.cs
//   AddInputsToEnvironment names them): INPUT_<NAME>, upper-cased, spaces to `_`, hyphens kept; `with:`
//   first, then the default; a declared input with neither is set to ''. `required: true` is not enforced.
//   In a default, `${{ strategy.job-index }}` and `${{ strategy.job-total }}` are evaluated (ActionManifestManager
//   EvaluateDefaultInput: the strategy context), from the job's `strategy` option (a job outside a matrix is
//   leg 0 of 1); any other expression stays as text.
//   (The runner only warns "Unexpected input(s)" for an undeclared `with:` key; here it throws: it is a
//   typo in a test.)
// - File commands (Runner.Worker/FileCommandManager.cs): per step GITHUB_OUTPUT, GITHUB_STATE, GITHUB_ENV,
//   GITHUB_PATH and GITHUB_STEP_SUMMARY, NAME=VALUE or NAME<<DELIMITER heredocs. GITHUB_ENV reaches every
//   later step, posts included. GITHUB_PATH lines are prepended to PATH of every later step, the newest
//   first (the PrependPath list, Handler.cs AddPrependPathToEnvironment). State is read after the main
//   whatever its end (failed, cancelled, killed) and reaches the post as STATE_<name>.
// - Annotations (Runner.Common/ActionCommand.cs, ActionCommandManager.cs): a stdout line is a command when,
//   its leading white space trimmed, it starts `::error`, `::warning` or `::notice` (case-blind), or else when
//   the first `##[` anywhere in it opens the older syntax `##[error]…`; the data unescaped as each syntax does.
// - The environment limit: every variable becomes one string of execve's environment, and Linux refuses a
//   string over 128 KiB ("NAME=VALUE" at most 131071 bytes) with E2BIG. Nothing here checks sizes: spawn's
//   own error (code 'E2BIG', syscall 'spawn') surfaces as the rejection of uses()/runPosts().
// - Posts (Runner.Worker/ActionRunner.cs RegisterPostJobStep, StepsRunner.cs): registered before the main's
//   node starts (so a main that cannot start still has its post), run after
//   all main steps, last registered first, whether the main failed, was cancelled or killed (post-if:
//   always()). A post runs under its main step's timeout-minutes.
// - Cancellation and step timeouts (Runner.Sdk/ProcessInvoker.cs CancelAndKillProcessTree): SIGINT to
//   node's pid; if node has not ended 7.5 s later, SIGTERM to the pid; 2.5 s later SIGKILL of the pid.
//   Node is not made a process group leader and no signal ever goes to a group: node's children (the
//   action's git calls) are never signalled and live on while later steps and the posts run. "Ended"
//   is the runner's: node exited and its stdout and stderr closed, or 5 s after node exited when a child
//   still holds them open (ProcessExitedHandler); output after that is dropped.
// - Orphan clean-up (Runner.Worker/JobExtension.cs): every step's environment carries the job's
//   RUNNER_TRACKING_ID=github_<uuid>; job.end(), after the posts, SIGKILLs every process whose
//   /proc/<pid>/environ carries it. job.strays() lists them without killing.
// - A crash (`crash` trigger): SIGKILL of node's pid alone, as when the runner or the host dies under a
//   step or the kernel's OOM killer picks node (the runner writes oom_score_adj 500 for it). Children live on.
//   After a real runner crash no post runs and no orphan clean-up happens: to model that, do not call
//   runPosts() or end() on that Job.
// - The runner's user: with the `user` option every step's node runs as that uid/gid (setpriv, no
//   supplementary groups), HOME from /etc/passwd, with RUNNER_TEMP and the step files owned by it.
// - A runner in a container of its own, sharing the host's name (host networking) and disks but not its
//   processes: with the `pidNamespace` option every step's node runs in a new pid namespace (unshare --pid
//   --fork --mount-proc, root only), where it sees no process of the host nor of other jobs. Signals reach
//   unshare, not node: no cancellations or crash triggers with it.
//
// Not emulated:
// - Calling runPosts() again runs the posts again; the runner runs each post once. It is a test device for
//   a post's idempotence (a second job cleaning up after a first). The runner also skips a post whose main
//   step was skipped by `if:`, evaluates `post-if`, and runs `pre:` steps: none of these here.
// - Later main steps being skipped after a cancel, job-level `timeout-minutes`, `continue-on-error`,
//   expressions (`${{ }}` in defaults stay as text, but for the strategy context), secrets masking, `::add-mask::`, `::save-state::` and
//   `::set-output::` as stdout commands (only the file commands are read), the node version (this runs the
//   tests' node, process.execPath; the runner brings its own node24), oom_score_adj, Windows and macOS.
// - Job and service containers, container actions and composite actions. Local runners behave otherwise:
//   nektos/act (in docker mode a cancel does not stop node; no RUNNER_TRACKING_ID clean-up) and
//   @github/local-action (main and post in one process, state in memory, no signals).
//
// Test devices that the runner does not have: triggers (below), recording of git calls, strays(), and a
// watch of the step's child processes: with `watchChildren`, every process that node starts and that lives a
// few milliseconds is seen (its argv, and whether ACTIONS_RUNTIME_TOKEN is in its environment), and the shim
// notes every git call whose environment carries the token.
//
// The shim is in every step's PATH, behind the folders GITHUB_PATH added (as a machine's own git sits behind
// them), and becomes the git the emulation found when it started: it stands for the machine's git, so that a step
// that runs the git it found at enter still meets it; a job made with `shim: false` has none (each git call is the
// machine's own, as on a runner, for timing). addPath(dir) is a `run:` step's echo DIR >> "$GITHUB_PATH".
//
// Triggers: `cancel` and `crash` take `{ afterMs }` (a clock from node's spawn) or `{ onGit, nth }`. For
// onGit a shim directory is put first in the step's PATH; its `git` (POSIX sh) logs "$*", and when "$*"
// matches the shell glob `onGit` for the nth time in this step it writes its pid and a "fired" file, then
// waits for the emulation's "ack" (written once the signal has been sent to node) before it execs the real
// git, keeping its pid: the signal lands deterministically while that git call runs. Other calls exec the
// real git at once. `{ onGit: '*', nth: k }` is the k-th git call of the step, whatever its arguments. Git's
// own sub-processes (hooks, `git worktree add` running `git reset`) find git through git's exec path, not
// through PATH, and never meet the shim. Shim variables are named AGENT_WORKTREE_TEST_SHIM_* (not GIT_*, which
// the action strips from its git calls).
import { execFileSync, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** ProcessInvoker.cs: _sigintTimeout, _sigtermTimeout, and the wait for a child's output after node exits. */
export const SIGINT_TIMEOUT_MS = 7500
export const SIGTERM_TIMEOUT_MS = 2500
export const OUTPUT_DRAIN_MS = 5000

const SHIM = 'AGENT_WORKTREE_TEST_SHIM_'
/**
 * Variables of the caller's environment that a runner's own environment does not have: those the runner
 * sets per job and step, those of a runner or act the caller itself runs under (ACT, ACTIONS_* with the
 * tokens of its artifact and cache services), and those an agent-worktree step exported there.
 */
const CALLER_ONLY = /^(INPUT|STATE|GITHUB|RUNNER|ACTIONS)_|^ACT$|^AGENT_WORKTREE_(ORIGINAL_)?PATH$/
const FILE_COMMANDS = ['GITHUB_OUTPUT', 'GITHUB_STATE', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY']

/**
 * @typedef {{ level: 'error' | 'warning' | 'notice', message: string }} Annotation
 * @typedef {{ afterMs: number } | { onGit: string, nth?: number, holdMs?: number }} Trigger
 *   holdMs: the matching call takes this much longer after the signal (a slow git call), before git runs
 * @typedef {{
 *   cancel?: Trigger, crash?: Trigger, timeoutMinutes?: number, recordGit?: boolean, watchChildren?: boolean,
 *   id?: string
 * }} StepOptions
 *   cancel: the runner's cancel (SIGINT, 7.5 s, SIGTERM, 2.5 s, SIGKILL, to node's pid);
 *   crash: SIGKILL of node's pid; timeoutMinutes: the step's timeout-minutes (fractions allowed), which
 *   the post of a main step inherits; recordGit: return the step's git calls as gitCalls; id: the step's id.
 * @typedef {{ killAfterMs: number, signal: NodeJS.Signals }} Kill
 *   Deprecated: one signal to node's pid (never its group) this long after the step starts.
 * @typedef {{ signal: NodeJS.Signals, atMs: number }} SentSignal
 * @typedef {{
 *   exitCode: number | null, signal: string | null, stdout: string, stderr: string,
 *   outputs: Record<string, string>, state: Record<string, string>, env: Record<string, string>,
 *   summary: string, annotations: Annotation[],
 *   pid: number, durationMs: number, signals: SentSignal[],
 *   stoppedBy: 'cancel' | 'timeout' | 'crash' | 'signal' | undefined,
 *   timedOut: boolean, triggered: boolean, triggerPid: number | undefined, gitCalls: string[] | undefined,
 *   children: ChildSeen[] | undefined, gitCallsWithToken: string[] | undefined
 * }} StepResult
 * @typedef {{ pid: number, command: string, token: boolean }} ChildSeen
 *   A process the step started: its argv joined, and whether ACTIONS_RUNTIME_TOKEN was in its environment.
 *   pid: node's pid. durationMs: from spawn until node exited. signals: what was sent to node, in ms from
 *   spawn. stoppedBy: what started sending them. triggered: the cancel or crash trigger fired while node ran
 *   (for onGit: the matching git call was reached). triggerPid: the pid of the git call an onGit trigger
 *   landed on. gitCalls: the space-joined arguments of every git call of the step, in the order they started;
 *   undefined unless recordGit or an onGit trigger asked for them (never read "no calls" from a step that
 *   did not record them).
 * @typedef {{ pid: number, argv: string[], command: string }} TrackedProcess
 * @typedef {{
 *   workspace: string, temp: string, env?: Record<string, string>,
 *   user?: { uid: number, gid: number }, recordGit?: boolean, watchChildren?: boolean,
 *   strategy?: { jobIndex: number, jobTotal: number }, pidNamespace?: boolean, shim?: boolean
 * }} JobOptions
 * shim: false leaves the shim out of PATH: every git call is the machine's git itself, as on a runner, where the
 * shim's shell would add its own start to each (scripts/bench.mjs times stages so). Recording and onGit triggers
 * need it.
 */

// The git shim. `$*` joins the arguments with the first character of IFS, hence IFS=' '. Counting the
// matches uses noclobber creation (O_EXCL) so that concurrent git calls each get their own ordinal.
const SHIM_SCRIPT = `#!/bin/sh
# git shim of the runner emulation (scripts/runner.mjs): logs the call; holds the trigger's matching call
# until the emulation has signalled node; then becomes the real git, keeping this pid.
IFS=' '
d=$${SHIM}DIR
if [ -n "$d" ]; then
  printf '%s\\000' "$*" >>"$d/git-calls"
  if [ -n "\${ACTIONS_RUNTIME_TOKEN+set}" ]; then printf '%s\\000' "$*" >>"$d/git-calls-with-token"; fi
  for t in $${SHIM}TRIGGERS; do
    eval "g=\\$${SHIM}\${t}_GLOB n=\\$${SHIM}\${t}_NTH h=\\$${SHIM}\${t}_HOLD"
    case "$*" in
    $g)
      set -C
      i=1
      until { true >"$d/$t.match.$i"; } 2>/dev/null || [ "$i" -gt 100000 ]; do i=$((i + 1)); done
      set +C
      if [ "$i" = "$n" ]; then
        echo "$$" >"$d/$t.pid"
        true >"$d/$t.fired"
        w=0
        until [ -e "$d/$t.ack" ] || [ -e "$d/closed" ] || [ "$w" -ge 60000 ]; do sleep 0.005; w=$((w + 1)); done
        if [ -n "$h" ]; then sleep "$h"; fi
      fi
      ;;
    esac
  done
fi
exec "\${${SHIM}GIT:?the runner emulation lost the path of the real git}" "$@"
`

/**
 * Parses a file command file: NAME=VALUE lines and NAME<<DELIMITER heredocs.
 * @param {string} text
 * @returns {Record<string, string>}
 */
export function parseFileCommands(text) {
  /** @type {Record<string, string>} */
  const result = {}
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    if (line === '') continue
    const heredoc = line.indexOf('<<')
    const equals = line.indexOf('=')
    if (heredoc > 0 && (equals === -1 || heredoc < equals)) {
      const name = line.slice(0, heredoc)
      const delimiter = line.slice(heredoc + 2)
      const value = []
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i])
      if (i >= lines.length) throw new Error(`file command ${name}: delimiter ${delimiter} never closed`)
      result[name] = value.join('\n')
    } else if (equals > 0) {
      result[line.slice(0, equals)] = line.slice(equals + 1)
    } else {
      throw new Error(`malformed file command line: ${line}`)
    }
  }
  return result
}

/** @param {string} s */
function unescapeData(s) {
  return s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')
}

/** The older syntax's data escapes (ActionCommand.cs _escapeMappings). @param {string} s */
function unescapeLegacy(s) {
  return s.replace(/%3B/g, ';').replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%5D/g, ']').replace(/%25/g, '%')
}

/**
 * The workflow commands `::error::`, `::warning::` and `::notice::` a step printed, as the runner reads each line
 * (Runner.Common/ActionCommand.cs): `::<command> <properties>::<data>` after leading white space is trimmed, else
 * the older syntax `##[<command> <properties>]<data>` anywhere in the line.
 * @param {string} stdout
 * @returns {Annotation[]}
 */
export function parseAnnotations(stdout) {
  /** @type {Annotation[]} */
  const annotations = []
  const level = (/** @type {string} */ name) => /** @type {Annotation['level']} */ (name.toLowerCase())
  for (const line of stdout.split('\n')) {
    const match = /^::(error|warning|notice)(?: [^:]*)?::(.*)$/i.exec(line.trimStart())
    // The first ##[ of the line and the first ] after it; its command, its name case-blind as registered.
    const at = line.indexOf('##[')
    const legacy = match || at < 0 ? undefined : /^(error|warning|notice)(?: [^\]]*)?\](.*)$/i.exec(line.slice(at + 3))
    if (match) annotations.push({ level: level(match[1]), message: unescapeData(match[2]) })
    else if (legacy) annotations.push({ level: level(legacy[1]), message: unescapeLegacy(legacy[2]) })
  }
  return annotations
}

/**
 * Every live process whose initial environment carries RUNNER_TRACKING_ID=<id>, as JobExtension.cs finds
 * orphans. Zombies have an empty environ and are not listed.
 * @param {string} id
 * @returns {TrackedProcess[]}
 */
export function trackedProcesses(id) {
  const entry = `RUNNER_TRACKING_ID=${id}`
  /** @type {TrackedProcess[]} */
  const found = []
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      const environ = fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0')
      if (!environ.includes(entry)) continue
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0')
      if (argv.at(-1) === '') argv.pop()
      found.push({ pid: Number(name), argv, command: argv.join(' ') })
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found
}

/**
 * The first executable `name` along `searchPath`.
 * @param {string} name
 * @param {string} searchPath
 */
function which(name, searchPath) {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  throw new Error(`${name} not found on PATH ${searchPath}`)
}

/** @param {number} uid */
function homeOf(uid) {
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const fields = line.split(':')
      if (fields.length >= 6 && Number(fields[2]) === uid) return fields[5]
    }
  } catch {
    // no passwd file
  }
  return '/nonexistent'
}

/**
 * @param {Trigger} trigger
 * @param {string} what
 */
function checkTrigger(trigger, what) {
  if ('afterMs' in trigger) {
    if (!(trigger.afterMs >= 0)) throw new Error(`${what}.afterMs must be a number >= 0`)
  } else if ('onGit' in trigger) {
    if (typeof trigger.onGit !== 'string') throw new Error(`${what}.onGit must be a glob`)
    if (trigger.nth !== undefined && !(Number.isInteger(trigger.nth) && trigger.nth >= 1)) throw new Error(`${what}.nth must be an integer >= 1`)
  } else {
    throw new Error(`${what} must be { afterMs } or { onGit, nth? }`)
  }
}

/**
 * The third argument of uses() and the argument of runPosts(): the options, or the deprecated Kill.
 * @param {StepOptions | Kill | undefined} arg
 * @returns {{ options: StepOptions, kill: Kill | undefined }}
 */
function splitOptions(arg) {
  if (arg && 'killAfterMs' in arg) return { options: {}, kill: arg }
  const options = arg ?? {}
  if (options.cancel) checkTrigger(options.cancel, 'cancel')
  if (options.crash) checkTrigger(options.crash, 'crash')
  if (options.timeoutMinutes !== undefined && !(options.timeoutMinutes > 0)) throw new Error('timeoutMinutes must be > 0')
  return { options, kill: undefined }
}

export class Job {
  /** @type {Record<string, string>} */
  exported = {}
  /** RUNNER_TRACKING_ID of every step of this job. */
  trackingId = `github_${randomUUID()}`
  /** ACTIONS_RUNTIME_TOKEN of every action step of this job, unless the job's env gives one. */
  runtimeToken = `emulated-runtime-token-${randomUUID()}`
  /** @type {{ script: string, inputs: Record<string, string>, state: Record<string, string>, timeoutMinutes: number | undefined }[]} */
  #posts = []
  /** steps of the job without an id */
  #selfSteps = 0
  /** @type {string[]} GITHUB_PATH entries, oldest first */
  #prependPath = []
  #steps = 0
  #ended = false
  /** @type {JobOptions} */
  #options
  /** @type {string | undefined} */
  #setpriv
  #emulationDir
  /** @type {string | undefined} */
  #shimBin
  /** The machine's git, which the shim becomes: found once, on the PATH the emulation was started with. */
  #realGit = which('git', process.env.PATH ?? '')

  /**
   * @param {JobOptions} options `user` runs every step's node as that uid and gid (needs root);
   *   `recordGit` records the git calls of every step.
   */
  constructor(options) {
    this.#options = options
    // The runner empties RUNNER_TEMP when a job starts (Runner.Worker/TempDirectoryManager.cs).
    fs.rmSync(options.temp, { recursive: true, force: true })
    fs.mkdirSync(options.temp, { recursive: true })
    this.#emulationDir = path.join(options.temp, '_runner_emulation')
    fs.mkdirSync(this.#emulationDir, { recursive: true })
    const user = options.user
    if (user) {
      if (process.getuid?.() !== 0) throw new Error('the user option needs root: setpriv changes the uid')
      this.#setpriv = which('setpriv', process.env.PATH ?? '/usr/bin:/bin')
      fs.chownSync(options.temp, user.uid, user.gid)
      fs.chownSync(this.#emulationDir, user.uid, user.gid)
      try {
        execFileSync(this.#setpriv, [...this.#setprivArgs(user), '/bin/sh', '-c', 'test -w "$1" && test -x "$1"', 'sh', options.temp], { stdio: 'ignore' })
      } catch {
        throw new Error(`uid ${user.uid} cannot write ${options.temp}: every folder above it must let that user through`)
      }
    }
  }

  /** @param {{ uid: number, gid: number }} user */
  #setprivArgs(user) {
    return [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', '--']
  }

  /**
   * A `uses:` step: registers the action's post, then runs its main.
   * @param {string} actionDir relative to the repository root, as in `uses: ./exit`; an absolute path is
   *   taken as it is (throwaway actions written by a test)
   * @param {Record<string, string>} [withInputs]
   * @param {StepOptions | Kill} [options] StepOptions; or, deprecated, a Kill
   * @returns {Promise<StepResult>}
   */
  async uses(actionDir, withInputs = {}, options) {
    this.#checkOpen()
    const { options: stepOptions, kill } = splitOptions(options)
    const dir = path.resolve(ROOT, actionDir)
    const action = parse(fs.readFileSync(path.join(dir, 'action.yml'), 'utf8'))
    if (action.runs.using !== 'node24') throw new Error(`unexpected runs.using ${action.runs.using}`)
    const declared = action.inputs ?? {}
    for (const name of Object.keys(withInputs)) {
      if (!(name in declared)) throw new Error(`unexpected input ${name} for ${actionDir}`)
    }
    /** @type {Record<string, string>} */
    const inputs = {}
    const strategy = this.#options.strategy ?? { jobIndex: 0, jobTotal: 1 }
    for (const [name, spec] of Object.entries(declared)) {
      const given = withInputs[name]
      const fallback = String(/** @type {{ default?: unknown } | null} */ (spec)?.default ?? '')
        .replaceAll('${{ strategy.job-index }}', String(strategy.jobIndex))
        .replaceAll('${{ strategy.job-total }}', String(strategy.jobTotal))
      inputs[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = String(given ?? fallback)
    }
    // GITHUB_ACTION, the step's context name, as GitHub documents it: its id, else `__self` for an action of the
    // repository, with _2, _3 for a second and third such step in the job; main and post alike.
    if (!stepOptions.id) this.#selfSteps++
    inputs.GITHUB_ACTION = stepOptions.id ?? `__self${this.#selfSteps > 1 ? `_${this.#selfSteps}` : ''}`
    const post = action.runs.post ? { script: path.join(dir, action.runs.post), inputs, state: {}, timeoutMinutes: stepOptions.timeoutMinutes } : undefined
    if (post) this.#posts.push(post)
    const result = await this.#runStep(path.join(dir, action.runs.main), inputs, {}, stepOptions, kill)
    if (post) post.state = result.state
    return result
  }

  /**
   * A `run:` step's view of the environment, to lay over process.env: RUNNER_TRACKING_ID, the job's env,
   * everything exported so far, and PATH once a step added to GITHUB_PATH.
   * @returns {Record<string, string>}
   */
  get env() {
    /** @type {Record<string, string>} */
    const env = { RUNNER_TRACKING_ID: this.trackingId, ...this.#options.env, ...this.exported }
    if (this.#prependPath.length) env.PATH = this.#withPrependPath(env.PATH ?? process.env.PATH ?? '')
    return env
  }

  /**
   * Runs the registered posts, last registered first, as the runner does at the end of the job; again
   * when called again (a test device: the runner runs each post once). A post that cannot start (E2BIG)
   * does not stop the others; once all ran, the first such spawn error is thrown as Node gave it, with the
   * results of the others as its `results`.
   * @param {StepOptions | Kill} [options] for each post; timeoutMinutes here replaces the main step's
   * @returns {Promise<StepResult[]>}
   */
  async runPosts(options) {
    this.#checkOpen()
    const { options: stepOptions, kill } = splitOptions(options)
    /** @type {StepResult[]} */
    const results = []
    /** @type {unknown} */
    let failure
    for (const post of [...this.#posts].reverse()) {
      const state = Object.fromEntries(Object.entries(post.state).map(([k, v]) => [`STATE_${k}`, v]))
      const timeoutMinutes = stepOptions.timeoutMinutes ?? post.timeoutMinutes
      try {
        results.push(await this.#runStep(post.script, post.inputs, state, { ...stepOptions, timeoutMinutes }, kill))
      } catch (error) {
        failure ??= error
      }
    }
    if (failure) {
      if (failure instanceof Error) Object.assign(failure, { results })
      throw failure
    }
    return results
  }

  /**
   * The processes of this job still alive: every process carrying its RUNNER_TRACKING_ID. Right after a
   * step ends, a git call of that step that outlived node shows here.
   * @returns {TrackedProcess[]}
   */
  strays() {
    return trackedProcesses(this.trackingId)
  }

  /**
   * The end of the job, after the posts (JobExtension.cs FinalizeJob): SIGKILLs every process carrying
   * the job's RUNNER_TRACKING_ID and returns what it killed. No step may run afterwards.
   * @returns {Promise<TrackedProcess[]>}
   */
  async end() {
    this.#ended = true
    const strays = this.strays()
    for (const stray of strays) {
      try {
        process.kill(stray.pid, 'SIGKILL')
      } catch {
        // gone meanwhile
      }
    }
    // Wait until they are gone (or zombies, whose environ is empty), so that callers see the end.
    for (let waited = 0; waited < 2000 && this.strays().some(p => strays.some(s => s.pid === p.pid)); waited += 10) {
      await new Promise(resolve => setTimeout(resolve, 10))
    }
    return strays
  }

  #checkOpen() {
    if (this.#ended) throw new Error('the job has ended: no step runs after end()')
  }

  /** @param {string} base */
  #withPrependPath(base) {
    return [...this.#prependPath]
      .reverse()
      .concat(base ? [base] : [])
      .join(path.delimiter)
  }

  /**
   * What a `run:` step's `echo DIR >> "$GITHUB_PATH"` does: DIR goes first on PATH of every later step.
   * @param {string} dir
   */
  addPath(dir) {
    this.#prependPath = this.#prependPath.filter(p => p !== dir).concat(dir)
  }

  /** The shim directory, made once per job. */
  #shim() {
    if (!this.#shimBin) {
      const bin = path.join(this.#emulationDir, 'bin')
      fs.mkdirSync(bin, { recursive: true, mode: 0o755 })
      fs.writeFileSync(path.join(bin, 'git'), SHIM_SCRIPT, { mode: 0o755 })
      this.#shimBin = bin
    }
    return this.#shimBin
  }

  /**
   * @param {string} script
   * @param {Record<string, string>} inputs
   * @param {Record<string, string>} state
   * @param {StepOptions} options
   * @param {Kill | undefined} kill
   * @returns {Promise<StepResult>}
   */
  async #runStep(script, inputs, state, options, kill) {
    const step = ++this.#steps
    const user = this.#options.user
    /** @type {Record<string, string>} */
    const files = {}
    for (const name of FILE_COMMANDS) {
      files[name] = path.join(this.#options.temp, `${step}-${name.toLowerCase()}`)
      fs.writeFileSync(files[name], '')
      if (user) fs.chownSync(files[name], user.uid, user.gid)
    }
    const stepDir = path.join(this.#emulationDir, `step-${step}`)
    fs.mkdirSync(stepDir, { recursive: true })
    if (user) fs.chownSync(stepDir, user.uid, user.gid)

    // The runner passes its own environment, the job's env, exported variables, inputs and state.
    /** @type {Record<string, string>} */
    const env = {}
    for (const [k, v] of Object.entries(process.env)) {
      if (v !== undefined && !CALLER_ONLY.test(k) && !k.startsWith(SHIM)) env[k] = v
    }
    if (user) Object.assign(env, { HOME: homeOf(user.uid) })
    Object.assign(env, {
      RUNNER_TRACKING_ID: this.trackingId,
      GITHUB_WORKSPACE: this.#options.workspace,
      RUNNER_TEMP: this.#options.temp,
      ...this.#options.env,
      ...this.exported,
      ACTIONS_RUNTIME_URL: this.#options.env?.ACTIONS_RUNTIME_URL ?? 'https://pipelines.actions.githubusercontent.invalid/emulated/',
      ACTIONS_RUNTIME_TOKEN: this.#options.env?.ACTIONS_RUNTIME_TOKEN ?? this.runtimeToken,
      ACTIONS_CACHE_URL: this.#options.env?.ACTIONS_CACHE_URL ?? 'https://artifactcache.actions.githubusercontent.invalid/emulated/',
      ...(this.#options.env?.ACTIONS_RESULTS_URL ? { ACTIONS_RESULTS_URL: this.#options.env.ACTIONS_RESULTS_URL } : {}),
      ...inputs,
      ...state,
      ...files
    })
    delete env.NODE_ICU_DATA
    env.GITHUB_ACTIONS = 'true'
    env.CI ??= 'true'

    /** @type {{ kind: 'CANCEL' | 'CRASH', trigger: Trigger }[]} */
    const triggers = []
    if (options.cancel) triggers.push({ kind: 'CANCEL', trigger: options.cancel })
    if (options.crash) triggers.push({ kind: 'CRASH', trigger: options.crash })
    const gitTriggers = triggers.filter(t => 'onGit' in t.trigger)
    const watchChildren = Boolean(options.watchChildren || this.#options.watchChildren)
    const recordGit = Boolean(options.recordGit || this.#options.recordGit || gitTriggers.length || watchChildren)
    // The shim stands for the machine's git in every step, behind the folders GITHUB_PATH added (as the
    // runner's PATH has them before the image's own): a step records, or holds a call, only when asked.
    env[`${SHIM}GIT`] = this.#realGit
    if (this.#options.shim === false && recordGit) throw new Error('recordGit, watchChildren and onGit triggers need the git shim (shim: false)')
    env.PATH = this.#withPrependPath([this.#options.shim === false ? '' : this.#shim(), env.PATH].filter(Boolean).join(path.delimiter))
    if (recordGit) {
      env[`${SHIM}DIR`] = stepDir
      env[`${SHIM}TRIGGERS`] = gitTriggers.map(t => t.kind).join(' ')
      for (const { kind, trigger } of gitTriggers) {
        if (!('onGit' in trigger)) continue
        env[`${SHIM}${kind}_GLOB`] = trigger.onGit
        env[`${SHIM}${kind}_NTH`] = String(trigger.nth ?? 1)
        if (trigger.holdMs) env[`${SHIM}${kind}_HOLD`] = String(trigger.holdMs / 1000)
      }
    }

    const [node, nodeArgs] = user && this.#setpriv ? [this.#setpriv, [...this.#setprivArgs(user), process.execPath, script]] : [process.execPath, [script]]
    const [command, args] = this.#options.pidNamespace ? ['unshare', ['--pid', '--fork', '--mount-proc', '--', node, ...nodeArgs]] : [node, nodeArgs]
    // Not detached: node shares the caller's process group, and every signal below goes to its pid alone.
    // A spawn error (E2BIG for an environment string over 128 KiB) is thrown here as Node gives it.
    const child = spawn(command, args, { cwd: this.#options.workspace, env, stdio: ['pipe', 'pipe', 'pipe'] })
    const started = performance.now()
    const since = () => Math.round(performance.now() - started)
    child.stdin.on('error', () => {})
    child.stdin.end()
    /** @type {Buffer[]} */
    const stdout = []
    /** @type {Buffer[]} */
    const stderr = []
    child.stdout.on('data', d => stdout.push(d))
    child.stderr.on('data', d => stderr.push(d))

    // The runner's "process exited": node exited and its output closed, or 5 s after it exited.
    let durationMs = 0
    /** @type {[number | null, string | null]} */
    let exit = [null, null]
    let finished = false
    /** @type {Set<() => void>} */
    const onFinish = new Set()
    /** @type {Promise<void>} */
    const exited = new Promise((resolve, reject) => {
      /** @type {NodeJS.Timeout | undefined} */
      let drain
      child.on('error', error => {
        if (child.pid === undefined) reject(error)
      })
      child.on('exit', (code, signal) => {
        durationMs = since()
        exit = [code, signal]
        drain = setTimeout(() => {
          child.stdout.destroy()
          child.stderr.destroy()
          resolve()
        }, OUTPUT_DRAIN_MS)
      })
      child.on('close', () => {
        clearTimeout(drain)
        resolve()
      })
    })
    const ended = exited.finally(() => {
      finished = true
      for (const f of onFinish) f()
    })
    ended.catch(() => {})

    /** @type {SentSignal[]} */
    const signals = []
    /** @type {StepResult['stoppedBy']} */
    let stoppedBy
    let timedOut = false
    let triggered = false
    /** @type {number | undefined} */
    let triggerPid
    /** @param {NodeJS.Signals} signal */
    const send = signal => {
      if (finished || child.exitCode !== null || child.signalCode !== null) return false
      const sent = child.kill(signal)
      if (sent) signals.push({ signal, atMs: since() })
      return sent
    }
    /**
     * Waits ms, or less if the step ends first; true when it ended.
     * @param {number} ms
     * @returns {Promise<boolean>}
     */
    const endedWithin = ms =>
      /** @type {Promise<boolean>} */ (
        new Promise(resolve => {
          if (finished) return resolve(true)
          const done = () => {
            clearTimeout(timer)
            resolve(true)
          }
          const timer = setTimeout(() => {
            onFinish.delete(done)
            resolve(false)
          }, ms)
          onFinish.add(done)
        })
      )
    let cancelling = false
    /** ProcessInvoker.CancelAndKillProcessTree; SIGINT is sent before the first await. @param {'cancel' | 'timeout'} why */
    const cancel = why => {
      if (cancelling) return
      cancelling = true
      stoppedBy ??= why
      void (async () => {
        if (send('SIGINT') && (await endedWithin(SIGINT_TIMEOUT_MS))) return
        if (send('SIGTERM') && (await endedWithin(SIGTERM_TIMEOUT_MS))) return
        send('SIGKILL')
      })()
    }
    /** @param {'CANCEL' | 'CRASH'} kind */
    const fire = kind => {
      if (finished) return
      triggered = true
      if (kind === 'CANCEL') {
        cancel('cancel')
      } else {
        stoppedBy ??= 'crash'
        send('SIGKILL')
      }
    }

    /** @type {NodeJS.Timeout[]} */
    const timers = []
    for (const { kind, trigger } of triggers) {
      if ('afterMs' in trigger) timers.push(setTimeout(() => fire(kind), trigger.afterMs))
    }
    if (kill) {
      timers.push(
        setTimeout(() => {
          if (finished) return
          triggered = true
          stoppedBy ??= 'signal'
          send(kill.signal)
        }, kill.killAfterMs)
      )
    }
    if (options.timeoutMinutes !== undefined) {
      timers.push(
        setTimeout(() => {
          if (finished) return
          timedOut = true
          cancel('timeout')
        }, options.timeoutMinutes * 60_000)
      )
    }
    /** @type {ChildSeen[]} */
    const children = []
    /** @type {NodeJS.Timeout | undefined} */
    let watcher
    if (watchChildren) {
      const seen = new Set([child.pid])
      const entry = `RUNNER_TRACKING_ID=${this.trackingId}`
      const nodeExe = fs.realpathSync(process.execPath)
      const look = () => {
        for (const name of fs.readdirSync('/proc')) {
          if (!/^\d+$/.test(name) || seen.has(Number(name))) continue
          /** @type {string[]} */
          let environ
          let command
          try {
            // Between fork and exec a child is still a copy of node, with node's environment; in the middle of its
            // exec its files cannot be read, or are empty (the kernel names the new program before it lays out its
            // arguments and environment): either way it is looked at again.
            if (fs.readlinkSync(`/proc/${name}/exe`) === nodeExe) continue
            environ = fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0')
            command = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
          } catch {
            continue // gone (it is no longer listed then), in the middle of an exec, or not ours to read
          }
          if (!command || !environ.some(Boolean)) continue
          seen.add(Number(name))
          if (environ.includes(entry)) children.push({ pid: Number(name), command, token: environ.some(e => e.startsWith('ACTIONS_RUNTIME_TOKEN=')) })
        }
      }
      watcher = setInterval(look, 3)
    }
    /** @type {NodeJS.Timeout | undefined} */
    let poller
    /** @type {number[]} shims released after their signal */
    const acked = []
    if (gitTriggers.length) {
      const pending = new Set(gitTriggers.map(t => t.kind))
      poller = setInterval(() => {
        for (const kind of pending) {
          if (!fs.existsSync(path.join(stepDir, `${kind}.fired`))) continue
          pending.delete(kind)
          const pid = Number(fs.readFileSync(path.join(stepDir, `${kind}.pid`), 'utf8').trim())
          triggerPid ??= pid
          fire(kind)
          fs.writeFileSync(path.join(stepDir, `${kind}.ack`), '')
          acked.push(pid)
        }
      }, 2)
    }

    await ended
    for (const timer of timers) clearTimeout(timer)
    clearInterval(poller)
    clearInterval(watcher)
    // Releases any shim of this step still waiting: nothing will be signalled for it any more.
    fs.writeFileSync(path.join(stepDir, 'closed'), '')
    // A released shim becomes git within milliseconds; wait for it, so that when the step returns the
    // git call the signal landed on runs as git (or has ended), and no shim or its `sleep` is around.
    if (acked.length) {
      const gitExe = fs.realpathSync(env[`${SHIM}GIT`])
      for (const pid of acked) {
        for (let waited = 0; waited < 2000; waited += 2) {
          try {
            if (fs.readlinkSync(`/proc/${pid}/exe`) === gitExe) break
          } catch {
            break // ended
          }
          await new Promise(resolve => setTimeout(resolve, 2))
        }
      }
    }

    /** @param {string} name */
    const read = name => fs.readFileSync(files[name], 'utf8')
    const exportedNow = parseFileCommands(read('GITHUB_ENV'))
    Object.assign(this.exported, exportedNow)
    for (const line of read('GITHUB_PATH').split(/\r?\n/)) {
      if (!line.trim()) continue
      this.#prependPath = this.#prependPath.filter(p => p !== line).concat(line)
    }
    const out = Buffer.concat(stdout).toString('utf8')
    const gitLog = path.join(stepDir, 'git-calls')
    /** @param {string} file */
    const calls = file =>
      fs.existsSync(file)
        ? fs
            .readFileSync(file, 'utf8')
            .split('\0')
            .filter((c, i, all) => c !== '' || i < all.length - 1)
        : []
    const gitCalls = recordGit ? calls(gitLog) : undefined
    const gitCallsWithToken = recordGit ? calls(path.join(stepDir, 'git-calls-with-token')) : undefined
    return {
      exitCode: exit[0],
      signal: exit[1],
      stdout: out,
      stderr: Buffer.concat(stderr).toString('utf8'),
      outputs: parseFileCommands(read('GITHUB_OUTPUT')),
      state: parseFileCommands(read('GITHUB_STATE')),
      env: exportedNow,
      summary: read('GITHUB_STEP_SUMMARY'),
      annotations: parseAnnotations(out),
      pid: /** @type {number} */ (child.pid),
      durationMs,
      signals,
      stoppedBy,
      timedOut,
      triggered,
      triggerPid,
      gitCalls,
      children: watchChildren ? children : undefined,
      gitCallsWithToken
    }
  }
}
