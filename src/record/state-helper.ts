// What the main step hands to the post step and to the exit sub-action.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Isolation, OnExit, PullRequestRequest, Reclaim, RescueTarget } from './settings.js'
import type { Owner } from './ownership.js'
import { readSmall, writeReplacing } from '../os/untrusted-files.js'

/** Environment variables that tell later steps (and the exit sub-action) where the job works: hints only. */
export const ENV_WORKTREE_PATH = 'AGENT_WORKTREE_PATH'
export const ENV_ORIGINAL_PATH = 'AGENT_WORKTREE_ORIGINAL_PATH'

/** Kept inside the worktree's own git dir, so it lives exactly as long as the worktree's registration. */
export const RECORD_FILE = 'agent-worktree.json'

/** The folder of the original's common dir that holds one folder of ours per clone (isolation: clone): `<dir>/<id>`. */
export const CLONES_DIR = 'agent-worktree-clones'

/**
 * The file of the original's common dir that lists the files of its object store the main step verified, or found
 * there before any job of ours entered (shared-store.ts): read-only in every sandbox list.
 */
export const OBJECTS_LIST_FILE = 'agent-worktree-objects.json'

/** A filter driver as configured when the main step entered (git-lfs, git-crypt): the only programs a view runs. */
export interface FilterDriver {
  clean?: string
  smudge?: string
  process?: string
  required?: boolean
}

export interface WorktreeRecord {
  /** Random; proves that a worktree is the one this step created or entered (it is in the lock reason). */
  token: string
  /** Top level of the repository the job came from. */
  repository: string
  /** Its common git dir. */
  commonDir: string
  /** The worktree's git dir is <commonDir>/worktrees/<id>; unknown until git created it. */
  id?: string
  path: string
  name: string
  /** Branch checked out at enter; '' when HEAD was detached. */
  branch: string
  /** The commit a created worktree started from; HEAD at entry for one entered by path. */
  baseSha: string
  /** True when this step created the worktree and its branch. */
  created: boolean
  /** Set once the main step has checked out the worktree's files: until then, nothing in it is anyone's work. */
  checkedOut?: boolean
  /**
   * The outermost folder the main step made for the worktree (its worktrees-dir, or one above it, which did not
   * exist before): what is empty of it goes with its last worktree, as the default worktrees-dir does.
   */
  madeFolder?: string
  /** Folders of the checkout linked into the worktree (symlink-dirs), relative paths. */
  links?: string[]
  onExit: OnExit
  /** on-exit was given explicitly: the exit sub-action follows it when it has none of its own. */
  onExitGiven: boolean
  discardChanges: boolean
  /** Where a copy of unsaved work goes when the worktree is kept. */
  rescue: RescueTarget[]
  /** Largest rescue, in bytes. */
  rescueMaxBytes: number
  /** What a kept worktree gives back of its ignored folders; none said (an older record): those holding a CACHEDIR.TAG. */
  reclaim?: Reclaim
  /** The job runs on a machine that is deleted after it (GitHub-hosted): only what leaves it is saved. */
  ephemeral: boolean
  /**
   * The repository's git dir lies in GITHUB_WORKSPACE, which the next job's actions/checkout prepares: it deletes
   * every local branch there, and, fetching tags, every tag the remote lacks.
   */
  inWorkspace: boolean
  /** core.fileMode as the repository had it at enter: an agent that turns it off hides mode changes. */
  fileMode: boolean
  /** More settings as they were at enter (core.ignoreCase, core.autocrlf, core.symlinks), as key=value. */
  pinned?: string[]
  /** A file, in the runner's temp folder, with the original checkout as the job found it. */
  original?: string
  /** The job that entered it. */
  owner: Owner
  /** isolation: clone: a repository of the agent's own at `path`, whose lock and record this action keeps in the original. */
  isolation?: Isolation
  /** A clone's commit (in the original, under its borrowed ref) whose parents are what it borrowed when it was made. */
  borrowed?: string
  /** The lock the worktree had before this job entered it by path ('' for none); restored when it is kept. */
  priorLock?: string
  /** recycle: true: park the worktree in the pool at exit instead of deleting it. */
  recycle?: boolean
  /** When the worktree was taken from the pool: its older reflog belongs to earlier jobs. */
  taken?: string
  /** The filter drivers the repository had configured at enter (git-lfs, git-crypt): the only programs a gate runs. */
  filters?: Record<string, FilterDriver>
  /** Where a rescue pushes, as the repository had it at enter; none without a remote. */
  push?: PushTarget
  /** What our git may use: the job's git set-up of enter (git-setup.ts). */
  git?: GitSetup
  /**
   * The URL each submodule of the base had at enter, by its path (submodules.ts), in a file likewise (a repository
   * may have hundreds): the only remote whose word saves a commit in it.
   */
  submodules?: StepFile
  /** The branch of that remote an exit pushes the worktree's HEAD to (the push input); none: nothing is pushed. */
  pushTo?: string
  /** A pull request of the pushed branch, opened at exit (the pull-request input); none: no pull request. */
  pullRequest?: PullRequestRequest
  /** The branch of that remote base-ref named (origin/main: main): a pull request's base. None: the repository's default branch. */
  pullBase?: string
  /** The index of the job among the legs of its matrix: rescue names stay apart. */
  leg?: string
  /** What the job brought into the worktree, kept in a file in RUNNER_TEMP (its hash here): never the agent's work. */
  brought?: StepFile
  /** What every worktree of the repository shared once the main step had entered (shared-state.ts), in a file likewise. */
  shared?: StepFile
  /** The shallow file of the worktree's repository (a clone's own) when the agent got it: shallow-file.ts. */
  shallow?: string
  /** The files of that repository's object store when the agent got it (object-store.ts), in a file likewise. */
  objects?: StepFile
}

/** What the job brought in: the ignore rules of enter, and the files include-file copied, by content hash. */
export interface BroughtIn {
  /** info/exclude and core.excludesFile as they were at enter. */
  excludes: string
  /** Each copied file's path and what it is (identityOf: its size and blob ids, or a link's target). */
  included: Record<string, string>
  /**
   * The untracked files a restore put back (as git names them, latin1): the agent's work, whatever ignore
   * rules this checkout has.
   */
  restored?: string[]
}

/** A rescue's push: one URL, the remote's of enter; it authenticates with the job's git set-up of enter (GitSetup). */
export interface PushTarget {
  /** The remote's name, for the restore command. */
  remote: string
  url: string
  /** The repository's Git LFS endpoint settings of enter, where it had any: lfs.pushurl, lfs.url, and this remote's lfspushurl, lfsurl. */
  lfs?: Partial<Record<'lfs.pushurl' | 'lfs.url' | 'lfspushurl' | 'lfsurl', string>>
}

/**
 * The job's git set-up when the main step entered. Values are kept only where they are not credentials: the
 * variables and settings a later step may take are known by their hashes.
 */
export interface GitSetup {
  /** The git program PATH named at enter. */
  exe: string
  /** The git-lfs program PATH named at enter, where it named one. */
  lfs?: string
  /** HOME, PATH, XDG_CONFIG_HOME and SSH_AUTH_SOCK of enter, where set. */
  env: Record<string, string>
  /** Hashes of the workflow's git variables and of the settings of enter a later step may take. */
  hashes: string[]
}

/** What later steps write into the record file: hints, never evidence (the agent can write them too). */
export interface RecordHints {
  /** The exit sub-action's decision: the post step then leaves the worktree alone. */
  exited?: 'keep' | 'remove' | 'parked'
  /** Set before a removal moves the folder aside: a later step may finish it, through the gate. */
  removing?: boolean
  /** When it was parked in the pool, and at which commit. */
  parked?: string
  parkedHead?: string
  /** When a step at the end of the job (the post, a sweep) reclaimed its ignored folders: the sweep does not again. */
  reclaimed?: string
  /** Its size in bytes, and when it was measured (a sweep's list of kept worktrees). */
  size?: { bytes: number; at: string }
}

/** The record file in a worktree's git dir: the main step's record, sealed; hints of later steps beside it. */
export type RecordFile = WorktreeRecord & RecordHints & { mac?: string }

const HINT_KEYS = new Set(['exited', 'removing', 'parked', 'parkedHead', 'reclaimed', 'size', 'mac'])

/**
 * The seal of a record: an HMAC of its evidence (everything but the hints) keyed with the job's
 * ACTIONS_RUNTIME_TOKEN, which the runner gives JavaScript actions and never a `run:` step, and which no program
 * of ours passes on. Only a step of the same job can make one, so the exit sub-action can believe a sealed
 * record as the post believes its own state. Outside a runner the key is the job's seal key (sealKey); with
 * neither, no seal, and the record is a hint. `make`: a step that writes a record may make the seal key.
 */
export function sealOf(record: WorktreeRecord, env: NodeJS.ProcessEnv = process.env, make = false): string | undefined {
  return macOf(sealedFields(record), env, make)
}

function macOf(value: unknown, env: NodeJS.ProcessEnv, make = false): string | undefined {
  const key = sealKey(env, make)
  return key ? createHmac('sha256', key).update(canonical(value)).digest('hex') : undefined
}

const SEAL_KEY = /^[0-9a-f]{64}$/

/**
 * What seals: the job's ACTIONS_RUNTIME_TOKEN. Outside a runner no step has one (nektos/act), and the key is a
 * random one that the first main step of the job writes into RUNNER_TEMP (fresh for every job under act): a
 * command the run sub-action confines cannot read it, but any unconfined step of the job can (docs/act.md says
 * what that changes). None without a RUNNER_TEMP: a shared temporary folder is no job's own.
 */
function sealKey(env: NodeJS.ProcessEnv, make: boolean): string | undefined {
  if (env.ACTIONS_RUNTIME_TOKEN) return env.ACTIONS_RUNTIME_TOKEN
  if (!env.RUNNER_TEMP) return undefined
  const file = path.join(env.RUNNER_TEMP, 'agent-worktree-seal.key')
  const read = (): string | undefined => {
    const key = readSmall(file, 1024)?.trim()
    return key && SEAL_KEY.test(key) ? key : undefined
  }
  const existing = read()
  if (existing || !make) return existing
  try {
    fs.writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 })
  } catch {
    // made meanwhile, or none can be made: then nothing is sealed
  }
  return read()
}

/** Whether a step of this job could seal a record: then one that carries no seal of this job was changed. */
export function canSeal(env: NodeJS.ProcessEnv = process.env): boolean {
  return sealKey(env, false) !== undefined
}

function sameMac(mac: unknown, expected: string | undefined): boolean {
  if (!expected || typeof mac !== 'string' || mac.length !== expected.length) return false
  return timingSafeEqual(Buffer.from(mac), Buffer.from(expected))
}

/** Whether the record file carries the seal of this job: then it is the main step's record, unchanged. */
export function isSealed(file: RecordFile, env: NodeJS.ProcessEnv = process.env): boolean {
  return sameMac(file.mac, sealOf(file, env))
}

/**
 * The job's git set-up of enter, sealed as a record is, in RUNNER_TEMP (which the agent cannot write): for a later
 * step whose record the agent changed, which then is a hint only, but whose git is still the job's. The last main
 * step of the job writes it; a runner's next job cannot read another's seal.
 */
function setupFile(env: NodeJS.ProcessEnv): string {
  return path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-worktree-git-setup.json')
}

export function writeSetupFile(git: GitSetup, env: NodeJS.ProcessEnv = process.env): void {
  const mac = macOf({ setupOfEnter: git }, env, true)
  if (mac) writeReplacing(setupFile(env), JSON.stringify({ git, mac }))
}

export function readSetupFile(env: NodeJS.ProcessEnv = process.env): GitSetup | undefined {
  try {
    const { git, mac } = JSON.parse(readSmall(setupFile(env)) ?? '') as { git: GitSetup; mac: unknown }
    return sameMac(mac, macOf({ setupOfEnter: git }, env)) ? git : undefined
  } catch {
    return undefined
  }
}

function sealedFields(record: WorktreeRecord): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => !HINT_KEYS.has(key)))
}

/** JSON with every object's keys sorted: the same record gives the same text in any version. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}

/** Written aside and renamed into place: a step killed meanwhile never leaves half a record. */
function writeFile(gitDir: string, content: object): void {
  writeReplacing(path.join(gitDir, RECORD_FILE), `${JSON.stringify(content, null, 2)}\n`)
}

/** Writes the step's own record, sealed: only the main step (and a take from the pool) has one to write. */
export function writeRecordFile(gitDir: string, record: WorktreeRecord): void {
  writeFile(gitDir, { ...sealedFields(record), mac: sealOf(record, process.env, true) })
}

/** Puts back a record file as it was read, seal and hints included. */
export function restoreRecordFile(gitDir: string, file: RecordFile): void {
  writeFile(gitDir, file)
}

/**
 * Adds hints to the record file, leaving its record and seal as they are (a hint never re-seals what a step
 * did not prove). A git dir that is gone or a full disk is no error: the hint is lost, and every decision is
 * proven again anyway.
 */
export function writeHints(gitDir: string, hints: RecordHints, fallback?: WorktreeRecord): void {
  try {
    const current = readRecordFile(gitDir)
    if (current) writeFile(gitDir, { ...current, ...hints })
    else if (fallback) writeFile(gitDir, { ...sealedFields(fallback), mac: sealOf(fallback), ...hints })
  } catch {
    // the hint is lost
  }
}

/** A file of the main step's own in RUNNER_TEMP, which the agent cannot write: its name and the hash of what it holds. */
export interface StepFile {
  file: string
  sha256: string
}

/**
 * Writes what a step file holds (too big for the state, which reaches the post as one environment variable): the
 * record keeps its name and hash.
 */
export function writeStepFile(content: unknown, token: string, kind: string, env: NodeJS.ProcessEnv = process.env): StepFile {
  const text = JSON.stringify(content)
  const file = path.join(env.RUNNER_TEMP || os.tmpdir(), `agent-worktree-${token}-${kind}.json`)
  fs.writeFileSync(file, text, { mode: 0o600 })
  return { file, sha256: createHash('sha256').update(text).digest('hex') }
}

/** What a step file holds, when it is still what the main step wrote; otherwise nothing is taken from it. */
export function readStepFile<T>(written: StepFile | undefined): T | undefined {
  const text = written && readSmall(written.file, 64 * 1024 * 1024)
  if (!text || createHash('sha256').update(text).digest('hex') !== written.sha256) return undefined
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}

/** The record file in a worktree's git dir, or undefined when there is none or it cannot be read. */
export function readRecordFile(gitDir: string): RecordFile | undefined {
  try {
    const record = JSON.parse(readSmall(path.join(gitDir, RECORD_FILE)) ?? '') as RecordFile
    return typeof record === 'object' && record !== null && typeof record.token === 'string' ? record : undefined
  } catch {
    return undefined
  }
}
