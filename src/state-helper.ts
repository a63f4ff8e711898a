// What the main step hands to the post step and to the exit sub-action.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { OnExit, RescueTarget } from './input-helper.js'
import type { Owner } from './ownership.js'

/** State key of the main step: the worktree record, saved before anything is created, and again as it grows. */
export const STATE_RECORD = 'worktree'
/** State key of the main step: the repository's common git dir, saved before its lock is taken. */
export const STATE_COMMON_DIR = 'common-dir'

/** Environment variables that tell later steps (and the exit sub-action) where the job works: hints only. */
export const ENV_WORKTREE_PATH = 'AGENT_WORKTREE_PATH'
export const ENV_ORIGINAL_PATH = 'AGENT_WORKTREE_ORIGINAL_PATH'

/** Kept inside the worktree's own git dir, so it lives exactly as long as the worktree's registration. */
export const RECORD_FILE = 'agent-worktree.json'

/** Each state value reaches the post as one environment variable, and Linux refuses one over 128 KiB. */
export const MAX_STATE_BYTES = 32 * 1024

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
  /** The job runs on a machine that is deleted after it (GitHub-hosted): only what leaves it is saved. */
  ephemeral: boolean
  /** core.fileMode as the repository had it at enter: an agent that turns it off hides mode changes. */
  fileMode: boolean
  /** More settings as they were at enter (core.ignoreCase, core.autocrlf, core.symlinks), as key=value. */
  pinned?: string[]
  /** A file, in the runner's temp folder, with the original checkout as the job found it. */
  original?: string
  /** The job that entered it. */
  owner: Owner
  /** The lock the worktree had before this job entered it by path ('' for none); restored when it is kept. */
  priorLock?: string
  /** recycle: true: park the worktree in the pool at exit instead of deleting it. */
  recycle?: boolean
  /** When the worktree was taken from the pool: its older reflog belongs to earlier jobs. */
  taken?: string

  // Written into the record file by later steps: hints, never authorities.
  /** The exit sub-action's decision: the post step then leaves the worktree alone. */
  exited?: 'keep' | 'remove' | 'parked'
  /** Set before a removal moves the folder aside: a later step may finish it, through the gate. */
  removing?: boolean
  /** When it was parked in the pool, and at which commit. */
  parked?: string
  parkedHead?: string
}

export function saveRecordState(record: WorktreeRecord): void {
  const text = JSON.stringify(record)
  if (Buffer.byteLength(text) > MAX_STATE_BYTES)
    throw new Error(`the worktree's record is ${Buffer.byteLength(text)} bytes, more than the ${MAX_STATE_BYTES} a step's state may hold`)
  core.saveState(STATE_RECORD, text)
}

export function loadRecordState(): WorktreeRecord | undefined {
  const text = core.getState(STATE_RECORD)
  return text ? (JSON.parse(text) as WorktreeRecord) : undefined
}

/** Written aside and renamed into place: a step killed meanwhile never leaves half a record. */
export function writeRecordFile(gitDir: string, record: WorktreeRecord): void {
  const file = path.join(gitDir, RECORD_FILE)
  const temp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`)
  fs.renameSync(temp, file)
}

/** Like writeRecordFile, for a hint that may be lost: a git dir that is gone or a full disk is no error. */
export function tryWriteRecordFile(gitDir: string, record: WorktreeRecord): void {
  try {
    writeRecordFile(gitDir, record)
  } catch {
    // the hint is lost; every decision is proven again anyway
  }
}

/** The record in a worktree's git dir, or undefined when there is none or it cannot be read. */
export function readRecordFile(gitDir: string): WorktreeRecord | undefined {
  try {
    const record = JSON.parse(fs.readFileSync(path.join(gitDir, RECORD_FILE), 'utf8')) as WorktreeRecord
    return typeof record === 'object' && record !== null && typeof record.token === 'string' ? record : undefined
  } catch {
    return undefined
  }
}
