// What the workflow asks of an exit and a rescue, as every layer reads it, and the error that names a bad input.
import { quoted } from '../os/quote.js'

export type OnExit = 'keep' | 'remove'
export type RescueTarget = 'artifact' | 'branch'
/** What the agent gets: a linked worktree of the repository, or a repository of its own that borrows its objects. */
export type Isolation = 'worktree' | 'clone'
/** What a new worktree starts from besides its base: the rescue the previous attempt left (auto), or one by name. */
export type RestoreRequest = 'auto' | { kind: RescueTarget; name: string }
/** What an exit pushes the worktree's HEAD to: the branch of this name on the remote, or (none given) the worktree's own. */
export interface PushRequest {
  branch?: string
}
/** A pull request of the pushed branch, opened at exit: a draft or not, and its title (none given: the agent's first commit's subject). */
export interface PullRequestRequest {
  draft: boolean
  title?: string
}

/**
 * What a kept worktree gives back of its ignored folders (the reclaim input): those matching the gitignore-style
 * patterns, and with `tagged` those holding a CACHEDIR.TAG (the Cache Directory Tagging specification's).
 */
export interface Reclaim {
  patterns: string[]
  tagged: boolean
}

/** A bad input: names the input, the value (quoted: it may hold any character) and the fix. */
/** A value is quoted up to this many characters in an error: a line of the log stays one a person can read. */
const SHOWN_CHARACTERS = 200

function shown(value: string): string {
  const chars = [...value]
  if (chars.length <= SHOWN_CHARACTERS) return quoted(value)
  return `${quoted(chars.slice(0, SHOWN_CHARACTERS).join(''))} (its first ${SHOWN_CHARACTERS} characters of ${chars.length})`
}

export class InputError extends Error {
  constructor(
    readonly input: string,
    readonly value: string,
    problem: string,
    fix: string
  ) {
    super(`Input '${input}' has the value ${shown(value)}: ${problem}. ${fix}`)
  }
}
