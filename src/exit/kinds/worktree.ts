// The worktree kind: a linked worktree of the original repository, whose git dir (<common dir>/worktrees/<id>) holds
// this action's lock and record beside git's own state, and whose objects and refs are the original's.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { adminDirOf, adminDirs, folderOf, lockOf } from '../../git/repository.js'
import { unlinkRefLinks, writeRef } from '../../git/worktree-refs.js'
import { makeFolders } from '../../os/paths.js'
import { quoted } from '../../os/quote.js'
import { writeReplacing } from '../../os/untrusted-files.js'
import { parseLock } from '../../record/ownership.js'
import { keptRef } from '../../record/refs.js'
import { readRecordFile, restoreRecordFile, writeRecordFile } from '../../record/state-helper.js'
import { dropKeptRef } from '../../rescue/snapshot.js'
import { dropSparseInclude, protectFromNextCheckout } from '../next-checkout.js'
import type { Kind, Parked } from './kind.js'

export const worktreeKind: Kind = {
  ownRepository: false,
  entries: adminDirs,
  entry: (commonDir, id) => path.join(commonDir, 'worktrees', id),
  folder: entry => folderOf(entry),
  madeFolder: (_commonDir, entry) => folderOf(entry),
  gitDir: entry => entry,
  pointer: gitDir => gitDir,
  own: repo => repo,
  gateFacts: repo => Promise.resolve({ commonDir: repo.commonDir }),
  // Its commits are the original's: the answer for the original serves every parked worktree.
  parkedRemote: (_repo, _gitDir, _push, shared) => shared,
  ownObjects: () => undefined,

  // Read as git's own listing reads them (each git dir's lock and gitdir file), without a git process: a job that
  // finds nothing parked, or nothing old enough to expire, starts none for it.
  listParked(repo) {
    const parked: Parked[] = []
    for (const gitDir of adminDirs(repo.commonDir)) {
      const lock = lockOf(gitDir)
      const read = parseLock(lock)
      if (read.kind !== 'parked' || read.since === undefined) continue
      const folder = folderOf(gitDir)
      if (folder) parked.push({ entry: gitDir, gitDir, folder, since: read.since, lock: lock!, record: readRecordFile(gitDir) })
    }
    return Promise.resolve(parked.sort((a, b) => b.since - a.since))
  },

  /**
   * Writes the new record into its git dir first (a step cut short afterwards finds it), moves it to the new path,
   * locks it as the job's, and creates the new branch at the base.
   */
  async take(repo, parked, record, { lockReason }) {
    const { gitDir, folder } = parked
    writeRecordFile(gitDir, { ...record, id: path.basename(gitDir), taken: new Date().toISOString() })
    // Its own settings were the last job's (its agent could write them): the new job enters with the
    // repository's, as any new worktree does.
    fs.rmSync(path.join(gitDir, 'config.worktree'), { force: true })
    unlinkRefLinks(gitDir, 'HEAD')
    fs.rmSync(path.join(gitDir, 'locked'), { force: true })
    makeFolders(path.dirname(record.path))
    const moved = await repo.git.run(['worktree', 'move', folder, record.path])
    if (moved.exitCode !== 0) {
      // Another file system, for one: leave it parked.
      writeReplacing(path.join(gitDir, 'locked'), parked.lock)
      if (parked.record) restoreRecordFile(gitDir, parked.record)
      return undefined
    }
    writeReplacing(path.join(gitDir, 'locked'), lockReason)
    unlinkRefLinks(repo.commonDir, `refs/heads/${record.branch}`)
    await repo.git.exec(['branch', '--no-track', record.branch, record.baseSha])
    return { entry: gitDir }
  },

  async make(repo, record, { lockReason, refused }) {
    unlinkRefLinks(repo.commonDir, `refs/heads/${record.branch}`)
    // The base is a commit id, so git writes no upstream configuration for the branch.
    const added = await repo.git.run([
      'worktree',
      'add',
      '--quiet',
      '--no-checkout',
      '--lock',
      '--reason',
      lockReason,
      '-b',
      record.branch,
      record.path,
      record.baseSha
    ])
    if (added.exitCode !== 0) throw refused(added.stderr.trim())
    const entry = adminDirOf(repo.commonDir, record.path)
    if (!entry) throw new Error(`git created ${quoted(record.path)} but did not register it`)
    return { entry }
  },

  takenCheckout: branch => ['checkout', '--quiet', branch],

  async bringIn(repo, _gitDir, commit, ref, from) {
    // Its objects and refs are the original's: a ref of its own is in the original already.
    if (from !== ref) await writeRef(repo.git, ref, commit, { log: repo.commonDir, message: 'agent-worktree: kept' })
  },

  surviveNextCheckout: protectFromNextCheckout,

  async forget(repo, entry, token) {
    fs.rmSync(entry, { recursive: true, force: true })
    try {
      fs.rmdirSync(path.dirname(entry)) // .git/worktrees, when it was the last one, as git does
    } catch {
      // others remain
    }
    // A kept mark of an earlier exit (the worktree was kept, then taken over or exited again) goes with it, and
    // so does the include of its own configuration that a kept sparse worktree got.
    await dropKeptRef(repo.git, repo.commonDir, keptRef(entry, token))
    await dropSparseInclude(repo.git, repo.commonDir, entry)
  }
}
