// Runs the workflow's command (bash) in the worktree, confined by sandbox-runtime (bubblewrap on Linux, macOS's
// own sandbox): it writes what paths.ts lists and a home and temp folder of its own for the step, nothing else;
// it reads neither RUNNER_TEMP (actions/checkout's credentials, the step's file-command files) nor any variable
// the runner gives only to actions; on Linux it runs in a pid namespace of its own, which dies with it.
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { findProgram } from '../git/git-setup.js'
import { isInside, realPath } from '../os/paths.js'
import { childEnvironment, shellQuote } from '../os/processes.js'
import { quoted } from '../os/quote.js'
import type { SandboxPaths } from './paths.js'
import { deniedReads } from './configs.js'

export interface Confinement {
  command: string
  worktree: string
  /** The repository's common git dir, whose config git in the sandbox reads. */
  commonDir: string
  paths: SandboxPaths
  /** The domains the command may reach; none: the network is open. */
  allowedDomains: string[]
  /** Where the sandbox cannot start, run the command unconfined (with a warning) instead of failing. */
  allowUnconfined: boolean
}

/** The sandbox could not be had here: the step fails with this one line, unless the workflow allowed running unconfined. */
export class ConfinementError extends Error {}

/** How the command ended, and whether it ran confined. */
export interface Ran {
  exitCode: number
  /** Why it ran unconfined (allow-unconfined), when it did. */
  unconfined?: string
}

/** What makes a machine fit for the sandbox: as the examples' install step does it (docs/sandboxes.md). */
const FIX =
  "Install bubblewrap, socat and ripgrep. Where bubblewrap still cannot make a user namespace (`bwrap --unshare-user --unshare-net --ro-bind / / true` fails: Ubuntu 24.04), load AppArmor's bwrap-userns-restrict profile: sudo apt-get install apparmor-profiles && sudo install -m 0644 /usr/share/apparmor/extra-profiles/bwrap-userns-restrict /etc/apparmor.d/ && sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns-restrict; never on Ubuntu 25.04 and later (ubuntu-latest is 26.04), which enforces it already, and where a second copy stops bubblewrap. Or set allow-unconfined: true to run the command without confinement"

/** Runs the command confined, in `worktree`; resolves to its exit code (128 + the signal's number when a signal ended it). */
export async function runConfined(confinement: Confinement, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  // By its real path: sandbox-runtime skips a write path that resolves somewhere else (a runner's work folder on
  // another disk, reached through a link), and the command would find neither its script nor its home.
  const step = fs.mkdtempSync(path.join(realPath(env.RUNNER_TEMP || os.tmpdir()), 'agent-worktree-run-'))
  try {
    const home = path.join(step, 'home')
    const tmp = path.join(step, 'tmp')
    fs.mkdirSync(home)
    fs.mkdirSync(tmp)
    // In the command's own temp folder: where sandbox-runtime binds a folder writable, nothing beneath it may be
    // bound again.
    const script = path.join(tmp, 'command.sh')
    fs.writeFileSync(script, confinement.command)
    const environment = commandEnvironment(env, home, tmp)
    // As a run: step with shell: bash runs its script.
    const shell = ['bash', '--noprofile', '--norc', '-eo', 'pipefail', script]
    const why = cannotConfine(confinement)
    if (why) return await unconfined(why, confinement, shell, environment)
    const started = await confined(confinement, { home, tmp, shell, environment }, env)
    if ('exitCode' in started) return started
    return await unconfined(started.failed, confinement, shell, environment)
  } finally {
    fs.rmSync(step, { recursive: true, force: true })
  }
}

/**
 * What the command gets: the step's environment (the runner's, the job's and the step's env:, what earlier steps
 * exported), without what the runner gives only to actions (ACTIONS_*: the runtime token, the cache and results
 * services), the inputs and state, and the file-command files; a home and a temp folder of its own. Git still
 * reads the job's global configuration (the workflow's user.name, say), which it cannot change.
 */
function commandEnvironment(env: NodeJS.ProcessEnv, home: string, tmp: string): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = { ...childEnvironment(env), HOME: home, TMPDIR: tmp }
  const global = env.HOME ? path.join(env.HOME, '.gitconfig') : undefined
  if (global && env.GIT_CONFIG_GLOBAL === undefined && fs.existsSync(global)) environment.GIT_CONFIG_GLOBAL = global
  return environment
}

/** Why the command cannot be confined, known before any sandbox is tried; undefined when it can be tried. */
function cannotConfine(confinement: Confinement): string | undefined {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return `there is no sandbox for ${process.platform} here (Linux and macOS have one)`
  // actions/checkout before v6 kept the job's token in the repository's own config, which git must read.
  const config = path.join(confinement.commonDir, 'config')
  if (/^\s*extraheader\s*=/im.test(readText(config)))
    throw new ConfinementError(
      `The command cannot be confined: ${quoted(config)} holds the job's credentials (an http extraheader, as actions/checkout before v6 writes it), which git in the sandbox must read. Use actions/checkout@v6 or later, or persist-credentials: false.`
    )
  return undefined
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

interface Prepared {
  home: string
  tmp: string
  shell: string[]
  environment: NodeJS.ProcessEnv
}

/**
 * Runs the command in the sandbox. Inside, before the command, a first line says on fd 3 that the sandbox is up
 * and gives the command the step's stderr back (fd 4): until then stderr is read here, so that a sandbox that
 * could not start is told by what it said, and the command never ran. Only what is known of this machine before
 * the worktree is looked at (a program missing, namespaces refused) lets the command run unconfined: a sandbox that
 * cannot be made for this worktree (what the agent left in it) fails the step.
 */
async function confined(confinement: Confinement, prepared: Prepared, env: NodeJS.ProcessEnv): Promise<Ran | { failed: string }> {
  const filesystem = filesystemOf(confinement, prepared, env)
  // Without a list, no network namespace and no proxy: the network is open, and nothing waits for a proxy.
  const network = confinement.allowedDomains.length ? { allowedDomains: confinement.allowedDomains, deniedDomains: [] } : undefined
  // The step's own folders are looked at first: a sandbox that left them out fails the step as ours, never as the
  // command's exit code.
  const own = [`test -w ${shellQuote(prepared.home)}`, `test -w ${shellQuote(prepared.tmp)}`, `test -r ${shellQuote(prepared.shell.at(-1)!)}`]
  const inner = `{ ${own.join(' && ')}; } || { echo ${LEFT_OUT} >&2; exit 1; }; printf . >&3 && exec 3>&- 2>&4 4>&- && exec ${prepared.shell.map(shellQuote).join(' ')}`
  const programs = sandboxPrograms()
  // sandbox-runtime protects what it finds in the working directory (shell and editor settings, a .git file) and
  // puts stand-ins there for what is absent: there, the step's own temp folder, not the worktree (whose files are
  // the agent's work, and whose size the agent would choose). bubblewrap starts the command where watch() does.
  // The TMPDIR it gives the command with a network list: the step's temp folder too (its default is the host's /tmp/claude).
  const cwd = process.cwd()
  const tmpdir = process.env.CLAUDE_CODE_TMPDIR
  process.chdir(prepared.tmp)
  process.env.CLAUDE_CODE_TMPDIR = prepared.tmp
  let sandbox: Wrapper | undefined
  let wrapped: string
  try {
    try {
      sandbox = process.platform === 'linux' ? await linuxWrapper(programs, network) : await managerWrapper(network)
      wrapped = await sandbox.wrap(inner, filesystem)
    } catch (error) {
      // What is missing says more than what failed: asked only then (it starts programs of its own).
      const missing = sandbox ? sandbox.missing() : [(error as Error).message]
      if (missing.length) return { failed: missing.join(', ') }
      throw new ConfinementError(`The command was not run: the sandbox could not be made for this worktree: ${(error as Error).message}.`)
    }
    try {
      const ran = await watch(wrapped, confinement.worktree, prepared.environment)
      if ('failed' in ran && ran.failed === LEFT_OUT)
        throw new ConfinementError(
          `The command was not run: inside the sandbox, the step's own home and temp folder (in ${quoted(path.dirname(prepared.tmp))}) were missing or read-only.`
        )
      if ('failed' in ran && process.platform === 'linux' && !refusesNamespaces(programs.bwrap, network !== undefined)) {
        const closed = closedParent([confinement.worktree, ...filesystem.allowWrite, ...filesystem.denyWrite, ...filesystem.denyRead])
        if (closed) throw new ConfinementError(`The command was not run: ${closedParentMessage(closed, { ...confinement, tmp: prepared.tmp })}`)
        throw new ConfinementError(`The command was not run: bubblewrap could not start the sandbox for this worktree: ${ran.failed}.`)
      }
      return ran
    } finally {
      sandbox.cleanup()
    }
  } finally {
    process.chdir(cwd)
    if (tmpdir === undefined) delete process.env.CLAUDE_CODE_TMPDIR
    else process.env.CLAUDE_CODE_TMPDIR = tmpdir
    await sandbox?.reset()
  }
}

/** Said inside the sandbox, before the command, when the step's own folders are not there as they should be. */
const LEFT_OUT = 'agent-worktree: the step folders are left out'

/** A folder this user may enter but not read, and the paths handed to the sandbox below it. */
interface Closed {
  folder: string
  below: string[]
}

/**
 * The first folder above `paths` that this user may enter but not read (a root-owned 0711 folder of a self-hosted
 * machine). bubblewrap 0.12 and later (Ubuntu 24.04's 0.9.0-1ubuntu0.2 too) opens every folder above a mount for
 * reading and refuses to start there; older ones, and 0.13.1 again, only look them up: asked only when bubblewrap refused.
 */
function closedParent(paths: string[]): Closed | undefined {
  const readable = new Map<string, boolean>()
  const closed = (dir: string): boolean => {
    if (!readable.has(dir)) readable.set(dir, canRead(dir))
    return !readable.get(dir)
  }
  for (const p of paths) {
    const above: string[] = []
    for (let dir = path.dirname(p); !above.includes(dir); dir = path.dirname(dir)) above.unshift(dir)
    const folder = above.find(closed)
    if (folder) return { folder, below: paths.filter(q => isInside(q, folder)) }
  }
  return undefined
}

/** Whether this user can list `dir`; a folder that is not there is no obstacle of this kind. */
function canRead(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.R_OK)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EACCES'
  }
}

function closedParentMessage(closed: Closed, folders: { worktree: string; commonDir: string; tmp: string }): string {
  const stat = fs.statSync(closed.folder)
  const owner = stat.uid === 0 ? 'root' : `uid ${stat.uid}`
  const mode = (stat.mode & 0o7777).toString(8).padStart(4, '0')
  const named: [string, string][] = [
    ['the worktree', folders.worktree],
    ['the repository', folders.commonDir],
    ["the runner's temp folder", folders.tmp]
  ]
  const below = named.filter(([, p]) => isInside(p, closed.folder)).map(([name]) => name)
  const what = below.length ? below.join(', ') : quoted(closed.below[0])
  const move =
    below.length === 1 && below[0] === 'the worktree'
      ? 'or set worktrees-dir to a folder that user owns, below folders it can read (the default lies beside the checkout)'
      : `or keep ${what} in folders that user owns, below folders it can read`
  return (
    `bubblewrap cannot open ${quoted(closed.folder)} (owned by ${owner}, mode ${mode}), a folder above ${what}, which the runner's user may enter but not read: ` +
    `bubblewrap 0.12 and later opens every folder above what it mounts. Let the runner's user read it (sudo chmod o+r ${closed.folder}), ${move}.`
  )
}

/** The programs sandbox-runtime starts for the sandbox on Linux, by path. */
export interface Programs {
  bwrap?: string
  socat?: string
  rg?: string
}

/**
 * Found on this process's PATH (the run stage sets enter's), never on the command's: what an earlier step put on
 * GITHUB_PATH runs only inside. sandbox-runtime's own lookups (which, bash) use this PATH too.
 */
function sandboxPrograms(): Programs {
  const find = (name: string): string | undefined => findProgram(process.env, name)
  return { bwrap: find('bwrap'), socat: find('socat'), rg: find('rg') }
}

/** Whether bubblewrap cannot make the namespaces a sandbox needs here, whatever it confines (a kernel or AppArmor that refuses them). */
function refusesNamespaces(bwrap: string | undefined, network: boolean): boolean {
  const unshare = ['--unshare-user', '--unshare-pid', ...(network ? ['--unshare-net'] : [])]
  return spawnSync(bwrap ?? 'bwrap', [...unshare, '--ro-bind', '/', '/', 'true'], { stdio: 'ignore', timeout: 5000 }).status !== 0
}

/** What the command may read and write; every entry a name, never a pattern, whatever characters it holds. */
export interface Filesystem {
  denyRead: string[]
  allowWrite: string[]
  denyWrite: string[]
}

export function filesystemOf(confinement: Pick<Confinement, 'paths'>, prepared: Pick<Prepared, 'home' | 'tmp'>, env: NodeJS.ProcessEnv): Filesystem {
  return {
    // RUNNER_TEMP holds actions/checkout's credentials and the step's files; besides what no agent of ours reads
    // (configs.ts), sandbox-runtime's own /tmp/claude becomes an empty folder that goes with the sandbox.
    denyRead: [...(env.RUNNER_TEMP ? [env.RUNNER_TEMP] : []), ...deniedReads(env), '/tmp/claude'].map(p => realPath(p)),
    // Each by its real path: sandbox-runtime skips, unsaid, a write path that resolves somewhere else.
    allowWrite: [...confinement.paths.write, prepared.home, prepared.tmp].map(p => realPath(p)),
    denyWrite: confinement.paths.readOnly
  }
}

/** sandbox-runtime as this step uses it: a command wrapped for a filesystem, cleaned up after. */
export interface Wrapper {
  wrap(command: string, filesystem: Filesystem): Promise<string>
  cleanup(): void
  reset(): Promise<void>
  /** What this machine lacks for the sandbox. */
  missing(): string[]
}

const names = (paths: string[]): { path: string; literal: true }[] => paths.map(p => ({ path: p, literal: true }))

/**
 * On Linux: sandbox-runtime's bubblewrap wrapper, given what its SandboxManager gives it for this filesystem, with
 * every program by path. Loading the manager (its proxies, TLS and schemas: some 65 ms) would delay the command for
 * nothing with the network open; with a list of domains the manager runs the proxy, and the wrapper is given it.
 */
export async function linuxWrapper(programs: Programs, network: Network | undefined): Promise<Wrapper> {
  const [linux, utils, manager] = await Promise.all([
    import('@anthropic-ai/sandbox-runtime/dist/sandbox/linux-sandbox-utils.js'),
    import('@anthropic-ai/sandbox-runtime/dist/sandbox/sandbox-utils.js'),
    network && import('@anthropic-ai/sandbox-runtime').then(m => m.SandboxManager)
  ])
  const paths = { bwrapPath: programs.bwrap, socatPath: programs.socat }
  let initialized = false
  return {
    wrap: async (command, filesystem) => {
      if (manager) {
        // Its filesystem rules go unused: the wrapper below gets this step's.
        const none = { denyRead: [], allowWrite: [], denyWrite: [] }
        await manager.initialize({ filesystem: none, network: network!, ...paths, ...(programs.rg && { ripgrep: { command: programs.rg } }) })
        initialized = true
      }
      return linux.wrapCommandWithSandboxLinux({
        command,
        needsNetworkRestriction: manager !== undefined,
        ...(manager && {
          httpSocketPath: manager.getLinuxHttpSocketPath(),
          socksSocketPath: manager.getLinuxSocksSocketPath(),
          httpProxyPort: manager.getProxyPort(),
          socksProxyPort: manager.getSocksProxyPort(),
          proxyAuthToken: manager.getProxyAuthToken()
        }),
        binShell: 'bash',
        ...paths,
        ...(programs.rg && { ripgrepConfig: { command: programs.rg } }),
        readConfig: { denyOnly: [], literalDenyOnly: filesystem.denyRead },
        writeConfig: {
          // What the filesystem denies reading stays denied: sandbox-runtime's own /tmp/claude would be bound back
          // from the host over the deny, readable and writable.
          allowOnly: utils.getDefaultWritePaths({ denyRead: names(filesystem.denyRead) }).filter(p => !filesystem.denyRead.some(denied => isInside(p, denied))),
          literalAllowOnly: filesystem.allowWrite,
          denyWithinAllow: [],
          literalDenyWithinAllow: filesystem.denyWrite
        }
      })
    },
    cleanup: () => linux.cleanupBwrapMountPoints(),
    reset: async () => {
      if (initialized) await manager!.reset()
    },
    missing: () => [...(programs.rg ? [] : ['ripgrep (rg) not installed']), ...linux.checkLinuxDependencies(paths).errors]
  }
}

type Network = { allowedDomains: string[]; deniedDomains: string[] }

/** sandbox-runtime's SandboxManager: macOS's sandbox, the network open or limited to a list of domains (through its proxy). */
export async function managerWrapper(network: Network | undefined): Promise<Wrapper> {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime')
  const config = (filesystem: Filesystem) => ({
    denyRead: names(filesystem.denyRead),
    allowWrite: names(filesystem.allowWrite),
    denyWrite: names(filesystem.denyWrite)
  })
  let initialized = false
  return {
    wrap: async (command, filesystem) => {
      if (network) {
        await SandboxManager.initialize({ filesystem: config(filesystem), network })
        initialized = true
      }
      return SandboxManager.wrapWithSandbox(command, 'bash', { filesystem: config(filesystem), ...(network && { network }) })
    },
    cleanup: () => SandboxManager.cleanupAfterCommand(),
    reset: async () => {
      if (initialized) await SandboxManager.reset()
    },
    missing: () => SandboxManager.checkDependencies().errors
  }
}

/** Starts the wrapped command, with bubblewrap as our own child (so that it dies with this step), and waits for it. */
function watch(wrapped: string, cwd: string, environment: NodeJS.ProcessEnv): Promise<Ran | { failed: string }> {
  const child = spawn('/bin/sh', ['-c', `exec ${wrapped}`], { cwd, env: environment, stdio: ['ignore', 'inherit', 'pipe', 'pipe', 2], detached: true })
  let started = false
  let said = ''
  child.stdio[3]!.once('data', () => (started = true))
  child.stderr!.on('data', (data: Buffer) => {
    if (started) process.stderr.write(data)
    else said += data.toString()
  })
  const stop = (): void => {
    try {
      process.kill(-child.pid!, 'SIGKILL')
    } catch {
      // gone already
    }
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      if (!started) return resolve({ failed: said.trim().split('\n')[0] || `the sandbox ended with code ${code ?? signal} before the command started` })
      resolve({ exitCode: code ?? 128 + (os.constants.signals[signal!] ?? 0) })
    })
  })
}

/** Where the workflow allowed it, the command runs without the sandbox; otherwise the step fails, saying why. */
async function unconfined(why: string, confinement: Confinement, shell: string[], environment: NodeJS.ProcessEnv): Promise<Ran> {
  if (!confinement.allowUnconfined) throw new ConfinementError(`The command cannot be confined here: ${why}. ${FIX}.`)
  const child = spawn(shell[0], shell.slice(1), { cwd: confinement.worktree, env: environment, stdio: ['ignore', 'inherit', 'inherit'] })
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve(code ?? 128 + (os.constants.signals[signal!] ?? 0)))
  })
  return { exitCode, unconfined: why }
}
