// What an exit may believe about the worktree it exits, decided once, where the record comes in: the post
// step's record is its own state; the exit sub-action's is the record file in the worktree's git dir,
// believed when it carries this job's seal; the sweep's is that file, a hint. A fact that only the step's
// own record may vouch for is absent from the evidence of the others, so no reader can forget to check.
import type { FilterDriver } from '../record/state-helper.js'
import type { SharedState } from '../shared/shared-state.js'
import type { StoreList } from '../git/object-store.js'
import { readStepFile, type BroughtIn, type PushTarget, type WorktreeRecord } from '../record/state-helper.js'

/** Where the record came from: the post's own state, a record file sealed by this job, or a hint. */
export type Source = 'state' | 'sealed' | 'hint'

/**
 * What every reader may use: who the worktree is (each proven against its git dir before it counts) and the
 * settings of enter. How to exit comes with the exit's own options.
 */
export type Stated = Pick<
  WorktreeRecord,
  | 'token'
  | 'id'
  | 'repository'
  | 'commonDir'
  | 'path'
  | 'name'
  | 'branch'
  | 'created'
  | 'links'
  | 'rescueMaxBytes'
  | 'recycle'
  | 'priorLock'
  | 'fileMode'
  | 'pinned'
  | 'original'
  | 'owner'
  | 'leg'
  | 'isolation'
>

/** What only the step's own record vouches for. */
export interface Believed {
  /** The commit a created worktree started from: its history is not the agent's. */
  base?: string
  /** When the worktree was taken from the pool: older reflog entries are earlier jobs'. */
  since?: number
  /** The machine goes with the job (GitHub-hosted): only what leaves it is saved. */
  ephemeral: boolean
  /** The next job's actions/checkout prepares the repository: its local branches and tags do not outlive the job. */
  inWorkspace: boolean
  /** The main step never finished the worktree's checkout: no index is expected, nothing in it is anyone's work. */
  checkoutUnfinished: boolean
  /** Filter drivers of enter: the only programs a gate lets git run. */
  filters?: Record<string, FilterDriver>
  /** Where a rescue pushes: the remote's URL of enter, which only the step's own record knows. */
  push?: PushTarget
  /** The URL each submodule of the base had at enter, by its path: the only remote whose word saves a commit there. */
  submodules?: Record<string, string>
  /** The branch was created with the worktree and may go with it (otherwise only if the worktree has it checked out). */
  ownBranch: boolean
  /** This step's own main may have been cut short in the middle of its add (the post of a create). */
  ownAdd: boolean
  /** What the job brought in: the ignore rules of enter, and the files include-file copied. */
  brought?: BroughtIn
  /** What every worktree of the repository shared once the main step had entered. */
  shared?: SharedState
  /** A clone's commit whose parents are what it borrowed from the original: saved, as the original keeps it. */
  borrowed?: string
  /** The outermost folder the main step made for the worktree: what is empty of it goes with the last worktree. */
  madeFolder?: string
  /** The shallow file of the repository when the agent got it (shallow-file.ts). */
  shallow?: string
  /** The files of its object store when the agent got it (object-store.ts); without them, every object there is verified. */
  objects?: StoreList
}

export interface Evidence extends Stated {
  source: Source
  believed: Believed
  /** The record itself, when it is the step's own: it may be written back sealed. */
  own?: WorktreeRecord
}

export function evidenceOf(record: WorktreeRecord, source: Source, env: NodeJS.ProcessEnv = process.env): Evidence {
  const own = source !== 'hint'
  const stated: Stated = {
    token: record.token,
    id: record.id,
    repository: record.repository,
    commonDir: record.commonDir,
    path: record.path,
    name: record.name,
    branch: record.branch,
    created: record.created,
    links: record.links,
    rescueMaxBytes: record.rescueMaxBytes,
    recycle: record.recycle,
    priorLock: record.priorLock,
    fileMode: record.fileMode,
    pinned: record.pinned,
    original: record.original,
    owner: record.owner,
    leg: record.leg,
    isolation: record.isolation
  }
  const believed: Believed = own
    ? {
        base: record.created ? record.baseSha || undefined : undefined,
        since: record.taken ? Date.parse(record.taken) : undefined,
        ephemeral: record.ephemeral,
        inWorkspace: record.inWorkspace,
        checkoutUnfinished: record.created && !record.checkedOut,
        filters: record.filters,
        push: record.push,
        submodules: readStepFile<Record<string, string>>(record.submodules),
        ownBranch: record.created,
        ownAdd: source === 'state' && record.created,
        brought: readStepFile<BroughtIn>(record.brought),
        shared: readStepFile<SharedState>(record.shared),
        borrowed: record.borrowed,
        madeFolder: record.madeFolder,
        shallow: record.shallow,
        objects: readStepFile<StoreList>(record.objects)
      }
    : {
        ephemeral: env.RUNNER_ENVIRONMENT === 'github-hosted',
        // A hint never makes a local branch or tag saved.
        inWorkspace: true,
        checkoutUnfinished: false,
        ownBranch: false,
        ownAdd: false
      }
  return { ...stated, source, believed, own: own ? record : undefined }
}
