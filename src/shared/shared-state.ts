// What every worktree of a repository shares: its refs (branches, tags, the stash, notes, remote-tracking
// branches), its config file and its hooks. Read once the main step has entered and again at exit, to name
// what changed meanwhile: an agent that moved another branch, dropped a tag, popped a stash or set a config
// key. In a clone shared by several jobs, another job may have made the change: the worktrees and the reflogs
// say where they can. It reports; it never puts anything back, and no decision of the exit reads it.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Git } from '../git/git-command-manager.js'
import { currentOwner, describeOwner, lockToken, recordMatchesLock, sameJob, type Owner } from '../record/ownership.js'
import { adminDirs, folderOf, lockOf, MAX_CONFIG_BYTES, sha256Of, type ConfigFile } from '../git/repository.js'
import { readRecordFile, type PushTarget, type WorktreeRecord } from '../record/state-helper.js'
import { openView, REMOTE_PROTOCOLS } from '../git/sealed-git.js'
import { compareRefs, readRefs, type Refs } from './shared-refs.js'
import { actionRefChanges, entryThere, readActionRefs, type ActionRefs } from './action-refs.js'
import { identityOf, kindOf, linesOf, readSmall } from '../os/untrusted-files.js'
import { quoted } from '../os/quote.js'

/** The worktree this job entered (its id, branch at enter and token): its refs, and its branch's, are its own. */
export type OwnWorktree = Pick<WorktreeRecord, 'id' | 'branch' | 'token'>

/** A worktree that has a branch as its own. */
export interface Holder {
  folder: string
  /** This job's worktree (the one exited), another this job entered, or one that agent-worktree holds for another job. */
  whose?: 'this-job' | 'same-job' | 'other-job'
  /** That other job, as its record names it. */
  job?: string
}

export interface SharedState {
  /** When it was read, in ms since the epoch. */
  at: number
  refs: Refs
  /** The sha256 of the config file's bytes: unchanged, it is not read again. */
  configFile: string
  /** Each key of the repository's config file, with a hash of its values (which may be credentials). */
  config: Record<string, string>
  /** core.hooksPath of the config file, when it names one folder for every worktree. */
  hooksPath?: string
  /** Each hook git would run, by path: its kind, mode and content. */
  hooks: Record<string, string>
  /** At enter: the branches worktrees have as their own (checked out, or the one agent-worktree made for them). */
  holders?: Record<string, Holder>
  /**
   * At enter: the worktrees agent-worktree held for other jobs, by git dir id, with the token of their lock. Only
   * these may place a change at exit: one added since, or locked anew, may be the agent's own making.
   */
  others?: Record<string, string>
  /** The refs this action keeps for every job's worktrees and clones (action-refs.ts). */
  action?: ActionRefs
}

export type Change = 'created' | 'moved' | 'deleted' | 'added' | 'changed' | 'removed'

/** Where a change belongs, as far as the worktrees and the reflogs tell. */
export interface Origin {
  /** The reflog's own words for it: its newest entry since enter that set the ref to what it is. */
  reflog?: string
  /** The worktree whose branch the ref is (`branch`), or whose HEAD reflog has the same entry (`made`). */
  holder?: Holder
  how?: 'branch' | 'made'
  /** The remote of enter has its branch at the id the remote-tracking branch has now: it followed the remote. */
  remote?: boolean
  /** A ref this action keeps for a worktree or clone: whether that one is still registered, or gone (its exit dropped the ref). */
  entry?: 'there' | 'gone'
}

export interface SharedChange {
  kind: 'ref' | 'config' | 'hook'
  /** The ref, the config key, or the hook's path. */
  name: string
  change: Change
  /** A ref's object ids, before (null: not known, see shared-refs.ts) and after. */
  from?: string | null
  to?: string
  origin?: Origin
}

/** A hook larger than this is known by its size and time, not its content. */
const MAX_HOOK_BYTES = 1024 * 1024
/** No more hooks than this are listed in one folder, and no more ref changes than this are traced. */
const MAX_LISTED = 1000

/** What readSharedState is given: at exit, the state of enter; at enter, the config file as the main step read it. */
export interface Known {
  before?: SharedState
  configFile?: ConfigFile
}

/**
 * Read at enter and at exit alike: the refs (shared-refs.ts), the config file (parsed by git only when neither the
 * main step's reading nor the record of enter has its bytes), the hooks folders, and at enter the worktrees.
 */
export async function readSharedState(git: Git, commonDir: string, own: OwnWorktree, known: Known = {}): Promise<SharedState> {
  const at = Date.now()
  // At exit, the worktrees are read only when a ref changed (placeChanges).
  const worktrees = known.before ? undefined : worktreesOf(commonDir, own)
  const holders = worktrees && holdersOf(worktrees)
  const others = worktrees && Object.fromEntries(worktrees.filter(w => w.token).map(w => [path.basename(w.gitDir), w.token!]))
  const how = { token: known.before ? undefined : own.token, before: known.before?.refs }
  const [refs, { hooksPath, ...config }] = await Promise.all([readRefs(git, commonDir, own.branch, how), readConfig(git, commonDir, own, known)])
  // At exit also the folder core.hooksPath named at enter: its hooks are still there when the setting goes.
  const hooks = hooksOf([path.join(commonDir, 'hooks'), known.before?.hooksPath, hooksPath])
  return { at, refs, ...config, hooksPath, hooks, holders, others, action: readActionRefs(commonDir, known.before?.action) }
}

async function readConfig(git: Git, commonDir: string, own: OwnWorktree, known: Known): Promise<Pick<SharedState, 'configFile' | 'config' | 'hooksPath'>> {
  // The file itself, never what it includes: an included file is not the repository's, and may be anything.
  const file = path.join(commonDir, 'config')
  const text = readSmall(file, MAX_CONFIG_BYTES)
  if (text === undefined) throw new Error(`${quoted(file)} cannot be read`)
  const configFile = sha256Of(text)
  const { before } = known
  if (before?.configFile === configFile) return { configFile, config: before.config, hooksPath: before.hooksPath }
  const values = known.configFile?.sha256 === configFile ? known.configFile.values : await parseConfig(git, text)
  const config: Record<string, string> = {}
  for (const [key, v] of values) {
    // The settings of the worktree's own branch (a push -u writes them) are its own.
    if (!own.branch || !key.startsWith(`branch.${own.branch}.`)) config[key] = sha256Of(v.join('\0')).slice(0, 32)
  }
  return { configFile, config, hooksPath: hooksFolder(values.get('core.hookspath')?.at(-1)) }
}

/** "<key>\n<value>\0" per entry, canonical keys; a key without "=" has no value. */
async function parseConfig(git: Git, text: string): Promise<Map<string, string[]>> {
  const values = new Map<string, string[]>()
  for (const entry of (await git.exec(['config', '--file', '-', '--list', '-z'], { input: text })).split('\0').filter(Boolean)) {
    const newline = entry.indexOf('\n')
    const key = newline === -1 ? entry : entry.slice(0, newline)
    values.set(key, [...(values.get(key) ?? []), newline === -1 ? '' : entry.slice(newline + 1)])
  }
  return values
}

/** core.hooksPath when it names one folder for every worktree: an absolute path (a relative one is inside each worktree). */
function hooksFolder(value: string | undefined): string | undefined {
  if (value?.startsWith('~/')) return path.join(os.homedir(), value.slice(2))
  return value && path.isAbsolute(value) ? value : undefined
}

/**
 * What each entry of the hooks folders is, without following a link or reading a pipe. git never runs a file named
 * `<hook>.sample` (git init writes them): they are not hooks, and are not read.
 */
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
      if (name.endsWith('.sample')) continue
      const file = path.join(folder, name)
      const stat = fs.lstatSync(file, { throwIfNoEntry: false })
      if (!stat) continue
      const kind = kindOf(file)
      const content = kind === 'link' || kind === 'file' ? (stat.size <= MAX_HOOK_BYTES ? identityOf(folder, name) : `${stat.size}:${stat.mtimeMs}`) : ''
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
  /** Another job's: the token of its lock. */
  token?: string
}

/**
 * Every worktree of the repository, with whose it is and its own branches: the one it has checked out, and the
 * one agent-worktree made for it (a kept worktree is detached from it). Lock and record are hints an agent can
 * write: they only ever shape what a report says.
 */
function worktreesOf(commonDir: string, own: OwnWorktree, others?: Record<string, string>): Worktree[] {
  const me = currentOwner()
  // The main worktree's git dir is the common dir, and its folder the one that holds it (a bare one has none).
  const main = path.basename(commonDir) === '.git' ? path.dirname(commonDir) : commonDir
  const found: Worktree[] = []
  for (const gitDir of [commonDir, ...adminDirs(commonDir)]) {
    const folder = gitDir === commonDir ? main : folderOf(gitDir)
    if (!folder) continue
    const head = readHead(gitDir)
    const worktree: Worktree = { gitDir, holder: { folder }, branches: head ? [head] : [] }
    if (gitDir !== commonDir && path.basename(gitDir) === own.id) worktree.holder.whose = 'this-job'
    else if (gitDir !== commonDir) Object.assign(worktree, heldByUs(gitDir, folder, own, me, others) ?? {})
    found.push(worktree)
  }
  return found
}

/**
 * A worktree agent-worktree holds for another job, or for this one besides the worktree exited: its lock and record
 * carry one token, not this worktree's; at exit (`others` given), only one it held at enter with that very lock.
 */
function heldByUs(
  gitDir: string,
  folder: string,
  own: OwnWorktree,
  me: Owner,
  others?: Record<string, string>
): Pick<Worktree, 'holder' | 'branches' | 'token'> | undefined {
  const lock = lockOf(gitDir)
  const record = lockToken(lock) ? readRecordFile(gitDir) : undefined
  if (!recordMatchesLock(lock, record) || record.token === own.token) return undefined
  const id = path.basename(gitDir)
  if (others && (!Object.hasOwn(others, id) || others[id] !== record.token)) return undefined
  try {
    const branches = [readHead(gitDir), typeof record.branch === 'string' && record.branch ? `refs/heads/${record.branch}` : undefined]
    return {
      // Another worktree this job entered: its own exit deletes its branch, which is no change of another's.
      holder: sameJob(record.owner, me) ? { folder, whose: 'same-job' } : { folder, whose: 'other-job', job: describeOwner(record.owner) },
      branches: branches.filter((b): b is string => Boolean(b)),
      token: record.token
    }
  } catch {
    // A record an agent wrote as it liked: no owner to name.
    return undefined
  }
}

function readHead(gitDir: string): string | undefined {
  return /^ref: (refs\/heads\/\S+)/.exec(readSmall(path.join(gitDir, 'HEAD')) ?? '')?.[1]
}

function holdersOf(worktrees: Worktree[]): Record<string, Holder> {
  const holders: Record<string, Holder> = {}
  for (const { holder, branches } of worktrees) for (const ref of branches) holders[ref] ??= holder
  return holders
}

/**
 * What changed between enter and exit: refs created, moved and deleted; config keys and hooks added, changed and
 * removed. `head` is the branch the worktree has checked out now: one the agent created there is the worktree's.
 * In `commonDir` the reflogs tell what a ref known at enter by name only was.
 */
export function compareShared(
  before: SharedState,
  after: SharedState,
  branch: string,
  { head, commonDir }: { head?: string; commonDir?: string } = {}
): SharedChange[] {
  const logged = (ref: string): string | undefined => (commonDir ? reflogBefore(commonDir, ref, before.at) : undefined)
  const changes: SharedChange[] = compareRefs(before.refs, after.refs, branch, logged)
    .filter(({ ref, from }) => from !== undefined || ref !== head)
    .map(({ ref, from, to }) => ({ kind: 'ref', name: ref, change: from === undefined ? 'created' : to === undefined ? 'deleted' : 'moved', from, to }))
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

/**
 * Where each ref change belongs, as far as can be told: a deleted branch to the worktree that had it as its own
 * at enter; a created or moved one to the worktree that has it as its own now, or else to the worktree whose HEAD
 * reflog holds the very entry the ref's reflog made (the same ids, identity and second). Tags have no reflog, and
 * a deleted ref's reflog goes with it: those stay unplaced.
 */
export function placeChanges(changes: SharedChange[], before: SharedState, commonDir: string, own: OwnWorktree): SharedChange[] {
  if (!changes.some(change => change.kind === 'ref')) return changes
  // A worktree added since enter, or locked anew, places nothing: the agent may have made it, reflog and all.
  const worktrees = worktreesOf(commonDir, own, before.others ?? {})
  const holders = holdersOf(worktrees)
  let heads: Map<string, Holder | null> | undefined
  return changes.map((change, index) => {
    if (change.kind !== 'ref' || index >= MAX_LISTED) return change
    const holder = change.change === 'deleted' ? before.holders?.[change.name] : holders[change.name]
    const entry = change.to ? reflogEntry(commonDir, change.name, change.to, before.at) : undefined
    if (holder) return { ...change, origin: { reflog: entry?.message, holder, how: 'branch' } }
    if (!entry) return change
    heads ??= headReflogs(worktrees, before.at)
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
    // Read as latin1, every byte one character; a message (a commit's subject) is UTF-8.
    if (match && match[2] === to && Number(match[3]) >= Math.floor(since / 1000))
      found = { key: match[1], message: Buffer.from(match[4] ?? '', 'latin1').toString('utf8') }
  }
  return found
}

/**
 * The id a ref had at `since`, as its reflog tells: the old id of its first entry of a later second (those of the
 * same second may be older: the step's own fetch). None: created since, no reflog, or none of a later second.
 */
function reflogBefore(commonDir: string, ref: string, since: number): string | undefined {
  for (const line of linesOf(path.join(commonDir, 'logs', ...ref.split('/')))) {
    const match = REFLOG_LINE.exec(line)
    if (!match || Number(match[3]) <= Math.floor(since / 1000)) continue
    const old = line.slice(0, line.indexOf(' '))
    return /^0+$/.test(old) ? undefined : old
  }
  return undefined
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
 * A change that is not this job's to answer for: to the branch of a worktree another job held at enter, and holds
 * still. Said in the log; the rest is a warning. A reflog is no proof: anyone who moves a ref writes it (`update-ref
 * -m "fetch: …"`), and the entry that places a change in another worktree's HEAD reflog ("made in") is one the
 * agent can copy into the ref's; so a remote-tracking branch that moved, and a change placed by a reflog, are the
 * job's to answer for, what placed them said.
 */
export function fromElsewhere(change: SharedChange): boolean {
  // One of the action's refs: made by another job's exit, or dropped with its worktree by it; never deleted or moved under one still there.
  if (change.origin?.entry) return change.change === 'created' || change.origin.entry === 'gone'
  const whose = change.origin?.holder?.whose
  return ((whose === 'other-job' || whose === 'same-job') && change.origin?.how === 'branch') || change.origin?.remote === true
}

/**
 * Marks the remote-tracking branches of the remote of enter that moved, or were made, to what that remote's branch
 * is now: the remote's own answer proves they followed it (a fetch, a push). One ls-remote through a view, only
 * when there are such changes; when the remote does not answer, nothing is proven.
 */
export async function confirmedByRemote(changes: SharedChange[], commonDir: string, push: PushTarget | undefined): Promise<SharedChange[]> {
  const prefix = push && `refs/remotes/${push.remote}/`
  const asked = changes.filter(c => prefix && c.kind === 'ref' && c.name.startsWith(prefix) && c.to && c.change !== 'deleted')
  if (!push || !prefix || !asked.length) return changes
  const view = openView({ objects: path.join(commonDir, 'objects') })
  const listed = await view.git
    .run(['ls-remote', '--heads', '--end-of-options', push.url, ...asked.map(c => `refs/heads/${c.name.slice(prefix.length)}`)], {
      stallMs: 30_000,
      interruptible: true,
      remote: true,
      env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS }
    })
    .finally(() => view.dispose())
  if (listed.exitCode !== 0) return changes
  const heads = new Set(listed.stdout.split('\n').map(line => line.replace('\trefs/heads/', ` ${prefix}`)))
  return changes.map(c => (asked.includes(c) && heads.has(`${c.to} ${c.name}`) ? { ...c, origin: { ...c.origin, remote: true } } : c))
}

/** At exit: what changed since enter, placed; nothing when enter left no record, or the repository cannot be read now. */
export async function sharedChanges(before: SharedState | undefined, git: Git, commonDir: string, own: OwnWorktree): Promise<SharedChange[]> {
  if (!before) return []
  try {
    const after = await readSharedState(git, commonDir, own, { before })
    const head = own.id ? readHead(path.join(commonDir, 'worktrees', own.id)) : undefined
    const placed = placeChanges(compareShared(before, after, own.branch, { head, commonDir }), before, commonDir, own)
    const action = actionRefChanges(before.action, after.action!, own).map(({ ref, from, to }): SharedChange => {
      const change = from === undefined ? 'created' : to === undefined ? 'deleted' : 'moved'
      return { kind: 'ref', name: ref, change, from, to, origin: { entry: entryThere(commonDir, ref) ? 'there' : 'gone' } }
    })
    return [...placed, ...action]
  } catch {
    return []
  }
}
