// The worktree's names: the rule for a given one's length, its folder and branch spelling, and the generated
// default, written here and matched here (a re-run's restore: auto finds the rescues of its own step by it); and the
// name the action's own commits bear.
import { createHash, randomBytes } from 'node:crypto'

export const NAME_MAX_LENGTH = 64

/** Beside the checkout, not inside it: `git clean -ffdx` in the checkout never reaches a kept worktree. */
export function defaultWorktreesDir(toplevel: string): string {
  return `${toplevel}.worktrees`
}

/** Folder and branch names stand for the name with each "/" as "+". */
export function flattenName(name: string): string {
  return name.replaceAll('/', '+')
}

/** Unique per job run, also among the legs of a matrix and among reruns, which share run id and job. */
export function generateName(env: NodeJS.ProcessEnv = process.env, random = randomBytes(4).toString('hex')): string {
  const run = env.GITHUB_RUN_ID ? `${env.GITHUB_RUN_ID}-${env.GITHUB_RUN_ATTEMPT || '1'}` : `${Date.now()}`
  const tail = `-${run}-${stepKey(env)}${random}`
  const job = (env.GITHUB_JOB || 'agent').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[.-]+/, '') || 'agent'
  return job.slice(0, NAME_MAX_LENGTH - tail.length) + tail
}

/**
 * Four hex digits for the step of the job (GITHUB_ACTION: its id, or the action's name with _2, _3 for a
 * second and third use): the same in every attempt, so that a re-run's restore: auto tells apart the rescues
 * of two steps without a name.
 */
function stepKey(env: NodeJS.ProcessEnv): string {
  return createHash('sha256')
    .update(env.GITHUB_ACTION ?? '')
    .digest('hex')
    .slice(0, 4)
}

/** A regular expression source for the names generateName gives this step in this job's run at `attempt`, whatever the random part. */
export function generatedNames(env: NodeJS.ProcessEnv, attempt: number): string {
  const sample = generateName({ ...env, GITHUB_RUN_ATTEMPT: String(attempt) }, '00000000')
  return `${sample.slice(0, -8).replace(/[.+]/g, '\\$&')}[0-9a-f]{8}`
}

/** Who makes the action's own commits (a snapshot, the index parent, the tree of LFS pointers a restore fetches). */
export const IDENTITY = {
  GIT_AUTHOR_NAME: 'agent-worktree',
  GIT_AUTHOR_EMAIL: 'agent-worktree@users.noreply.github.com',
  GIT_COMMITTER_NAME: 'agent-worktree',
  GIT_COMMITTER_EMAIL: 'agent-worktree@users.noreply.github.com'
}
