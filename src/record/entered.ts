// The worktrees the main steps of this job entered, by path, in RUNNER_TEMP: after a worktree is gone (an exit
// removed it, or the agent did), it tells a later step's `path` that names it from one that never was a worktree
// this action entered (a typo, a wrong output); and a later main step learns which folder an earlier one made for
// worktrees, so that the folder goes with the last worktree in it, whichever step entered that one. An entry lost
// or planted changes a message, or leaves an empty folder behind: it never makes anything with files in it go.
import * as os from 'node:os'
import * as path from 'node:path'
import { isReallyInside, samePath } from '../os/paths.js'
import { kindOf, readSmall, writeReplacing } from '../os/untrusted-files.js'
import { currentOwner, sameJob, type Owner } from './ownership.js'

interface Entry {
  path: string
  owner: Owner
  /** The outermost folder that main step made for the worktree (WorktreeRecord.madeFolder). */
  madeFolder?: string
}

function enteredFile(env: NodeJS.ProcessEnv): string {
  return path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-worktree-entered.json')
}

/** This job's entries: a self-hosted runner's RUNNER_TEMP also holds earlier jobs'. */
function thisJobs(env: NodeJS.ProcessEnv, me: Owner): Entry[] {
  try {
    const entries = JSON.parse(readSmall(enteredFile(env)) ?? '[]') as unknown
    if (!Array.isArray(entries)) return []
    return (entries as Partial<Entry>[]).filter(
      (e): e is Entry => typeof e?.path === 'string' && typeof e.owner === 'object' && e.owner !== null && sameJob(e.owner, me)
    )
  } catch {
    return []
  }
}

/** Notes that the main step entered `worktree`; a file that cannot be written loses the note, nothing more. */
export function noteEntered(worktree: string, madeFolder: string | undefined, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const me = currentOwner(env)
    writeReplacing(enteredFile(env), JSON.stringify([...thisJobs(env, me), { path: worktree, owner: me, madeFolder }]))
  } catch {
    // the note is lost: a gone worktree is then reported as a path this action never entered
  }
}

/** A main step of this job entered a worktree at `worktree`. */
export function wasEntered(worktree: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return thisJobs(env, currentOwner(env)).some(e => samePath(e.path, worktree))
}

/** The outermost folder an earlier main step of this job made for worktrees, where `dir` lies in it. */
export function madeByThisJob(dir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return thisJobs(env, currentOwner(env))
    .map(e => e.madeFolder)
    .find((made): made is string => typeof made === 'string' && kindOf(made) === 'directory' && isReallyInside(dir, made))
}
