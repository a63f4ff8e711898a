// The worktrees the main steps of this job entered, by path, in RUNNER_TEMP: after a worktree is gone (an exit
// removed it, or the agent did), it tells a later step's `path` that names it from one that never was a worktree
// this action entered (a typo, a wrong output). Only ever a word about how to report a path, never a reason to
// touch anything: an entry lost or planted changes a message, not what is removed.
import * as os from 'node:os'
import * as path from 'node:path'
import { samePath } from '../os/paths.js'
import { readSmall, writeReplacing } from '../os/untrusted-files.js'
import { currentOwner, sameJob, type Owner } from './ownership.js'

interface Entry {
  path: string
  owner: Owner
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
export function noteEntered(worktree: string, env: NodeJS.ProcessEnv = process.env): void {
  try {
    const me = currentOwner(env)
    writeReplacing(enteredFile(env), JSON.stringify([...thisJobs(env, me), { path: worktree, owner: me }]))
  } catch {
    // the note is lost: a gone worktree is then reported as a path this action never entered
  }
}

/** A main step of this job entered a worktree at `worktree`. */
export function wasEntered(worktree: string, env: NodeJS.ProcessEnv = process.env): boolean {
  return thisJobs(env, currentOwner(env)).some(e => samePath(e.path, worktree))
}
