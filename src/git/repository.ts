// The repository a job works in, and its registered worktrees, read from the repository's side.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Git, GitError } from './git-command-manager.js'
import { InputError } from '../record/settings.js'
import { normalizePath, realPath, samePath } from '../os/paths.js'
import { parseWorktreeList, type WorktreeEntry } from './porcelain.js'
import type { Promisor } from './sealed-git.js'
import type { FilterDriver } from '../record/state-helper.js'
import type { PushTarget, WorktreeRecord } from '../record/state-helper.js'
import { kindOf, readSmall } from '../os/untrusted-files.js'
import { shellQuote } from '../os/processes.js'
import { findProgram } from './git-setup.js'

export interface Repository {
  /** Top level of the working tree the path belongs to. */
  toplevel: string
  commonDir: string
  /** The git dir of that working tree: the common dir for a main checkout. */
  gitDir?: string
  git: Git
}

/** Opens the repository at `dir`; `input` names the input the path came from, for the error. */
export async function openRepository(dir: string, input: string): Promise<Repository> {
  const fix = 'Point it at a git checkout, for example the folder actions/checkout wrote.'
  const stat = fs.statSync(dir, { throwIfNoEntry: false })
  if (!stat) throw new InputError(input, dir, 'the folder does not exist', fix)
  if (!stat.isDirectory()) throw new InputError(input, dir, 'it is not a folder', fix)
  const git = new Git(dir)
  const result = await git.run(['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-common-dir', '--git-dir'])
  const [toplevel, commonDir, gitDir] = result.stdout.trim().split('\n')
  if (result.exitCode !== 0 || !toplevel || !commonDir || !gitDir) {
    throw new InputError(input, dir, 'it is not inside the working tree of a git repository', fix)
  }
  return { toplevel: path.normalize(toplevel), commonDir: path.normalize(commonDir), gitDir: path.normalize(gitDir), git: new Git(toplevel) }
}

/** What the repository had configured when the main step entered, where later steps need a setting. */
export type ConfigAtEnter = Pick<WorktreeRecord, 'fileMode' | 'pinned' | 'filters' | 'push' | 'git'>

/** A remote as the repository had it at enter. */
interface RemoteAtEnter {
  url?: string
  pushurl?: string
  promisor?: string
  partialclonefilter?: string
  lfsurl?: string
  lfspushurl?: string
}

const AT_ENTER =
  /^(core\.(filemode|ignorecase|autocrlf|symlinks|eol|precomposeunicode|excludesfile)|filter\..+\.(clean|smudge|process|required)|remote\..+\.(url|pushurl|promisor|partialclonefilter|lfsurl|lfspushurl)|lfs\.(url|pushurl))$/

/**
 * Read in one git call, before any agent ran in the worktree: the settings that decide what counts as a change
 * (pinned for the exit, where the agent may have changed them), the filter drivers (git-lfs, git-crypt: the
 * only programs a later gate lets git run), where a rescue pushes (the remote's URL), and every entry, for the
 * job's git set-up of enter (git-setup.ts).
 */
/** The entries read at enter, by what they are: plain values, filter drivers, remotes. The last one read wins, as in git. */
function sortEntries(entries: ConfigEntry[]): { values: Map<string, string>; filters: Record<string, FilterDriver>; urls: Map<string, RemoteAtEnter> } {
  const values = new Map<string, string>()
  const filters: Record<string, FilterDriver> = {}
  const urls = new Map<string, RemoteAtEnter>()
  for (const { key, value = 'true' } of entries.filter(entry => AT_ENTER.test(entry.key))) {
    values.set(key.toLowerCase(), value)
    const filter = /^filter\.(.+)\.(clean|smudge|process|required)$/i.exec(key)
    if (filter) {
      const driver = (filters[filter[1]] ??= {})
      if (filter[2].toLowerCase() === 'required') driver.required = !/^(false|no|off|0)$/i.test(value)
      else driver[filter[2].toLowerCase() as 'clean' | 'smudge' | 'process'] = programOfEnter(value)
    }
    const remote = /^remote\.(.+)\.(url|pushurl|promisor|partialclonefilter|lfsurl|lfspushurl)$/i.exec(key)
    if (remote) urls.set(remote[1], { ...urls.get(remote[1]), [remote[2].toLowerCase()]: value })
  }
  return { values, filters, urls }
}

export async function readConfigAtEnter(repo: Repository): Promise<
  ConfigAtEnter & {
    excludesFile: string
    configFile?: ConfigFile
    entries: ConfigEntry[]
    remotes: Record<string, string>
    remoteNames: string[]
    promisor?: Promisor
  }
> {
  const file = path.join(repo.commonDir, 'config')
  const bytes = readSmall(file, MAX_CONFIG_BYTES)
  const entries = await listConfig(repo.git)
  const configFile = bytes !== undefined && readSmall(file, MAX_CONFIG_BYTES) === bytes ? commonConfig(repo, file, bytes, entries) : undefined
  const { values, filters, urls } = sortEntries(entries)
  const flag = (key: string, fallback: boolean): boolean => (values.has(key) ? !/^(false|no|off|0)$/i.test(values.get(key)!) : fallback)
  const name = urls.has('origin') ? 'origin' : [...urls.keys()][0]
  const url = name === undefined ? undefined : (urls.get(name)?.pushurl ?? urls.get(name)?.url)
  const push: PushTarget | undefined = name !== undefined && url ? { remote: name, url, ...lfsOf(values, urls.get(name)!) } : undefined
  const promisor = promisorOf(urls)
  return {
    entries,
    remotes: Object.fromEntries([...urls].filter(([, r]) => r.url).map(([n, r]) => [n, r.url!])),
    remoteNames: remoteNamesOf(entries),
    ...(promisor ? { promisor } : {}),
    excludesFile: excludesFileOf(values.get('core.excludesfile')),
    fileMode: flag('core.filemode', true),
    pinned: [
      `core.ignoreCase=${flag('core.ignorecase', false)}`,
      `core.autocrlf=${values.get('core.autocrlf') ?? 'false'}`,
      `core.symlinks=${flag('core.symlinks', true)}`,
      ...(values.has('core.eol') ? [`core.eol=${values.get('core.eol')}`] : []),
      ...(values.has('core.precomposeunicode') ? [`core.precomposeUnicode=${flag('core.precomposeunicode', false)}`] : [])
    ],
    ...(Object.keys(filters).length ? { filters } : {}),
    ...(push ? { push } : {}),
    ...(configFile ? { configFile } : {})
  }
}

/** The Git LFS endpoint settings of enter for the remote a rescue pushes to (lfs.ts picks the endpoint from them). */
function lfsOf(values: Map<string, string>, remote: RemoteAtEnter): Pick<PushTarget, 'lfs'> {
  const lfs: Record<string, string> = {}
  for (const key of ['lfs.pushurl', 'lfs.url'] as const) if (values.get(key)) lfs[key] = values.get(key)!
  for (const key of ['lfspushurl', 'lfsurl'] as const) if (remote[key]) lfs[key] = remote[key]
  return Object.keys(lfs).length ? { lfs } : {}
}

/**
 * A filter's command with its program as PATH names it now, at enter (`git-lfs filter-process` becomes
 * `/usr/bin/git-lfs filter-process`): a program of that name a later step puts into a folder before it on PATH
 * never runs in our steps. A command that starts otherwise (a path, a variable, quotes) is kept as it is.
 */
function programOfEnter(command: string): string {
  const name = /^([A-Za-z0-9._+-]+)(?=\s|$)/.exec(command)?.[1]
  // On Windows, git's shell takes a program's path in other quotes than sh: the command stays as it is.
  const found = name && process.platform !== 'win32' ? findProgram(process.env, name) : undefined
  return found ? `${shellQuote(found)}${command.slice(name!.length)}` : command
}

/** The remotes `git remote` lists: every subsection of a remote.<name>.<key> setting, whatever its key. */
function remoteNamesOf(entries: ConfigEntry[]): string[] {
  return [...new Set(entries.map(entry => /^remote\.(.+)\.[^.]+$/.exec(entry.key)?.[1]).filter((name): name is string => name !== undefined))]
}

/** A partial clone's promisor remote: a fetch through a view asks it as the clone would. */
function promisorOf(remotes: Map<string, RemoteAtEnter>): Promisor | undefined {
  const [remote, found] = [...remotes].find(([, r]) => /^true$/i.test(r.promisor ?? '') && r.url) ?? []
  return remote === undefined ? undefined : { remote, url: found!.url!, filter: found!.partialclonefilter }
}

/** Every setting git reads here, with its scope and origin (none of our own command line's). */
export async function listConfig(git: Git): Promise<ConfigEntry[]> {
  const listed = await git.run(['config', '-z', '--show-scope', '--show-origin', '--list'])
  return configEntries(listed.stdout)
}

export interface ConfigEntry {
  scope: string
  origin: string
  /** Canonical: section and name in lower case (what --get-regexp matches), a subsection as written. */
  key: string
  /** None for a key without "=". */
  value?: string
}

/** "<scope>\0<origin>\0<key>\n<value>\0" per setting, without those of our own command line (the hardened ones). */
function configEntries(text: string): ConfigEntry[] {
  const fields = text.split('\0')
  const entries: ConfigEntry[] = []
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const [scope, origin, entry] = fields.slice(i, i + 3)
    const newline = entry.indexOf('\n')
    if (scope !== 'command')
      entries.push({ scope, origin, key: newline === -1 ? entry : entry.slice(0, newline), value: newline === -1 ? undefined : entry.slice(newline + 1) })
  }
  return entries
}

/**
 * The common config's own settings, from the same call, for the record of what every worktree shares
 * (shared-state.ts): read when its bytes did not change while git read them.
 */
function commonConfig(repo: Repository, file: string, bytes: string, entries: ConfigEntry[]): ConfigFile {
  const values = new Map<string, string[]>()
  // Each origin is looked up once: a file has many settings.
  const origins = new Map<string, boolean>()
  const isFile = (origin: string): boolean =>
    origins.get(origin) ?? origins.set(origin, samePath(path.resolve(repo.toplevel, origin.replace(/^file:/, '')), file)).get(origin)!
  for (const { scope, origin, key, value = '' } of entries) if (scope === 'local' && isFile(origin)) values.set(key, [...(values.get(key) ?? []), value])
  return { sha256: sha256Of(bytes), values }
}

/** A repository's config file, parsed: its bytes' hash, and the values of each key in it (canonical names). */
export interface ConfigFile {
  sha256: string
  values: Map<string, string[]>
}

/** No config file of a repository is larger. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024

export function sha256Of(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex')
}

/** Where git reads the user's exclude rules: core.excludesFile, or the XDG default. */
function excludesFileOf(value: string | undefined): string {
  if (value) return value.startsWith('~/') ? path.join(os.homedir(), value.slice(2)) : value
  return path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'git', 'ignore')
}

/**
 * Another job's `git worktree add`, half-way through, makes `git worktree list` fail for a moment
 * ("failed to read .git/worktrees/<x>/commondir"); a listing is retried rather than serialised.
 */
export async function listWorktrees(repo: Repository, attempts = 5): Promise<WorktreeEntry[]> {
  for (let attempt = 1; ; attempt++) {
    const result = await repo.git.run(['worktree', 'list', '--porcelain'])
    if (result.exitCode === 0) return parseWorktreeList(result.stdout)
    if (attempt === attempts) throw new GitError(['worktree', 'list', '--porcelain'], result)
    await new Promise(resolve => setTimeout(resolve, 50 * attempt))
  }
}

/** The registered worktree at `p`, and whether it is the main one. */
export function findWorktree(entries: WorktreeEntry[], p: string): { entry: WorktreeEntry; isMain: boolean } | undefined {
  const index = entries.findIndex(e => samePath(e.path, p))
  return index === -1 ? undefined : { entry: entries[index], isMain: index === 0 }
}

/** The folder git registered for a worktree git dir (its `gitdir` file names the folder's .git), or undefined. */
export function folderOf(gitDir: string): string | undefined {
  const pointer = readSmall(path.join(gitDir, 'gitdir'))?.trim()
  return pointer ? path.dirname(path.resolve(gitDir, pointer)) : undefined // not a whole worktree entry
}

/** The worktree's lock reason ('' when locked without one), or undefined when it is not locked. */
export function lockOf(gitDir: string): string | undefined {
  // A lock that is not a regular file (a pipe, a folder) is still a lock: git lists the worktree as locked.
  const file = path.join(gitDir, 'locked')
  return readSmall(file)?.trim() ?? (fs.existsSync(file) ? '' : undefined)
}

/**
 * The git dir (.git/worktrees/<id>) that git registered for the worktree at `p`. Found from the
 * repository's side, never from the worktree's .git file, which whatever ran inside may have changed.
 */
export function adminDirOf(commonDir: string, p: string): string | undefined {
  return adminDirs(commonDir).find(dir => {
    const folder = folderOf(dir)
    return folder !== undefined && samePath(folder, p)
  })
}

/** Every worktree git dir of the repository (.git/worktrees/*). */
export function adminDirs(commonDir: string): string[] {
  const root = path.join(commonDir, 'worktrees')
  try {
    return fs.readdirSync(root).map(id => path.join(root, id))
  } catch {
    return []
  }
}

/** Git pinned to a worktree's registered git dir and folder, whatever its .git file says. */
export function worktreeGit(adminDir: string, p: string): Git {
  return new Git(p, [`--git-dir=${adminDir}`, `--work-tree=${p}`])
}

/**
 * Whether the folder is still the worktree git registered: intact, missing, replaced (a symbolic link or a
 * file in its place, which may lead anywhere), or repointed (its .git file names another git dir, and git
 * would speak of another repository). Only an intact folder is inspected or removed as ours. A clone's folder
 * is intact with a .git folder of its own: its adminDir is '.git'.
 */
export type FolderState = 'intact' | 'missing' | 'replaced' | 'repointed'

export function checkFolder(p: string, adminDir: string): FolderState {
  const kind = kindOf(p)
  if (kind === 'missing') return 'missing'
  // A link anywhere on its path (the agent can rewrite where git has it) would lead a removal elsewhere.
  if (kind !== 'directory' || normalizePath(realPath(p)) !== normalizePath(p)) return 'replaced'
  // A clone's git dir is its own .git folder (adminDir '.git', relative to wherever the folder is).
  if (kindOf(path.join(p, '.git')) === 'directory') return samePath(path.resolve(p, adminDir), path.join(p, '.git')) ? 'intact' : 'repointed'
  const pointer = /^gitdir: (.*)$/m.exec(readSmall(path.join(p, '.git')) ?? '')?.[1]
  return pointer && samePath(path.resolve(p, pointer.trim()), adminDir) ? 'intact' : 'repointed'
}

/** Why a folder in that state cannot be judged: the gate's "state unknown". */
export function folderProblem(state: FolderState, adminDir: string): string | undefined {
  if (state === 'replaced') return 'its path is no longer a plain folder (a symbolic link or a file took its place)'
  if (state === 'repointed') return `its .git file no longer points to its git dir ${adminDir}`
  return undefined
}

/**
 * A folder whose .git file points into this repository's worktrees, at a git dir that no longer exists:
 * what is left of a worktree whose registration went (a cut-short add, a recreated repository).
 */
export function isOrphanFolder(commonDir: string, folder: string): boolean {
  const pointer = /^gitdir: (.*)$/m.exec(readSmall(path.join(folder, '.git')) ?? '')?.[1]?.trim()
  const gitDir = pointer && path.resolve(folder, pointer)
  return !!gitDir && samePath(path.dirname(gitDir), path.join(commonDir, 'worktrees')) && !fs.existsSync(gitDir)
}
