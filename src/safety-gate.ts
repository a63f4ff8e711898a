// The one place that decides whether removing a worktree could lose work.
import type { Git } from './git-command-manager.js'
import type { OnExit } from './input-helper.js'
import { parseStatus } from './porcelain.js'

export interface Findings {
  /** Uncommitted changes as `XY path`: modified, staged, deleted, and untracked files that are not ignored. */
  uncommitted: string[]
  /** Commits (`sha subject`) reachable from the worktree that neither the base nor any remote-tracking ref has. */
  unsavedCommits: string[]
  /** Set when the state could not be determined: then nothing may be removed. */
  error?: string
}

export interface GateInput {
  /** Git pinned to the worktree (its registered git dir and folder); undefined when the folder is gone. */
  worktree?: Git
  /** The worktree has initialised submodules, whose refs and objects go with it. */
  submodules: boolean
  /** Links this action made (symlink-dirs): git sees them as untracked, but they are not work. */
  ownLinks: string[]
  /** Git in the repository. */
  repository: Git
  /** The worktree's HEAD commit, as its registration says. */
  head?: string
  baseSha: string
  /** Existing branches whose commits would be lost with the worktree (the branch this action would delete). */
  branchesToDelete: string[]
}

export async function inspect(input: GateInput): Promise<Findings> {
  if (!input.head) return { uncommitted: [], unsavedCommits: [], error: 'the worktree has no HEAD commit' }
  if (!input.baseSha) return { uncommitted: [], unsavedCommits: [], error: 'no base commit was recorded' }
  // All questions at once; any failing means the state is unknown.
  const [status, log, submoduleLog] = await Promise.all([
    input.worktree?.run(['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none']),
    input.repository.run([
      'log',
      '--format=%h %s',
      input.head,
      ...input.branchesToDelete.map(b => `refs/heads/${b}`),
      '--not',
      input.baseSha,
      '--remotes',
      '--'
    ]),
    // A submodule's refs live in the worktree's git dir and go with it: its local commits count too.
    input.submodules
      ? input.worktree?.run(['submodule', 'foreach', '--quiet', '--recursive', 'git log --format="$displaypath: %h %s" HEAD --branches --not --remotes --'])
      : undefined
  ])
  const failed = [status, log, submoduleLog].find(r => r !== undefined && r.exitCode !== 0)
  const findings: Findings = {
    uncommitted: status
      ? parseStatus(status.stdout)
          .filter(e => !(e.code === '??' && input.ownLinks.includes(e.path)))
          .map(e => `${e.code} ${e.path}`)
      : [],
    unsavedCommits: [...log.stdout.split('\n'), ...(submoduleLog?.stdout.split('\n') ?? [])].filter(Boolean)
  }
  if (failed) findings.error = failed.stderr.trim() || `git exited with code ${failed.exitCode}`
  return findings
}

export function hasUnsavedWork(findings: Findings): boolean {
  return findings.uncommitted.length > 0 || findings.unsavedCommits.length > 0
}

export type Verdict = 'keep-asked' | 'keep-unsaved' | 'keep-unknown' | 'remove-clean' | 'remove-discard'

/** Remove only what is proven clean, or what the workflow said to discard; unknown state is always kept. */
export function decide(onExit: OnExit, discardChanges: boolean, findings: Findings): Verdict {
  if (onExit === 'keep') return 'keep-asked'
  if (findings.error !== undefined) return 'keep-unknown'
  if (!hasUnsavedWork(findings)) return 'remove-clean'
  return discardChanges ? 'remove-discard' : 'keep-unsaved'
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** "2 uncommitted files and 1 unsaved commit", or "nothing unsaved". */
export function describeFindings(findings: Findings): string {
  const parts: string[] = []
  if (findings.uncommitted.length) parts.push(plural(findings.uncommitted.length, 'uncommitted file'))
  if (findings.unsavedCommits.length) parts.push(plural(findings.unsavedCommits.length, 'unsaved commit'))
  return parts.length ? parts.join(' and ') : 'nothing unsaved'
}
