// The isolation is a kind: a linked worktree of the original repository, or a repository of the agent's own that
// borrows the original's objects (isolation: clone). What differs between the two is said here, by each kind in a
// file of its own; the exit, the pool and enter do the rest once, over the kind, which is chosen once where the
// record is located (kindFor). Another kind is another file.
import type { Repository } from '../../git/repository.js'
import { type GateInput } from '../../gate/safety-gate.js'
import { type OnRemote } from '../../remote/tips.js'
import type { Isolation } from '../../record/settings.js'
import type { PushTarget, RecordFile, WorktreeRecord } from '../../record/state-helper.js'
import type { NextCheckoutFacts } from '../next-checkout.js'
import { cloneKind } from './clone.js'
import { worktreeKind } from './worktree.js'

/** One of a kind parked in the pool. */
export interface Parked {
  /** Where this action keeps its lock and record. */
  entry: string
  gitDir: string
  folder: string
  /** When it was parked. */
  since: number
  /** Its lock reason, as written. */
  lock: string
  record?: RecordFile
}

/** One made, or taken from the pool, for a record: where this action keeps its lock and record, and what it borrowed. */
export interface Made {
  entry: string
  /** A clone's commit whose parents are what it borrows from the original. */
  borrowed?: string
}

/** How one is made: under the lock reason of the job; `also`, commits it needs besides its base (a restored rescue). */
export interface Making {
  lockReason: string
  also: string[]
  /** The error of a refused make, from what git said. */
  refused: (said: string) => Error
}

export interface Kind {
  /**
   * A repository of its own (a clone): its git dir, refs and objects lie in its folder and go with it, and none of
   * its branches is the original's.
   */
  readonly ownRepository: boolean
  /** Every folder of ours of this kind in the repository: where this action keeps the lock and record of one. */
  entries(commonDir: string): string[]
  /** The folder of ours of the one whose id is `id`. */
  entry(commonDir: string, id: string): string
  /**
   * Its folder, for a record the caller vouches for (`recorded`: the post's own, the exit's sealed): where git's entry
   * says, or where the record says (a clone's entry lies where agents of worktrees may write: its gitdir is never read).
   */
  folder(entry: string, recorded: string): string | undefined
  /**
   * Its folder by another job's record, a hint (`recorded`: its path): only one such as a main step makes in
   * `worktreesDir`, where this job's main step makes them; undefined otherwise.
   */
  madeFolder(commonDir: string, entry: string, recorded: unknown, worktreesDir: string): string | undefined
  /** Where git keeps the state (HEAD, index, reflogs) of the one of `entry`, whose folder is at `folder`. */
  gitDir(entry: string, folder: string): string
  /** What its folder's .git must name (checkFolder): its git dir. */
  pointer(gitDir: string): string
  /** The repository that holds its objects and refs: the original, or its own. */
  own(repo: Repository, gitDir: string): Repository
  /** What the gate needs besides: the common dir it judges in, and what a clone borrowed (`borrowed`: as recorded). */
  gateFacts(repo: Repository, entry: string, gitDir: string, borrowed?: string): Promise<Pick<GateInput, 'commonDir' | 'clone'>>
  /** How the remote's word is checked for one parked: `shared`, the original's answer, serves where its objects are the original's. */
  parkedRemote(repo: Repository, gitDir: string, push: PushTarget | undefined, shared: () => Promise<OnRemote>): () => Promise<OnRemote>
  /**
   * The object store that is its alone and goes with it to the next job: a clone's own (what it borrows is the
   * original's, which its agent cannot write); none for a worktree, whose store every job shares.
   */
  ownObjects(gitDir: string): string | undefined
  /** Those parked in the pool, newest first: of a clone, only one parked in `worktreesDir` (madeFolder). */
  listParked(repo: Repository, worktreesDir: string): Promise<Parked[]>
  /** Moves a parked one, proven untouched, to the record's path and makes it the job's; undefined when it cannot be moved (it stays parked). */
  take(repo: Repository, parked: Parked, record: WorktreeRecord, making: Making): Promise<Made | undefined>
  /** Makes a new one for the record, on a new branch at the base, without checking out its files. */
  make(repo: Repository, record: WorktreeRecord, making: Making): Promise<Made>
  /** The checkout of one taken from the pool: its files go from the last job's to the base. */
  takenCheckout(branch: string): string[]
  /**
   * Brings `commit`, which it has, into the original under `ref`. `from`: the ref of its own repository that holds the
   * commit now, which goes once it is in.
   */
  bringIn(repo: Repository, gitDir: string, commit: string, ref: string, from?: string): Promise<void>
  /** Makes a kept one survive the next job's actions/checkout; returns the branch it was detached from. */
  surviveNextCheckout(repo: Repository, facts: NextCheckoutFacts, gitDir: string, folder: string, lock?: { timeoutMs: number }): Promise<{ detached?: string }>
  /** Drops what the original keeps for one whose folder is gone (the caller holds the repository lock); `token`: its kept mark's. */
  forget(repo: Repository, entry: string, token: string): Promise<void>
}

/** Every kind, in the order the sweep and the pool go through them. */
export const KINDS: readonly Kind[] = [worktreeKind, cloneKind]

/** The kind of a record: chosen once, where the record is located. */
export function kindFor(record: { isolation?: Isolation }): Kind {
  return record.isolation === 'clone' ? cloneKind : worktreeKind
}
