// Every git call of the action goes through here, in an environment and with a configuration that the
// repository and the job cannot redirect or blind, and under the step's cancellation.
import { spawn } from 'node:child_process'
import * as path from 'node:path'
import { lockHeld, noteLockChild } from './repository-lock.js'
import { childEnvironment, sampleTree, spawnOptions, stopTree } from '../os/processes.js'
import { quoted } from '../os/quote.js'
import { withoutUserinfo } from '../os/redact.js'

export interface GitResult {
  exitCode: number
  stdout: string
  stderr: string
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult
  ) {
    const detail = result.stderr.trim() || withoutUserinfo(result.stdout.trim()) || `exit code ${result.exitCode}`
    // The command whole in one quoted span: its paths and refs are names of the repository's or the agent's.
    super(`${quoted(withoutUserinfo(['git', ...args].join(' ')))} failed: ${detail}`)
  }
}

/** The step was cancelled (SIGINT or SIGTERM from the runner): stop, leaving what the post can act on. */
export class CancelledError extends Error {
  constructor(signal: string) {
    super(`the step was cancelled (${signal})`)
  }
}

/** A push, fetch or transfer that says nothing for this long has stalled (RunOptions.stallMs). */
export const STALL_MS = 30_000

export interface RunOptions {
  /** Written to git's standard input. */
  input?: string | Buffer
  /** Added to the environment, e.g. GIT_INDEX_FILE for a temporary index. */
  env?: Record<string, string>
  /** A cancel stops this call at once (reads, network, a checkout the post will remove); other calls finish first. */
  interruptible?: boolean
  /** Stop git when it has written nothing for this long (a remote that accepts and never answers). */
  stallMs?: number
  /** Stop git at this time (ms since the epoch), whatever it is doing. */
  deadline?: number
  /** The call talks to a remote (a fetch, a push): transports stay allowed, with the transport settings of enter. */
  remote?: boolean
  /** Settings for this call, given through its environment (a key may hold any character, `=` too, unlike `-c`). */
  config?: [string, string][]
  /** How stdout is read: latin1 keeps every byte of a file name that is not UTF-8 (one character each). */
  encoding?: 'utf8' | 'latin1'
  /** stdout goes to this file descriptor (a file of the step's own), not through the step. */
  stdout?: number
  /** The call runs `git lfs`: git finds the git-lfs of enter (its folder first on PATH), or, pinned without one, none. */
  lfs?: boolean
}

/**
 * A local call that writes nothing and uses no CPU for this long is stuck (Linux, where that can be seen):
 * waiting for a named pipe in the worktree to be written, or for a file that never ends. Sooner when it is
 * seen waiting to open a named pipe.
 */
const STUCK_MS = 30_000
const STUCK_CHECK_MS = 1_000

/** Every event githooks(5) names. */
const HOOK_EVENTS = [
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
  'sendemail-validate',
  'fsmonitor-watchman',
  'p4-changelist',
  'p4-prepare-changelist',
  'p4-post-changelist',
  'p4-pre-submit',
  'post-index-change'
]

/**
 * What the agent can plant, in the shared or per-worktree config, in an included file or in its home, and what
 * would change what git tells us or run a program inside our step: an fsmonitor that answers "nothing
 * changed", caches and stat shortcuts that skip files, global ignore and attribute files, hooks, replace refs,
 * signatures (gpg), pagers and editors, external diff programs, submodule summaries, colours in output we
 * parse, automatic gc, and the transports that run a command (ext::, fd::). Given on the command line, these
 * win over every config file. Filter drivers and the remaining transports have names of the agent's choosing:
 * commands that read files or talk to a remote after the agent ran do so through a sealed view (sealed-git.ts),
 * which reads no configuration of the repository at all.
 */
const HARDENED_CONFIG = [
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.ignoreStat=false',
  'core.checkStat=default',
  'core.trustctime=true',
  'core.excludesFile=/dev/null',
  'core.attributesFile=/dev/null',
  'core.hooksPath=/dev/null',
  'core.splitIndex=false',
  'core.warnAmbiguousRefs=true',
  'core.useReplaceRefs=false',
  'core.pager=cat',
  'core.editor=:',
  'sequence.editor=:',
  'core.askPass=',
  'diff.external=',
  'index.skipHash=false',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'log.showSignature=false',
  // A mailmap file may be anything (a device that never ends): names in our output are not looked up.
  'log.mailmap=false',
  'mailmap.file=',
  'mailmap.blob=',
  'i18n.logOutputEncoding=UTF-8',
  'color.ui=false',
  'commit.gpgSign=false',
  'tag.gpgSign=false',
  'push.gpgSign=false',
  'gc.auto=0',
  // Files of the object store that would name objects where no one verified them (object-store.ts): a
  // multi-pack-index maps every id to a place in a pack, a bitmap says which objects a commit reaches.
  'core.multiPackIndex=false',
  'pack.useBitmaps=false',
  'maintenance.auto=false',
  'fetch.recurseSubmodules=false',
  'protocol.ext.allow=never',
  'protocol.fd.allow=never',
  'advice.detachedHead=false',
  // The empty grafts file set below is read, and git would advise against grafts on every call.
  'advice.graftFileDeprecated=false',
  // Hooks named in configuration (git 2.54 and later: hook.<name>.command for an event), which core.hooksPath
  // does not reach: every event switched off. Older git ignores these settings.
  ...HOOK_EVENTS.map(event => `hook.${event}.enabled=false`)
].flatMap(setting => ['-c', setting])

/**
 * On Windows, git refuses paths over 260 characters ("Filename too long": a deep tree in `worktree add` and
 * `status`) unless core.longpaths is set; node's own file calls (the removal) cope by themselves.
 */
export function platformConfig(platform: NodeJS.Platform = process.platform): string[] {
  return platform === 'win32' ? ['-c', 'core.longpaths=true'] : []
}

const PLATFORM_CONFIG = platformConfig()

/**
 * A call that does not talk to a remote may not start a transport at all: a partial clone (or a promisor
 * remote the agent declared, with a remote helper of any name) would otherwise fetch a missing object
 * through whatever the remote names. GIT_ALLOW_PROTOCOL wins over every protocol setting of every config;
 * a name no protocol has allows none.
 */
const NO_REMOTE: Record<string, string> = { GIT_ALLOW_PROTOCOL: 'none', GIT_NO_LAZY_FETCH: '1' }

/**
 * A local call (no remote) that runs longer than this is stopped, whatever it is doing: git reading
 * something that never ends (a device in place of a file) would otherwise hold the step for ever.
 */
const LOCAL_CALL_LIMIT_MS = 10 * 60_000

/**
 * The environment of every git call: what every program of ours gets (childEnvironment: no runtime tokens),
 * without a single inherited GIT_* variable (a later step can export GIT_DIR or GIT_CONFIG_GLOBAL through
 * GITHUB_ENV, and the post would follow it), never prompting for credentials, never writing the index of
 * the worktree it reads (optional locks), and speaking untranslated.
 */
export function gitEnvironment(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const clean = childEnvironment(env)
  for (const key of Object.keys(clean)) if (/^GIT_/i.test(key)) delete clean[key]
  // Replace refs and a grafts file would show history other than the objects' own. An untracked cache in an index
  // the agent wrote would hide its untracked files from `status`: never read (core.untrackedCache=false too). git's
  // warnings and errors are read (a folder it could not open): in its own words, untranslated.
  return Object.assign(clean, {
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_GRAFT_FILE: '/dev/null',
    GIT_DISABLE_UNTRACKED_CACHE: '1'
  })
}

/** What the job had set up for git when the main step entered (git-setup.ts): the only set-up our git uses once it is pinned. */
export interface PinnedGit {
  /** The git program, as PATH found it at enter. */
  exe: string
  /** The git-lfs program, as PATH found it at enter: none when it found none. */
  lfs?: string
  /** The workflow's GIT_* variables of enter that git reads as they are (GIT_SSH_COMMAND, GIT_ASKPASS...). */
  variables: Record<string, string>
  /** Settings every call takes: the workflow's GIT_CONFIG_* of enter, safe.directory of the global config of enter. */
  settings: [string, string][]
  /** Settings a call to a remote takes besides: credential helpers, insteadOf, http.*, ssh commands of enter. */
  transport: [string, string][]
  /** The global config file is still what it was at enter (in the main step): read as git reads it. */
  globalFile: boolean
}

let pinnedGit: PinnedGit | undefined

/**
 * From now on every git call runs `exe`, with these variables and settings and no global config file: what a
 * config file, GITHUB_ENV or GITHUB_PATH say later takes no part.
 */
export function pinGit(pinned: PinnedGit): void {
  pinnedGit = pinned
}

function callEnvironment(options: RunOptions, own: Record<string, string>): NodeJS.ProcessEnv {
  const base = gitEnvironment()
  // A git-lfs a later step put on PATH, in a folder before the one of enter, is not the one of enter: git looks in
  // that program's folder first. With none at enter, it looks on no PATH at all.
  if (options.lfs && pinnedGit) base.PATH = pinnedGit.lfs ? [path.dirname(pinnedGit.lfs), base.PATH ?? ''].join(path.delimiter) : ''
  // base is a copy of its own: added to in place.
  const more: (Record<string, string> | undefined)[] = !pinnedGit
    ? [options.remote ? {} : NO_REMOTE, own, options.env, configEnvironment(options.config ?? [])]
    : [
        pinnedGit.variables,
        pinnedGit.globalFile ? {} : { GIT_CONFIG_GLOBAL: '/dev/null' },
        options.remote ? {} : NO_REMOTE,
        own,
        options.env,
        configEnvironment([...pinnedGit.settings, ...(options.remote ? pinnedGit.transport : []), ...(options.config ?? [])])
      ]
  for (const variables of more) Object.assign(base, variables)
  return base
}

/** Settings handed to one git call through its environment (git 2.31): not on its command line, which any process can read. */
function configEnvironment(settings: [string, string][]): Record<string, string> {
  if (!settings.length) return {}
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(settings.length) }
  settings.forEach(([key, value], i) => Object.assign(env, { [`GIT_CONFIG_KEY_${i}`]: key, [`GIT_CONFIG_VALUE_${i}`]: value }))
  return env
}

interface Running {
  stop(signal: NodeJS.Signals): void
  interruptible: boolean
}
const running = new Set<Running>()
let cancelledBy: NodeJS.Signals | undefined

/**
 * The runner cancels a step with SIGINT to node alone, SIGTERM 7.5 s later, then SIGKILL; git children are
 * never signalled and would run on. On SIGINT, calls that may stop are stopped and the step unwinds; on
 * SIGTERM everything still running is stopped, so that no git of ours outlives the step.
 */
export function handleCancellation(): void {
  process.on('SIGINT', () => cancel('SIGINT'))
  process.on('SIGTERM', () => cancel('SIGTERM'))
}

export function cancel(signal: NodeJS.Signals): void {
  cancelledBy ??= signal
  for (const call of running) if (call.interruptible || signal === 'SIGTERM') call.stop('SIGTERM')
  // The kill follows 2.5 s after SIGTERM: go before it, whatever is still awaited.
  if (signal === 'SIGTERM') setTimeout(() => process.exit(1), 1_000).unref()
}

/** Throws when the step has been cancelled: called between the phases of a stage. */
export function throwIfCancelled(): void {
  if (cancelledBy) throw new CancelledError(cancelledBy)
}

interface Watched {
  pid: number
  output: () => number
  stop: (reason: string) => void
  last: { ticks: number; output: number; at: number }
  pipeWaits: number
}

/** The local calls being watched, all looked at by one timer (one per call would cost each call a timer's set-up). */
const watched = new Set<Watched>()
let watcher: NodeJS.Timeout | undefined

/**
 * Watches a local git call for being stuck (see STUCK_MS): calls `stop` with why. Returns the function that
 * ends the watch. Most calls end before the first look.
 */
function watchStuck(pid: number | undefined, output: () => number, stop: (reason: string) => void): (() => void) | undefined {
  if (!pid || process.platform !== 'linux') return undefined
  const watch: Watched = { pid, output, stop, last: { ticks: -1, output: -1, at: Date.now() }, pipeWaits: 0 }
  watched.add(watch)
  watcher ??= setInterval(() => watched.forEach(lookAt), STUCK_CHECK_MS)
  return () => {
    watched.delete(watch)
    if (watched.size || !watcher) return
    clearInterval(watcher)
    watcher = undefined
  }
}

function lookAt(watch: Watched): void {
  const sample = sampleTree(watch.pid)
  if (!sample) return
  watch.pipeWaits = sample.pipeWait ? watch.pipeWaits + 1 : 0
  if (sample.ticks !== watch.last.ticks || watch.output() !== watch.last.output) watch.last = { ticks: sample.ticks, output: watch.output(), at: Date.now() }
  if (watch.pipeWaits >= 2) watch.stop(`it waited to open a named pipe${sample.pipe ? ` (${sample.pipe})` : ''}, which nothing writes`)
  else if (Date.now() - watch.last.at >= STUCK_MS) watch.stop(`it made no progress for ${STUCK_MS / 1000} s`)
}

export class Git {
  /** `globalArgs` go before the command, e.g. --git-dir and --work-tree to pin a worktree's own git dir. */
  constructor(
    readonly cwd: string,
    private readonly globalArgs: string[] = [],
    /** Added to the environment of every call (a sealed view's object directory). */
    private readonly env: Record<string, string> = {}
  ) {}

  /** The same git with more arguments before the command, e.g. `-c core.fileMode=true`. */
  with(...globalArgs: string[]): Git {
    return new Git(this.cwd, [...this.globalArgs, ...globalArgs], this.env)
  }

  /**
   * Runs git and returns its result whatever the exit code. While the repository lock is held, the call is
   * recorded in the lock, so that the next step waits for a git that outlived a killed step.
   */
  async run(args: string[], options: RunOptions = {}): Promise<GitResult> {
    if (cancelledBy && options.interruptible) return { exitCode: 130, stdout: '', stderr: `not started: the step was cancelled (${cancelledBy})` }
    const child = spawn(pinnedGit?.exe ?? 'git', [...HARDENED_CONFIG, ...PLATFORM_CONFIG, ...this.globalArgs, ...args], {
      cwd: this.cwd,
      env: callEnvironment(options, this.env),
      stdio: [options.input === undefined ? 'ignore' : 'pipe', options.stdout ?? 'pipe', 'pipe'],
      ...spawnOptions()
    })
    child.stdin?.on('error', () => undefined) // git may exit before reading all of it
    child.stdin?.end(options.input)
    if (lockHeld() && child.pid) noteLockChild(child.pid)
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    let note = ''
    const call: Running = {
      interruptible: options.interruptible ?? false,
      stop: signal => {
        if (child.pid && child.exitCode === null) stopTree(child.pid, signal)
      }
    }
    running.add(call)
    let watchdog: NodeJS.Timeout | undefined
    const arm = (): void => {
      if (!options.stallMs) return
      clearTimeout(watchdog)
      watchdog = setTimeout(() => {
        note = `\ngit stopped: nothing for ${Math.round(options.stallMs! / 1000)} s (a remote that does not answer?)`
        call.stop('SIGTERM')
      }, options.stallMs)
    }
    arm()
    let output = 0
    const stuck = options.stallMs
      ? undefined
      : watchStuck(
          child.pid,
          () => output,
          reason => {
            note = `\ngit stopped: ${reason}`
            call.stop('SIGTERM')
          }
        )
    const until = options.deadline ?? (options.remote ? undefined : Date.now() + LOCAL_CALL_LIMIT_MS)
    const deadline =
      until === undefined
        ? undefined
        : setTimeout(
            () => {
              note = '\ngit stopped: it ran out of the time it was given'
              call.stop('SIGTERM')
            },
            Math.max(0, until - Date.now())
          )
    child.stdout?.on('data', (d: Buffer) => {
      stdout.push(d)
      output += d.length
      arm()
    })
    child.stderr!.on('data', (d: Buffer) => {
      stderr.push(d)
      output += d.length
      arm()
    })
    try {
      const exitCode = await new Promise<number>((resolve, reject) => {
        child.on('error', reject)
        child.on('close', code => resolve(code ?? 128))
      })
      // What git says goes into messages: no URL's credential in it. Its output is data (a config listing holds URLs whole).
      const said = withoutUserinfo(Buffer.concat(stderr).toString('utf8'))
      return { exitCode, stdout: Buffer.concat(stdout).toString(options.encoding ?? 'utf8'), stderr: said + note }
    } finally {
      clearTimeout(watchdog)
      clearTimeout(deadline)
      stuck?.()
      running.delete(call)
    }
  }

  /** Runs git; throws GitError unless it exits 0, CancelledError when the step was cancelled meanwhile. Returns stdout. */
  async exec(args: string[], options?: RunOptions): Promise<string> {
    const result = await this.run(args, options)
    if (result.exitCode !== 0) {
      throwIfCancelled()
      throw new GitError(args, result)
    }
    return result.stdout
  }

  /** The commit a user-given ref names, or undefined. The ref is never read as an option. */
  async resolveCommit(ref: string): Promise<string | undefined> {
    const result = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])
    return result.exitCode === 0 ? result.stdout.trim() : undefined
  }

  async branchExists(branch: string): Promise<boolean> {
    const result = await this.run(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])
    return result.exitCode === 0
  }

  async isValidBranchName(branch: string): Promise<boolean> {
    // Parts of letters, digits, `_` and `-` (not first) break none of git check-ref-format's rules: no call. HEAD
    // is left to git, which refuses it as a branch in some versions.
    if (branch !== 'HEAD' && /^[A-Za-z0-9_][A-Za-z0-9_-]*(\/[A-Za-z0-9_][A-Za-z0-9_-]*)*$/.test(branch)) return true
    const result = await this.run(['check-ref-format', '--branch', branch])
    return result.exitCode === 0
  }
}
