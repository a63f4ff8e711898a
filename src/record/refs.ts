// The refs the action writes, each namespace named here alone. refs/agent-worktree/ lies outside refs/heads/
// and refs/tags/, so the next job's actions/checkout leaves it alone; refs/worktree/ is a worktree's own.
import * as path from 'node:path'

const OURS = 'refs/agent-worktree/'

/**
 * The ref that marks a worktree kept and keeps its snapshot alive: refs/agent-worktree/kept/<id>/<token>.
 * One per job that kept it: a later worktree of the same git dir id (or one that took it over) removes
 * only its own, and the sweep leaves alone every worktree whose id has one.
 */
export const KEPT_REFS = `${OURS}kept/`

export function keptRef(gitDir: string, token: string): string {
  return `${KEPT_REFS}${path.basename(gitDir)}/${token}`
}

/** The git dir id a kept ref names. */
export function keptId(ref: string): string {
  return ref.slice(KEPT_REFS.length).split('/')[0]
}

/** The ref that keeps what a clone (isolation: clone) borrows from a gc of the original: refs/agent-worktree/borrowed/<id>. */
export const BORROWED_REFS = `${OURS}borrowed/`

export function borrowedRef(entry: string): string {
  return `${BORROWED_REFS}${path.basename(entry)}`
}

/** Where a restore fetches a rescue into, under a name of its own: the post deletes one a cut-short main left. */
const RESTORE_REFS = `${OURS}restore/`

export function restoreRef(random: string): string {
  return `${RESTORE_REFS}${random}`
}

/** A ref a restore fetched into, and nothing else: its name reaches the post through the state. */
export function isRestoreRef(ref: string): boolean {
  return ref.startsWith(RESTORE_REFS) && /^[0-9a-f]{12}$/.test(ref.slice(RESTORE_REFS.length))
}

/** Where fetch: true fetches the base into, before the remote-tracking branch moves. */
export function fetchRef(random: string): string {
  return `${OURS}fetch/${random}`
}

/** Where a restore keeps the commits HEAD does not reach: refs of the worktree, which the gate counts and which go with it. */
export function restoredRef(n: number): string {
  return `refs/worktree/agent-worktree/restored/${n}`
}
