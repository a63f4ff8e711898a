// What every worktree of a repository shares: its refs (branches, tags, the stash, notes, remote-tracking
// branches), its config file and its hooks. Read once the main step has entered and again at exit, to name
// what changed meanwhile: an agent that moved another branch, dropped a tag, popped a stash or set a config
// key. In a clone shared by several jobs, another job may have made the change: the worktrees and the reflogs
// say where they can. It reports; it never puts anything back, and no decision of the exit reads it.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Git } from './git-command-manager.js'
import { currentOwner, describeOwner, parseLock, sameJob } from './ownership.js'
import { adminDirs, folderOf, lockOf } from './repository.js'
import { readRecordFile, type WorktreeRecord } from './state-helper.js'
import { identityOf, kindOf, linesOf, readSmall } from './untrusted-files.js'

/** The worktree this job entered (its id, branch at enter and token): its refs, and its branch's, are its own. */
export type OwnWorktree = Pick<WorktreeRecord, 'id' | 'branch' | 'token'>

/** A worktree that has a branch as its own. */
export interface Holder {
  folder: string
  /** This job's worktree, or one that agent-worktree holds for another job. */
  whose?: 'this-job' | 'other-job'
  /** That other job, as its record names it. */
  job?: string
}

export interface SharedState {
  /** When it was read, in ms since the epoch. */
  at: number
  /** "<object id> <ref>" per line, as git lists them, without the refs of any one worktree. */
  refs: string
  /** The sha256 of the config file's bytes: unchanged, it is not read again. */
  configFile: string
  /** Each key of the repository's config file, with a hash of its values (which may be credentials). */
  config: Record<string, string>
  /** core.hooksPath of the config file, when it names one folder for every worktree. */
  hooksPath?: string
  /** Each hook git would run, by path: its kind, mode and content. */
  hooks: Record<string, string>
  /** The branches that worktrees have as their own (checked out, or the one agent-worktree made for them). */
  holders: Record<string, Holder>
}

export type Change = 'created' | 'moved' | 'deleted' | 'added' | 'changed' | 'removed'

/** Where a change belongs, as far as the worktrees and the reflogs tell. */
export interface Origin {
  /** The reflog's own words for it: its newest entry since enter that set the ref to what it is. */
  reflog?: string
  /** The worktree whose branch the ref is (`branch`), or whose HEAD reflog has the same entry (`made`). */
  holder?: Holder
  how?: 'branch' | 'made'
}

export interface SharedChange {
  kind: 'ref' | 'config' | 'hook'
  /** The ref, the config key, or the hook's path. */
  name: string
  change: Change
  /** A ref's object ids, before and after. */
  from?: string
  to?: string
  origin?: Origin
}

/** Per-worktree refs, and agent-worktree's own: never shared state. */
const NOT_SHARED = /^refs\/(agent-worktree|worktree|bisect|rewritten)\//
/** A hook larger than this is known by its size and time, not its content. */
const MAX_HOOK_BYTES = 1024 * 1024
/** No more hooks than this are listed in one folder, and no more ref changes than this are traced. */
const MAX_LISTED = 1000

/**
 * Read at enter and at exit alike: one git call for the refs, one for the config (none at exit when its bytes did
 * not change), a listing of the hooks folders and of the worktrees.
 */
export async function readSharedState(git: Git, commonDir: string, own: OwnWorktree, before?: SharedState): Promise<SharedState> {
  const at = Date.now()
  const [listed, config] = await Promise.all([git.exec(['for-each-ref', '--format=%(objectname) %(refname)']), readConfig(git, commonDir, own, before)])
  const refs = listed
    .split('\n')
    .filter(line => line && isShared(line.slice(line.indexOf(' ') + 1), own.branch))
    .join('\n')
  // At exit also the folder core.hooksPath named at enter: its hooks are still there when the setting goes.
  const hooks = hooksOf([path.join(commonDir, 'hooks'), before?.hooksPath, config.hooksPath])
  return { at, refs, ...config, hooks, holders: holdersOf(worktreesOf(commonDir, own)) }
}

function isShared(ref: string, branch: string): boolean {
  if (NOT_SHARED.test(ref)) return false
  if (!branch) return true
  // The worktree's branch, and its remote-tracking branches (a push of it creates one), are its own.
  return ref !== `refs/heads/${branch}` && /^refs\/remotes\/[^/]+\/(.+)$/.exec(ref)?.[1] !== branch
}

async function readConfig(
  git: Git,
  commonDir: string,
  own: OwnWorktree,
  before?: SharedState
): Promise<Pick<SharedState, 'configFile' | 'config' | 'hooksPath'>> {
  // The file itself, never what it includes: an included file is not the repository's, and may be anything.
  const file = path.join(commonDir, 'config')
  const text = readSmall(file, 16 * 1024 * 1024)
  if (text === undefined) throw new Error(`${file} cannot be read`)
  const configFile = hash(text)
  if (before?.configFile === configFile) return { configFile, config: before.config, hooksPath: before.hooksPath }
  const listed = await git.exec(['config', '--file', '-', '--list', '-z'], { input: text })
  const values = new Map<string, string[]>()
  // "<key>\n<value>\0" per entry; a key without "=" has no value.
  for (const entry of listed.split('\0').filter(Boolean)) {
    const newline = entry.indexOf('\n')
    const key = newline === -1 ? entry : entry.slice(0, newline)
    // The settings of the worktree's own branch (a push -u writes them) are its own.
    if (own.branch && key.startsWith(`branch.${own.branch}.`)) continue
    values.set(key, [...(values.get(key) ?? []), newline === -1 ? '' : entry.slice(newline + 1)])
  }
  const config = Object.fromEntries([...values].map(([key, v]) => [key, hash(v.join('\0'))]))
  return { configFile, config, hooksPath: hooksFolder(values.get('core.hookspath')?.at(-1)) }
}

/** core.hooksPath when it names one folder for every worktree: an absolute path (a relative one is inside each worktree). */
function hooksFolder(value: string | undefined): string | undefined {
  if (value?.startsWith('~/')) return path.join(os.homedir(), value.slice(2))
  return value && path.isAbsolute(value) ? value : undefined
}

/** What each entry of the hooks folders is, without following a link or reading a pipe. */
function hooksOf(folders: (string | undefined)[]): Record<string, string> {
  const hooks: Record<string, string> = {}
  for (const folder of new Set(folders.filter((f): f is string => Boolean(f)))) {
    let names: string[]
    try {
      names = fs.readdirSync(folder).slice(0, MAX_LISTED)
    } catch {
      continue
    }
    for (const name of names) {
      const file = path.join(folder, name)
      const stat = fs.lstatSync(file, { throwIfNoEntry: false })
      if (!stat) continue
      const kind = kindOf(file)
      const content = kind === 'link' || kind === 'file' ? (stat.size <= MAX_HOOK_BYTES ? identityOf(file) : `${stat.size}:${stat.mtimeMs}`) : ''
      hooks[file] = `${kind} ${(stat.mode & 0o7777).toString(8)} ${content}`
    }
  }
  return hooks
}

interface Worktree {
  gitDir: string
  holder: Holder
  /** The branches it has as its own. */
  branches: string[]
}

/**
 * Every worktree of the repository, with whose it is and its own branches: the one it has checked out, and the
 * one agent-worktree made for it (a kept worktree is detached from it). Lock and record are hints an agent can
 * write: they only ever shape what a report says.
 */
function worktreesOf(commonDir: string, own: OwnWorktree): Worktree[] {
  const me = currentOwner()
  // The main worktree's git dir is the common dir, and its folder the one that holds it (a bare one has none).
  const main = path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir
  const found: Worktree[] = []
  for (const gitDir of [commonDir, ...adminDirs(commonDir)]) {
    const folder = gitDir === commonDir ? main : folderOf(gitDir)
    if (!folder) continue
    const worktree: Worktree = { gitDir, holder: { folder }, branches: [] }
    const head = /^ref: (refs\/heads\/\S+)/.exec(readSmall(path.join(gitDir, 'HEAD')) ?? '')?.[1]
    if (head) worktree.branches.push(head)
    const lock = gitDir === commonDir ? undefined : parseLock(lockOf(gitDir))
    const record = lock?.kind === 'job' ? readRecordFile(gitDir) : undefined
    if (gitDir !== commonDir && path.basename(gitDir) === own.id) worktree.holder.whose = 'this-job'
    else if (lock?.kind === 'job' && record?.token === lock.token && record.token !== own.token && record.owner && !sameJob(record.owner, me)) {
      worktree.holder = { folder, whose: 'other-job', job: describeOwner(record.owner) }
      if (record.branch) worktree.branches.push(`refs/heads/${record.branch}`)
    }
    found.push(worktree)
  }
  return found
}

function holdersOf(worktrees: Worktree[]): Record<string, Holder> {
  const holders: Record<string, Holder> = {}
  for (const { holder, branches } of worktrees) for (const ref of branches) holders[ref] ??= holder
  return holders
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32)
}

/** What changed between enter and exit: refs created, moved and deleted; config keys and hooks added, changed and removed. */
export function compareShared(before: SharedState, after: SharedState): SharedChange[] {
  const changes: SharedChange[] = before.refs === after.refs ? [] : compareRefs(before, after)
  for (const [kind, was, now] of [
    ['config', before.config, after.config],
    ['hook', before.hooks, after.hooks]
  ] as const) {
    for (const name of new Set([...Object.keys(was), ...Object.keys(now)])) {
      if (was[name] === now[name]) continue
      changes.push({ kind, name, change: was[name] === undefined ? 'added' : now[name] === undefined ? 'removed' : 'changed' })
    }
  }
  return changes
}

function refMap(text: string): Map<string, string> {
  return new Map(text ? text.split('\n').map(line => [line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' '))]) : [])
}

function compareRefs(before: SharedState, after: SharedState): SharedChange[] {
  const [was, now] = [refMap(before.refs), refMap(after.refs)]
  const changes: SharedChange[] = []
  for (const [ref, from] of was) {
    const to = now.get(ref)
    if (to !== from) changes.push({ kind: 'ref', name: ref, change: to === undefined ? 'deleted' : 'moved', from, to })
  }
  for (const [ref, to] of now) {
    // A branch the agent created and has checked out in its own worktree is that worktree's.
    if (!was.has(ref) && after.holders[ref]?.whose !== 'this-job') changes.push({ kind: 'ref', name: ref, change: 'created', to })
  }
  return changes
}

/**
 * Where each ref change belongs, as far as can be told: a deleted branch to the worktree that had it as its own
 * at enter; a created or moved one to the worktree that has it as its own now, or else to the worktree whose HEAD
 * reflog holds the very entry the ref's reflog made (the same ids, identity and second). Tags have no reflog, and
 * a deleted ref's reflog goes with it: those stay unplaced.
 */
export function placeChanges(changes: SharedChange[], before: SharedState, after: SharedState, commonDir: string, own: OwnWorktree): SharedChange[] {
  let heads: Map<string, Holder | null> | undefined
  return changes.map((change, index) => {
    if (change.kind !== 'ref' || index >= MAX_LISTED) return change
    const holder = change.change === 'deleted' ? before.holders[change.name] : after.holders[change.name]
    const entry = change.to ? reflogEntry(commonDir, change.name, change.to, before.at) : undefined
    if (holder) return { ...change, origin: { reflog: entry?.message, holder, how: 'branch' } }
    if (!entry) return change
    heads ??= headReflogs(worktreesOf(commonDir, own), before.at)
    const made = heads.get(entry.key)
    return { ...change, origin: { reflog: entry.message, ...(made ? { holder: made, how: 'made' } : {}) } }
  })
}

/** A reflog line: "<old> <new> <name> <email> <seconds> <zone>\t<message>". */
const REFLOG_LINE = /^([0-9a-f]+ ([0-9a-f]+) .*> (\d+) [-+]\d{4})(?:\t(.*))?$/

/** The ref's newest reflog entry since `since` that set it to `to`: its key (all but the message) and message. */
function reflogEntry(commonDir: string, ref: string, to: string, since: number): { key: string; message: string } | undefined {
  let found: { key: string; message: string } | undefined
  for (const line of linesOf(path.join(commonDir, 'logs', ...ref.split('/')))) {
    const match = REFLOG_LINE.exec(line)
    if (match && match[2] === to && Number(match[3]) >= Math.floor(since / 1000)) found = { key: match[1], message: match[4] ?? '' }
  }
  return found
}

/** Every worktree's HEAD reflog entries since `since`, by key: null where two worktrees have the same one. */
function headReflogs(worktrees: Worktree[], since: number): Map<string, Holder | null> {
  const heads = new Map<string, Holder | null>()
  for (const { gitDir, holder } of worktrees) {
    for (const line of linesOf(path.join(gitDir, 'logs', 'HEAD'))) {
      const match = REFLOG_LINE.exec(line)
      if (!match || Number(match[3]) < Math.floor(since / 1000)) continue
      const seen = heads.get(match[1])
      heads.set(match[1], seen === undefined || seen?.folder === holder.folder ? holder : null)
    }
  }
  return heads
}

/**
 * A change that is not this job's to answer for: one in a worktree another job holds, or a remote-tracking
 * branch that followed its remote (a fetch, a pull, a push). Said in the log; the rest is a warning.
 */
export function fromElsewhere(change: SharedChange): boolean {
  if (change.origin?.holder?.whose === 'other-job') return true
  return change.name.startsWith('refs/remotes/') && /^(fetch|pull|update by push|agent-worktree: fetch)\b/.test(change.origin?.reflog ?? '')
}

/** At exit: what changed since enter, placed; nothing when enter left no record, or the repository cannot be read now. */
export async function sharedChanges(before: SharedState | undefined, git: Git, commonDir: string, own: OwnWorktree): Promise<SharedChange[]> {
  if (!before) return []
  try {
    const after = await readSharedState(git, commonDir, own, before)
    return placeChanges(compareShared(before, after), before, after, commonDir, own)
  } catch {
    return []
  }
}
