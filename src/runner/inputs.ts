// Reads and checks the inputs, in one place, into typed settings.
import * as path from 'node:path'
import { NAME_MAX_LENGTH } from '../record/names.js'
import { parseRescueName } from '../rescue/names.js'
import {
  InputError,
  type Isolation,
  type OnExit,
  type PullRequestRequest,
  type PushRequest,
  type Reclaim,
  type RescueTarget,
  type RestoreRequest
} from '../record/settings.js'
import { quoted } from '../os/quote.js'

/**
 * An input, as the runner gives it (INPUT_<NAME>, spaces as underscores) and as @actions/core's getInput reads it,
 * trimmed. Read here without @actions/core, whose loading (about 45 ms) the run sub-action's command would wait for.
 */
function getInput(name: string): string {
  return (process.env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim()
}

export interface EnterSettings {
  /** Worktree name; undefined means generate one. */
  name?: string
  /** An existing worktree to enter instead of creating one. */
  path?: string
  baseRef: string
  branch?: string
  repositoryPath: string
  /** As typed: plan.ts resolves it, and quotes it so in its errors. */
  worktreesDir?: string
  /** undefined: remove a created worktree, keep one entered by path. */
  onExit?: OnExit
  discardChanges: boolean
  /** Where unsaved work that is kept goes, off the machine: resolved from auto already. */
  rescue: RescueTarget[]
  rescueMaxBytes: number
  /** Fetch base-ref from its remote before creating. */
  fetch: boolean
  /** gitignore-style file in the checkout naming ignored files to copy; undefined: .worktreeinclude if present. */
  includeFile?: string
  /** Folders of the checkout to link into the worktree, relative paths. */
  symlinkDirs: string[]
  /** Cone-mode sparse checkout of these folders; empty: the whole tree. */
  sparsePaths: string[]
  /** Take a parked worktree from the pool at enter, park a clean one at exit. */
  recycle: boolean
  /** The index of this job among the legs of its matrix; undefined outside a matrix. */
  leg?: string
  /** A rescue to restore into the new worktree; undefined: none. */
  restore?: RestoreRequest
  isolation: Isolation
  /** Push the worktree's HEAD at exit; undefined: nothing is pushed. */
  push?: PushRequest
  /** The ignored folders a kept worktree gives back. */
  reclaim: Reclaim
  /** Open a pull request of the pushed branch at exit; undefined: none. */
  pullRequest?: PullRequestRequest
}

export interface ExitSettings {
  /** The worktree to exit; undefined means the one this job entered last. */
  path?: string
  onExit?: OnExit
  discardChanges: boolean
  /** undefined: as the main step was told. */
  rescue?: RescueTarget[]
  /** false: nothing is pushed; undefined: as the main step was told. */
  push?: PushRequest | false
  /** undefined: as the main step was told. */
  reclaim?: Reclaim
  /** false: no pull request; undefined: as the main step was told. */
  pullRequest?: { draft: boolean } | false
  /** undefined: as the main step was told. */
  pullRequestTitle?: string
}

export interface RunSettings {
  /** The bash script to run. */
  command: string
  /** The worktree to run it in; undefined means the one this job entered last. */
  path?: string
  /** The domains it may reach; empty: the network is open. */
  allowedDomains: string[]
  allowUnconfined: boolean
}

export const DEFAULT_RESCUE_MAX_SIZE = '100MB'
const NAME_SEGMENT = /^[A-Za-z0-9._-]+$/

/** Why a worktree name breaks the rule, or undefined when it keeps it. */
export function nameProblem(name: string): string | undefined {
  if (name.length > NAME_MAX_LENGTH) return `it is ${name.length} characters long, more than ${NAME_MAX_LENGTH}`
  for (const segment of name.split('/')) {
    if (segment === '') return 'it has an empty segment (a leading, trailing or doubled "/")'
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`
    if (!NAME_SEGMENT.test(segment)) return `the segment ${quoted(segment)} has a character other than letters, digits, ".", "_" and "-"`
  }
  return undefined
}

/**
 * The one case rule of every input: a keyword (true, keep, auto, clone…) is taken as YAML 1.2's core schema writes
 * its booleans, and the toolkit reads them: all lower case, capitalised or all upper case. Returns the keyword in
 * lower case, or the value as it was where it is written otherwise (then it is no keyword: `tRue`).
 */
export function keyword(value: string): string {
  const lower = value.toLowerCase()
  const capitalised = lower.charAt(0).toUpperCase() + lower.slice(1)
  return value === lower || value === capitalised || value === value.toUpperCase() ? lower : value
}

/** Words YAML 1.1 read as booleans, as some tools still do: never taken as a name, so that a mistake is said. */
const YAML_11_BOOLEANS = ['y', 'yes', 'n', 'no', 'on', 'off']

/** Parses a boolean input; empty means false. */
export function parseBoolean(input: string, value: string): boolean {
  const word = keyword(value)
  if (word === '' || word === 'false') return false
  if (word === 'true') return true
  throw new InputError(input, value, 'it is not a boolean', 'Use true or false.')
}

export function parseOnExit(input: string, value: string): OnExit | undefined {
  const word = keyword(value)
  if (word === '') return undefined
  if (word === 'keep' || word === 'remove') return word
  throw new InputError(input, value, 'it is neither keep nor remove', 'Use on-exit: keep or on-exit: remove.')
}

/**
 * The push input: false (or empty) pushes nothing; true pushes to the worktree's own branch; anything else is
 * the name of the branch to push to, which git checks in the main step.
 */
export function parsePush(input: string, value: string): PushRequest | false {
  const word = keyword(value)
  if (word === '' || word === 'false') return false
  if (word === 'true') return {}
  if (YAML_11_BOOLEANS.includes(word))
    throw new InputError(
      input,
      value,
      'it reads as a yes or no, not as the name of a branch',
      "Use true (push to the worktree's own branch) or false; a branch to push to needs a name that is not yes, no, on, off, y or n."
    )
  if (value.startsWith('-') || /\s/.test(value))
    throw new InputError(input, value, 'it is neither true, false nor a branch name', "Use true (the worktree's own branch), false, or a branch name.")
  return { branch: value }
}

/** The pull-request input: false (or empty), true, or draft. */
export function parsePullRequest(input: string, value: string): { draft: boolean } | false {
  const word = keyword(value)
  if (word === '' || word === 'false') return false
  if (word === 'true' || word === 'draft') return { draft: word === 'draft' }
  throw new InputError(input, value, 'it is neither true, false nor draft', 'Use true (a pull request ready for review), draft, or false.')
}

/**
 * A pull request is opened for the branch push sends, with the token github-token gives, under the title
 * pull-request-title may give: checked wherever the inputs are given. `asked`: this step's pull-request; `pushes`:
 * whether this exit pushes; `inherited`: what the main step asked for (an exit step follows it without an input
 * of its own).
 */
export function checkPullRequest(
  asked: { draft: boolean } | false | undefined,
  pushes: boolean,
  title: string | undefined,
  inherited?: { draft: boolean }
): void {
  if (asked && !pushes)
    throw new InputError(
      'pull-request',
      asked.draft ? 'draft' : 'true',
      'a pull request is opened for the branch that push sends, and nothing is pushed',
      "Add push: true (the worktree's own branch) or push: <branch>, or remove pull-request."
    )
  const opens = asked === undefined ? inherited !== undefined && pushes : asked !== false
  if (opens && !githubToken())
    throw new InputError(
      'github-token',
      '',
      'a pull request needs a token to open it with',
      "Leave github-token out (its default is the job's GITHUB_TOKEN), or give a token."
    )
  if (!opens && title !== undefined)
    throw new InputError('pull-request-title', title, 'no pull request is asked for', 'Add pull-request: true (or draft), or remove pull-request-title.')
}

/** The token a pull request is opened with: read only when one is asked for, and never shown. */
export function githubToken(): string {
  return getInput('github-token')
}

/**
 * The rescue input: a list of artifact and branch, or none, or auto (artifact on a GitHub-hosted runner,
 * whose machine is deleted after the job; none elsewhere, where the disk keeps what is kept).
 */
export function parseRescue(input: string, value: string, env: NodeJS.ProcessEnv = process.env): RescueTarget[] {
  const fix = 'Use auto, none, or a list of artifact and branch (for example "artifact, branch").'
  const typed = value.split(/[\s,]+/).filter(Boolean)
  const unknown = typed.find(item => !['auto', 'none', 'artifact', 'branch'].includes(keyword(item)))
  if (unknown !== undefined) throw new InputError(input, value, `${quoted(unknown)} is not a rescue target`, fix)
  const items = [...new Set(typed.map(keyword))]
  if (items.length > 1 && (items.includes('auto') || items.includes('none'))) throw new InputError(input, value, 'auto and none stand alone', fix)
  if (!items.length || items[0] === 'auto') return env.RUNNER_ENVIRONMENT === 'github-hosted' ? ['artifact'] : []
  return items.filter((item): item is RescueTarget => item === 'artifact' || item === 'branch')
}

/**
 * The restore input: none, auto, or a rescue's name as the rescuing step gave it (its rescue-artifact or
 * rescue-ref output): an artifact agent-worktree-rescue-<name>-<tail>, or a branch agent-worktree-rescue/<name>/<tail>.
 */
export function parseRestore(input: string, value: string): RestoreRequest | undefined {
  if (value === '' || keyword(value) === 'none') return undefined
  if (keyword(value) === 'auto') return 'auto'
  const named = parseRescueName(value)
  if (named) return named
  throw new InputError(
    input,
    value,
    'it is neither none, auto, nor the name of a rescue (an artifact agent-worktree-rescue-… or a branch agent-worktree-rescue/…/…)',
    'Use none, auto, or the rescue-artifact or rescue-ref output of the exit that rescued the work.'
  )
}

/**
 * The reclaim input: none, or gitignore-style patterns of ignored folders to delete in a kept worktree, one per line
 * or separated by commas; folders holding a CACHEDIR.TAG go too (empty: only those).
 */
export function parseReclaim(input: string, value: string): Reclaim {
  const patterns = [...new Set(value.split(/[\r\n,]+/).map(p => p.trim()))].filter(Boolean)
  if (patterns.length === 1 && keyword(patterns[0]) === 'none') return { patterns: [], tagged: false }
  for (const pattern of patterns) {
    const problem =
      keyword(pattern) === 'none'
        ? 'none stands alone'
        : /^[!#]/.test(pattern)
          ? `${quoted(pattern)} starts with ${pattern[0]}, which gitignore reads as a negation or a comment`
          : pattern.includes('\\')
            ? `${quoted(pattern)} has a backslash`
            : pattern.split('/').some(segment => segment === '..' || segment === '.')
              ? `${quoted(pattern)} has a "." or ".." segment`
              : undefined
    if (problem)
      throw new InputError(
        input,
        value,
        problem,
        'Use none, or gitignore-style patterns of folders git ignores, such as "node_modules, target, .venv" ("/" between folders).'
      )
  }
  return { patterns, tagged: true }
}

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 }

/** A size such as 100MB, 2GB or 512K (powers of 1024). */
export function parseSize(input: string, value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim())
  const unit = match ? UNITS[match[2].toLowerCase()] : undefined
  if (!match || unit === undefined) throw new InputError(input, value, 'it is not a size', 'Use a number with KB, MB or GB, for example 100MB.')
  if (Number(match[1]) * unit < 1)
    throw new InputError(input, value, 'a rescue of no bytes would hold nothing', 'To rescue nothing, set rescue: none; else give a size such as 100MB.')
  return Math.round(Number(match[1]) * unit)
}

// Control characters have no place in a name, ref or path, and a newline could forge a file-command line.
function checked(input: string): string {
  const value = getInput(input)
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw new InputError(input, value, 'it contains a control character such as a newline', 'Remove it.')
  }
  return value
}

function optional(input: string): string | undefined {
  return checked(input) || undefined
}

/** An input of paths or patterns, one per line or separated by commas: no control character but line ends. */
function pathText(input: string): string {
  const value = getInput(input)
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f]/.test(value)) {
    throw new InputError(input, value, 'it contains a control character', 'Remove it; separate entries with newlines or commas.')
  }
  return value
}

/** A list of relative paths inside the checkout, one per line or separated by commas. */
function pathList(input: string): string[] {
  const entries = pathText(input)
    .split(/[\r\n,]+/)
    .map(e =>
      e
        .trim()
        .replace(/^(\.\/)+/, '')
        .replace(/\/+$/, '')
    )
    .filter(Boolean)
  for (const entry of entries) {
    if (path.isAbsolute(entry) || entry.split('/').some(segment => segment === '..' || segment === '.') || entry.startsWith('-')) {
      throw new InputError(
        input,
        entry,
        'it is not a plain path relative to the checkout',
        'Give folders inside the checkout, such as node_modules or packages/app, without "..".'
      )
    }
  }
  return [...new Set(entries)]
}

/** A path input, relative to the workspace as the runner's own steps take it. */
export function absolute(p: string): string {
  return path.resolve(process.env.GITHUB_WORKSPACE || process.cwd(), p)
}

export function getEnterSettings(): EnterSettings {
  const name = optional('name')
  const worktreePath = optional('path')
  if (name !== undefined) {
    const problem = nameProblem(name)
    if (problem) {
      throw new InputError('name', name, problem, 'Use "/"-separated segments of letters, digits, ".", "_" and "-", at most 64 characters in all.')
    }
  }
  if (name !== undefined && worktreePath !== undefined) {
    throw new InputError(
      'path',
      worktreePath,
      'it cannot be given together with name',
      'Give name to create a new worktree, or path to enter an existing one, not both.'
    )
  }
  const branch = optional('branch')
  const baseRef = optional('base-ref')
  const worktreesDir = optional('worktrees-dir')
  const fetch = parseBoolean('fetch', checked('fetch'))
  const includeFile = optional('include-file')
  const symlinkDirs = pathList('symlink-dirs')
  const sparsePaths = pathList('sparse-paths')
  const recycle = parseBoolean('recycle', checked('recycle'))
  const restore = restoreFor(worktreePath, recycle)
  const isolation = isolationFor(worktreePath)
  const push = parsePush('push', checked('push')) || undefined
  const pullRequest = parsePullRequest('pull-request', checked('pull-request'))
  const title = optional('pull-request-title')
  checkPullRequest(pullRequest, push !== undefined, title)
  if (recycle && sparsePaths.length) {
    throw new InputError('recycle', 'true', 'the pool holds whole worktrees, and sparse-paths asks for a sparse one', 'Use recycle or sparse-paths, not both.')
  }
  // These shape a new worktree; an existing one keeps its own.
  if (worktreePath !== undefined)
    refuseShaping([
      ['branch', branch],
      ['base-ref', baseRef],
      ['worktrees-dir', worktreesDir],
      ['fetch', fetch ? 'true' : undefined],
      ['include-file', includeFile],
      ['symlink-dirs', symlinkDirs.join(',') || undefined],
      ['sparse-paths', sparsePaths.join(',') || undefined],
      ['recycle', recycle ? 'true' : undefined]
    ])
  return {
    name,
    path: worktreePath === undefined ? undefined : absolute(worktreePath),
    baseRef: baseRef ?? 'HEAD',
    branch,
    repositoryPath: absolute(optional('repository-path') ?? '.'),
    worktreesDir,
    onExit: parseOnExit('on-exit', checked('on-exit')),
    discardChanges: parseBoolean('discard-changes', checked('discard-changes')),
    rescue: parseRescue('rescue', checked('rescue')),
    rescueMaxBytes: parseSize('rescue-max-size', checked('rescue-max-size') || DEFAULT_RESCUE_MAX_SIZE),
    fetch,
    includeFile,
    symlinkDirs,
    sparsePaths,
    recycle,
    leg: parseLeg('leg', checked('leg')),
    restore,
    isolation,
    push,
    pullRequest: pullRequest ? { ...pullRequest, title } : undefined,
    reclaim: parseReclaim('reclaim', pathText('reclaim'))
  }
}

/** The restore input, with what it cannot go with: a rescue is restored only into a new worktree. */
function restoreFor(worktreePath: string | undefined, recycle: boolean): RestoreRequest | undefined {
  const restore = parseRestore('restore', checked('restore'))
  if (restore && (worktreePath !== undefined || recycle)) {
    throw new InputError(
      'restore',
      checked('restore'),
      worktreePath !== undefined
        ? 'a rescue is restored only into a new worktree, and path enters an existing one'
        : 'a rescue is restored only into a new worktree, and recycle takes one from the pool',
      worktreePath !== undefined ? 'Remove path to create a new worktree, or remove restore.' : 'Remove recycle, or remove restore.'
    )
  }
  return restore
}

/** Inputs that shape a new worktree, given with path (which enters an existing one): the first is an error. */
function refuseShaping(shaping: [string, string | undefined][]): void {
  const [input, value] = shaping.find(([, value]) => value !== undefined) ?? []
  if (input !== undefined && value !== undefined)
    throw new InputError(
      input,
      value,
      'it applies only to a new worktree, and path enters an existing one',
      `Remove ${input}, or remove path to create a new worktree.`
    )
}

/** The isolation input, with what it cannot go with. */
function isolationFor(worktreePath: string | undefined): Isolation {
  const isolation = parseIsolation('isolation', checked('isolation'))
  if (isolation === 'clone' && worktreePath !== undefined) {
    throw new InputError(
      'isolation',
      'clone',
      'a clone is made only for a new worktree, and path enters an existing one, which stays what it is',
      'Remove path to create a new clone, or remove isolation to enter the worktree.'
    )
  }
  return isolation
}

export function parseIsolation(input: string, value: string): Isolation {
  const word = keyword(value)
  if (word === '' || word === 'worktree' || word === 'clone') return word || 'worktree'
  throw new InputError(input, value, 'it is neither worktree nor clone', 'Use isolation: worktree (the default) or isolation: clone.')
}

/** The leg input's default in action.yml, which the runner evaluates. */
export const LEG_DEFAULT = '${{ strategy.job-index }}/${{ strategy.job-total }}'

/**
 * `<index>/<total>` as the runner fills in the default; a leg only where there are several. Tools that run an
 * action without evaluating its defaults (@github/local-action) pass the expression itself, and nektos/act
 * evaluates it to "/": no matrix there.
 */
export function parseLeg(input: string, value: string): string | undefined {
  if (value === '' || value === '/' || value === LEG_DEFAULT) return undefined
  const match = /^(\d+)\/(\d+)$/.exec(value)
  const fix = 'Leave it out: its default is right in every workflow.'
  if (!match) throw new InputError(input, value, 'it is not <index>/<total> of a matrix leg', fix)
  // strategy.job-index counts from 0: the last leg of 2 is 1/2.
  if (Number(match[1]) >= Number(match[2])) throw new InputError(input, value, `a matrix of ${Number(match[2])} leg(s) has no leg ${match[1]}`, fix)
  return Number(match[2]) > 1 ? match[1] : undefined
}

export function getExitSettings(): ExitSettings {
  const worktreePath = optional('path')
  const rescue = optional('rescue')
  const push = optional('push')
  const reclaim = pathText('reclaim')
  const pullRequest = optional('pull-request')
  return {
    path: worktreePath === undefined ? undefined : absolute(worktreePath),
    onExit: parseOnExit('on-exit', checked('on-exit')),
    discardChanges: parseBoolean('discard-changes', checked('discard-changes')),
    rescue: rescue === undefined ? undefined : parseRescue('rescue', rescue),
    push: push === undefined ? undefined : parsePush('push', push),
    pullRequest: pullRequest === undefined ? undefined : parsePullRequest('pull-request', pullRequest),
    pullRequestTitle: optional('pull-request-title'),
    reclaim: reclaim ? parseReclaim('reclaim', reclaim) : undefined
  }
}

export function getRunSettings(): RunSettings {
  const command = getInput('command')
  if (!command) throw new InputError('command', command, 'it is empty', 'Give the bash commands to run, as in a run: step.')
  const worktreePath = optional('path')
  const domains = getInput('allowed-domains')
  const allowedDomains = [...new Set(domains.split(/[\s,]+/).filter(Boolean))]
  for (const domain of allowedDomains) {
    // Host names (a leading *. for every name under one), an optional :port: what sandbox-runtime takes.
    if (!/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*(:\d{1,5})?$/.test(domain)) {
      throw new InputError(
        'allowed-domains',
        domains,
        `${quoted(domain)} is not a domain`,
        'Give domains such as api.anthropic.com or *.github.com, one per line or separated by commas.'
      )
    }
  }
  return {
    command,
    path: worktreePath === undefined ? undefined : absolute(worktreePath),
    allowedDomains,
    allowUnconfined: parseBoolean('allow-unconfined', checked('allow-unconfined'))
  }
}
