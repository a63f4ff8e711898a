// What our git may use: what the job had set up for git when the main step entered, before any agent ran — its
// git program, HOME, PATH, the workflow's GIT_* variables (an ssh command, an askpass, GIT_CONFIG_COUNT/KEY/VALUE),
// the global config's settings and the repository's credential helpers, insteadOf and extra headers (actions/
// checkout's persisted credentials among them). Never what changed after: GITHUB_ENV, GITHUB_PATH, a config file
// written later. The record keeps hashes of the variables and settings, not their values (no credential is
// written down): what the post or the exit reads again is used only where its hash was recorded at enter.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git, pinGit } from './git-command-manager.js'
import type { GitSetup } from '../record/state-helper.js'
import { quoted } from '../os/quote.js'

/**
 * The workflow's GIT_* variables our git keeps: how it reaches a remote and the settings it adds. Never one that
 * points git at another repository, index, object store, config file of the system or program of its own.
 */
const KEPT_VARIABLE = /^GIT_(SSH|SSH_COMMAND|SSH_VARIANT|ASKPASS|CONFIG_(COUNT|KEY_\d+|VALUE_\d+|GLOBAL|NOSYSTEM)|SSL_[A-Z_]+|HTTP_[A-Z_]+|PROXY_SSL_[A-Z_]+)$/

/** Variables that find programs and config files: as they were at enter, whatever GITHUB_ENV and GITHUB_PATH say later. */
const PINNED_VARIABLES = ['HOME', 'PATH', 'XDG_CONFIG_HOME', 'SSH_AUTH_SOCK'] as const

/** The settings of the global config every call takes: which repositories of another owner git may read. */
const EVERY_CALL = /^safe\.directory$/

/** The settings a call to a remote takes: how the workflow reaches and authenticates to its remotes. */
const TRANSPORT = /^(credential\..+|url\..+\.(insteadof|pushinsteadof)|https?\..+|core\.sshcommand|ssh\.variant)$/i

/** One config entry as `git config --list --show-scope` gives it. */
export interface SetupEntry {
  scope: string
  key: string
  value?: string
}

/** A variable's or setting's hash, as the record keeps it: 64 bits, named by its kind. */
function hashOf(kind: 'variable' | 'setting', name: string, value: string): string {
  return createHash('sha256').update(`${kind}\0${name}\0${value}`).digest('hex').slice(0, 16)
}

/** The git program PATH names: the first executable file called git (git.exe on Windows) of its folders. */
function findGit(env: NodeJS.ProcessEnv): string {
  const found = findProgram(env, 'git')
  if (found) return found
  throw new Error(`git was not found on PATH (${quoted(env.PATH ?? '')}): install git 2.31 or newer`)
}

/** The first executable file of PATH's folders called `name` (name.exe, name.cmd on Windows). */
export function findProgram(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const names = process.platform === 'win32' ? [`${name}.exe`, `${name}.cmd`] : [name]
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of names) {
      const candidate = path.resolve(dir, name)
      try {
        fs.accessSync(candidate, fs.constants.X_OK)
        if (fs.statSync(candidate).isFile()) return candidate
      } catch {
        // not here
      }
    }
  }
  return undefined
}

/** The settings GIT_CONFIG_COUNT/KEY/VALUE give, in order. */
function countedSettings(variables: Record<string, string>): [string, string][] {
  const count = Number(variables.GIT_CONFIG_COUNT) || 0
  const settings: [string, string][] = []
  for (let i = 0; i < count; i++) {
    const key = variables[`GIT_CONFIG_KEY_${i}`]
    const value = variables[`GIT_CONFIG_VALUE_${i}`]
    if (key !== undefined && value !== undefined) settings.push([key, value])
  }
  return settings
}

function keptVariables(env: NodeJS.ProcessEnv, recorded?: Set<string>): Record<string, string> {
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && KEPT_VARIABLE.test(name) && (!recorded || recorded.has(hashOf('variable', name, value)))) kept[name] = value
  return kept
}

/** The variables git reads itself (GIT_SSH_COMMAND...); the counted settings go with ours, in one list. */
function pinnedVariables(kept: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(kept).filter(([name]) => !/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(name)))
}

function kept(entries: SetupEntry[], scopes: string[], pattern: RegExp, recorded?: Set<string>): [string, string][] {
  return entries
    .filter(e => scopes.includes(e.scope) && pattern.test(e.key))
    .map((e): [string, string] => [e.key, e.value ?? 'true'])
    .filter(([key, value]) => !recorded || recorded.has(hashOf('setting', key, value)))
}

/**
 * The main step, before its first git call: git is the program PATH names now, with the workflow's variables.
 * Returns the record's set-up, to complete with the config's settings (setupFromConfig).
 */
export function pinAtEnter(env: NodeJS.ProcessEnv = process.env): GitSetup {
  const exe = findGit(env)
  // git-lfs too, as PATH names it now: the one a later step's rescue, push or restore uploads and downloads with.
  const lfs = findProgram(env, 'git-lfs')
  const variables = keptVariables(env)
  pinGit({ exe, lfs, variables: pinnedVariables(variables), settings: countedSettings(variables), transport: [], globalFile: true })
  const pinned: Record<string, string> = {}
  for (const name of PINNED_VARIABLES) if (env[name] !== undefined) pinned[name] = env[name]!
  return { exe, ...(lfs ? { lfs } : {}), env: pinned, hashes: Object.entries(variables).map(([name, value]) => hashOf('variable', name, value)) }
}

/**
 * The main step, once it listed the config of enter: a call to a remote that reads no config of the repository
 * (a sealed view) takes the repository's transport settings of enter; the global config is read as it is now.
 * The record learns the hashes of every setting a later step may take.
 */
export function setupFromConfig(setup: GitSetup, entries: SetupEntry[], env: NodeJS.ProcessEnv = process.env): GitSetup {
  const variables = keptVariables(env)
  pinGit({
    exe: setup.exe,
    lfs: setup.lfs,
    variables: pinnedVariables(variables),
    settings: countedSettings(variables),
    transport: kept(entries, ['local', 'worktree'], TRANSPORT),
    globalFile: true
  })
  const settings = [...kept(entries, ['global'], EVERY_CALL), ...kept(entries, ['global', 'local', 'worktree'], TRANSPORT)]
  return { ...setup, hashes: [...new Set([...setup.hashes, ...settings.map(([key, value]) => hashOf('setting', key, value))])] }
}

/**
 * The post and the exit sub-action: HOME, PATH and the rest as they were at enter (for every program this step
 * starts), git the program of enter, the workflow's variables and settings where they are still what they were;
 * the global config file is read once, here, and only its settings of enter are taken.
 */
export async function pinRecorded(setup: GitSetup, cwd: string, listEntries: (git: Git) => Promise<SetupEntry[]>): Promise<void> {
  for (const name of PINNED_VARIABLES) {
    if (setup.env[name] === undefined) delete process.env[name]
    else process.env[name] = setup.env[name]
  }
  const recorded = new Set(setup.hashes)
  const variables = keptVariables(process.env, recorded)
  const base = { exe: setup.exe, lfs: setup.lfs, variables: pinnedVariables(variables), settings: countedSettings(variables) }
  pinGit({ ...base, transport: [], globalFile: true })
  // Only settings whose hash enter recorded are taken: where every recorded hash is a variable's, the listing could give nothing.
  const variableHashes = new Set(Object.entries(variables).map(([name, value]) => hashOf('variable', name, value)))
  const settingsRecorded = [...recorded].some(hash => !variableHashes.has(hash))
  const entries = settingsRecorded ? await listEntries(new Git(cwd)).catch(() => []) : []
  pinGit({
    ...base,
    settings: [...kept(entries, ['global'], EVERY_CALL, recorded), ...base.settings],
    transport: kept(entries, ['global', 'local', 'worktree'], TRANSPORT, recorded),
    globalFile: false
  })
}

/**
 * The run sub-action, whose git only reads where the worktree is registered (no remote, no filter): the program of
 * enter, never one a folder GITHUB_PATH put first names.
 */
export function pinProgram(setup: GitSetup): void {
  pinGit({ exe: setup.exe, variables: {}, settings: [], transport: [], globalFile: true })
}
