// What the main step hands to the post step and to the exit sub-action.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { OnExit } from './input-helper.js'
import type { CheckoutSnapshot } from './isolation.js'

/** State key of the main step: the worktree record, saved before anything is created. */
export const STATE_RECORD = 'worktree'
/** State key of the main step: the repository's common git dir, saved before its lock is taken. */
export const STATE_COMMON_DIR = 'common-dir'

/** Environment variables that tell later steps (and the exit sub-action) where the job works. */
export const ENV_WORKTREE_PATH = 'AGENT_WORKTREE_PATH'
export const ENV_ORIGINAL_PATH = 'AGENT_WORKTREE_ORIGINAL_PATH'

/** Kept inside the worktree's own git dir, so it lives exactly as long as the worktree's registration. */
export const RECORD_FILE = 'agent-worktree.json'

export interface WorktreeRecord {
  /** Random; proves that a worktree at `path` is the one this step created. */
  token: string
  /** Top level of the repository the job came from. */
  repository: string
  path: string
  name: string
  /** Branch checked out at enter; '' when HEAD was detached. */
  branch: string
  baseSha: string
  /** True when this step created the worktree and its branch. */
  created: boolean
  /** Folders of the checkout linked into the worktree (symlink-dirs), relative paths. */
  links?: string[]
  onExit: OnExit
  discardChanges: boolean
  /** The original checkout as the job entered the worktree: compared at exit, to tell whether the agent stayed inside. */
  original?: CheckoutSnapshot
  /** The job that entered it: the sweep of a later job on the same runner knows it for a leftover. */
  owner: JobIdentity
  /** Set by the exit sub-action: the post step then leaves the worktree alone. */
  exited?: OnExit
  /** Set just before git removes the worktree: a step cut short in the middle finishes the removal. */
  removing?: boolean
  /** recycle: true: park the worktree in the pool at exit instead of deleting it. */
  recycle?: boolean
  /** When it was parked in the pool. */
  parked?: string
}

export interface JobIdentity {
  runner: string
  /** `<run id>-<attempt>`; legs of a matrix share it. */
  run: string
  job: string
}

export function currentJob(env: NodeJS.ProcessEnv = process.env): JobIdentity {
  return { runner: env.RUNNER_NAME ?? '', run: env.GITHUB_RUN_ID ? `${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT || '1'}` : '', job: env.GITHUB_JOB ?? '' }
}

export function saveRecordState(record: WorktreeRecord): void {
  core.saveState(STATE_RECORD, JSON.stringify(record))
}

export function loadRecordState(): WorktreeRecord | undefined {
  const text = core.getState(STATE_RECORD)
  return text ? (JSON.parse(text) as WorktreeRecord) : undefined
}

export function writeRecordFile(gitDir: string, record: WorktreeRecord): void {
  fs.writeFileSync(path.join(gitDir, RECORD_FILE), `${JSON.stringify(record, null, 2)}\n`)
}

/** The record in a worktree's git dir, or undefined when there is none or it cannot be read. */
export function readRecordFile(gitDir: string): WorktreeRecord | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(gitDir, RECORD_FILE), 'utf8')) as WorktreeRecord
  } catch {
    return undefined
  }
}
