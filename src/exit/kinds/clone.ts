// The clone kind (isolation: clone): a repository of the agent's own at the worktree's place, its git dir the .git
// folder inside it, which borrows the original's objects (clones.ts). This action keeps its lock and record in a
// folder of ours in the original (<common dir>/agent-worktree-clones/<id>).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../../git/git-command-manager.js'
import { deleteRef } from '../../git/worktree-refs.js'
import { lockOf, type Repository } from '../../git/repository.js'
import { once } from '../../os/once.js'
import { parseLock } from '../../record/ownership.js'
import { borrowedRef, keptRef } from '../../record/refs.js'
import { CLONES_DIR, readRecordFile } from '../../record/state-helper.js'
import { remoteTips } from '../../remote/tips.js'
import { dropKeptRef } from '../../rescue/snapshot.js'
import { bringIn, cloneEntries, dropClone, makeClone } from '../clones.js'
import { madeClone } from '../made-clone.js'
import type { Kind, Parked } from './kind.js'

/** The clone as a repository: its .git, from its folder. */
function own(_repo: Repository, gitDir: string): Repository {
  return { toplevel: path.dirname(gitDir), commonDir: gitDir, git: new Git(path.dirname(gitDir), [`--git-dir=${gitDir}`]) }
}

export const cloneKind: Kind = {
  ownRepository: true,
  entries: cloneEntries,
  entry: (commonDir, id) => path.join(commonDir, CLONES_DIR, id),
  // Where the record says: the entry's gitdir is anyone's to write, and would lead a step to any folder.
  folder: (_entry, recorded) => recorded,
  madeFolder: (commonDir, _entry, recorded, worktreesDir) => (madeClone(recorded, commonDir, worktreesDir) ? recorded : undefined),
  gitDir: (_entry, folder) => path.join(folder, '.git'),
  // Its own .git folder, where the folder is.
  pointer: () => '.git',
  own,

  // What it borrowed (as recorded, or as the original's ref keeps it, which is as much the original's as its
  // remote-tracking branches are) is saved.
  gateFacts: async (repo, entry, gitDir, borrowed) => ({
    commonDir: gitDir,
    clone: { borrowed: borrowed ?? (await repo.git.resolveCommit(borrowedRef(entry))) }
  }),

  // What the last job pushed is in the clone's own objects: the remote's word is checked against those.
  parkedRemote(repo, gitDir, push) {
    const has = own(repo, gitDir).git
    return once(() => remoteTips(repo, push, has))
  },

  ownObjects: gitDir => path.join(gitDir, 'objects'),

  // Locked as parked, whose record says so and names the folder parked, one a main step made in `worktreesDir`: the
  // entry is read-only in every sandbox list, but an unconfined agent of a worktree may write it, and a folder it named
  // would lead the step anywhere. What the park proved of the files (parked-files.ts) is believed, as for a worktree.
  listParked(repo, worktreesDir) {
    const parked: Parked[] = []
    for (const entry of cloneEntries(repo.commonDir)) {
      const lock = lockOf(entry)
      const read = parseLock(lock)
      const record = readRecordFile(entry)
      if (read.kind !== 'parked' || read.since === undefined || record?.exited !== 'parked' || !record.parkedHead) continue
      if (madeClone(record.path, repo.commonDir, worktreesDir) && fs.existsSync(record.path))
        parked.push({ entry, gitDir: path.join(record.path, '.git'), folder: record.path, since: read.since, lock: lock!, record })
    }
    return Promise.resolve(parked.sort((a, b) => b.since - a.since))
  },

  /** Moved to the new path, its folder of ours the job's, its .git made anew (makeClone) but for its objects and index. */
  async take(repo, parked, record, { lockReason, also }) {
    fs.mkdirSync(path.dirname(record.path), { recursive: true })
    try {
      fs.renameSync(parked.folder, record.path)
    } catch {
      // Another file system, for one: it stays parked.
      return undefined
    }
    return makeClone(repo, record, lockReason, also, parked.entry)
  },

  make: (repo, record, { lockReason, also }) => makeClone(repo, record, lockReason, also),

  // On its new branch already (its .git made anew, with no reflog of the last job's): its files go from its index,
  // the last job's, to the base, as a checkout moves them.
  takenCheckout: () => ['read-tree', '-m', '-u', 'HEAD'],

  async bringIn(repo, gitDir, commit, ref, from) {
    await bringIn(repo, gitDir, commit, ref)
    if (from) await deleteRef(own(repo, gitDir).git, from, { log: gitDir })
  },

  // Nothing of it is in the original for the next actions/checkout to take: its branches are its own.
  surviveNextCheckout: () => Promise.resolve({}),

  // Its own git dir went with its folder; what the original kept for it goes now.
  async forget(repo, entry, token) {
    await dropKeptRef(repo.git, repo.commonDir, keptRef(entry, token))
    await dropClone(repo, entry)
  }
}
