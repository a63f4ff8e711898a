// What the gate found, as data, and what it means for a removal: the report alone turns it into words.
import type { OnExit } from '../record/settings.js'
import type { FileKind } from '../os/untrusted-files.js'

/** A file git counts as uncommitted: its status code as `git status --porcelain` gives it (`??` untracked), and its path. */
export interface Uncommitted {
  code: string
  path: string
}

/** A commit that nothing outliving the worktree has: abbreviated, its subject, and the submodule it is in, if not the worktree's own. */
export interface UnsavedCommit {
  commit: string
  subject: string
  submodule?: string
}

/** A repository inside the worktree's folder with work of its own, and what that work is. */
export type NestedWork = { path: string } & Nested

/** What a nested repository is, and what work it holds. */
export type Nested = { what: 'repository' | 'worktree' | 'bare repository' | 'submodule' } & (
  { state: 'unreadable' | 'too-deep' | 'locked' | 'commits' } | { state: 'uncommitted'; files: number } | { state: 'holding'; inside: NestedWork[] }
)

/** A tracked path the agent replaced by something that is not a file. */
export interface SpecialFile {
  path: string
  kind: FileKind
}

/** What the gate found, as data: the report alone turns it into words. */
export interface Findings {
  /** Modified, staged, deleted, and untracked files that are not ignored. */
  uncommitted: Uncommitted[]
  /** Commits the worktree remembers that neither the base nor a ref that outlives the removal has. */
  unsavedCommits: UnsavedCommit[]
  /** Repositories or worktrees inside the worktree's folder that hold work of their own. */
  nested: NestedWork[]
  /** The commits at the tips of the unsaved ones: what a rescue must keep reachable. */
  tips: string[]
  /** The worktree's HEAD commit, when it could be read. */
  head?: string
  /** Where each branch that goes with the worktree pointed when the gate looked. */
  branchTips?: Record<string, string>
  /** Every commit that counted as a tip, as the gate saw them: unchanged, the answer is the same. */
  sources?: string
  /** Tracked paths the agent replaced by a named pipe, a socket or a device: work, never read. */
  special?: SpecialFile[]
  /**
   * Untracked paths no .gitignore ignores that are not work: clean nested repositories, the action's own links.
   * Cleaning ignored files (the pool) would leave them behind.
   */
  loose?: string[]
  /** Files the job brought in (include-file) that the agent changed: work, but never rescued (they may hold secrets). */
  broughtChanged?: string[]
  /** Why the remote could not be asked whether it has the commits: then they count as unsaved. */
  remoteUnasked?: string
  /** Why no remote of enter could say it has the commits of a submodule, by its path: then they count as unsaved. */
  submoduleUnasked?: Record<string, string>
  /** Set when the state could not be determined: then nothing may be removed. */
  error?: string
}

export function hasUnsavedWork(findings: Findings): boolean {
  return findings.uncommitted.length > 0 || findings.unsavedCommits.length > 0 || findings.nested.length > 0
}

/**
 * The proof a parked worktree needs to be handed out or expired: since it was parked nothing at all appeared
 * (the gate looked with ignored files counted) and HEAD is where parking left it.
 */
export function provenUntouched(findings: Findings, parkedHead: string | undefined): boolean {
  return findings.error === undefined && !hasUnsavedWork(findings) && findings.head !== undefined && findings.head === parkedHead
}

export type Verdict = 'keep-asked' | 'keep-unsaved' | 'keep-unknown' | 'remove-clean' | 'remove-discard'

/** Remove only what is proven clean, or what the workflow said to discard; unknown state is always kept. */
export function decide(onExit: OnExit, discardChanges: boolean, findings: Findings): Verdict {
  if (onExit === 'keep') return 'keep-asked'
  if (findings.error !== undefined) return 'keep-unknown'
  if (!hasUnsavedWork(findings)) return 'remove-clean'
  return discardChanges ? 'remove-discard' : 'keep-unsaved'
}

/** Whether `later` found nothing that `earlier` did not: a removal goes ahead only on what was decided. */
export function nothingNew(earlier: Findings, later: Findings): boolean {
  if (later.error !== undefined || later.head !== earlier.head) return false
  const items = (f: Findings): string[] => [...f.uncommitted, ...f.unsavedCommits, ...f.nested].map(item => JSON.stringify(item))
  const known = new Set(items(earlier))
  return items(later).every(item => known.has(item))
}
