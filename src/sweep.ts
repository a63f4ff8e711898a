// At enter, finish what earlier jobs left behind on a machine that outlives its jobs: worktrees whose job
// is provably over and whose post never ran (or was cut off) go through the same gate as an exit;
// worktrees kept on purpose are reported, never touched.
import * as core from '@actions/core'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { exitWorktree } from './exit-worktree.js'
import { currentOwner, inRunner, jobOver, lockToken, type Owner } from './ownership.js'
import { samePath } from './paths.js'
import { defaultWorktreesDir } from './plan.js'
import { withRepositoryLock } from './repository-lock.js'
import { KEPT_REFS } from './rescue.js'
import { oneLine, report } from './report.js'
import { adminDirs, folderOf, isOrphanFolder, lockOf, type Repository } from './repository.js'
import { readRecordFile, type WorktreeRecord } from './state-helper.js'
import { expireParked } from './worktree-pool.js'

export interface Leftover {
  record: WorktreeRecord
  /** Why its job is over. */
  over: string
  /** Kept on purpose (on-exit: keep, or kept by an exit): reported only. */
  kept: boolean
}

/**
 * Worktrees this action made for jobs that are provably over: the lock carries the record's token, the
 * record belongs to this repository's git dir, and the owner is an earlier job of this runner, a job
 * whose runner process on this host has ended, or one older than any job can be. Outside a runner: none.
 */
export function findLeftovers(repo: Repository, keptIds: Set<string>, me: Owner = currentOwner()): Leftover[] {
  if (!inRunner(me)) return []
  const leftovers: Leftover[] = []
  for (const gitDir of adminDirs(repo.commonDir)) {
    const token = lockToken(lockOf(gitDir))
    const record = readRecordFile(gitDir)
    if (!token || record?.token !== token || !record.owner || !folderOf(gitDir)) continue
    if (!samePath(record.commonDir ?? '', repo.commonDir) || (record.id !== undefined && record.id !== path.basename(gitDir))) continue
    const over = jobOver(record.owner, me)
    if (!over) continue
    const id = path.basename(gitDir)
    leftovers.push({ record: { ...record, id }, over, kept: record.onExit === 'keep' || record.exited === 'keep' || keptIds.has(id) })
  }
  return leftovers
}

export async function sweep(repo: Repository, me: Owner = currentOwner(), env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // A GitHub-hosted runner gives every job a fresh machine: nothing can be left there.
  if (!inRunner(me) || env.RUNNER_ENVIRONMENT === 'github-hosted') return
  if (fs.existsSync(path.join(repo.commonDir, 'worktrees'))) {
    const expired = await withRepositoryLock(repo.commonDir, () => expireParked(repo, me))
    if (expired.length) core.info(oneLine(`Removed ${expired.length} worktree(s) parked in the pool for more than a day: ${expired.join(', ')}.`))
  }
  const kept: string[] = []
  // Kept worktrees are marked by a ref too, which the record in their git dir cannot take back.
  const marks = await repo.git.run(['for-each-ref', '--format=%(refname)', KEPT_REFS])
  const keptIds = new Set(
    marks.stdout
      .split('\n')
      .filter(Boolean)
      .map(ref => ref.slice(KEPT_REFS.length).split('/')[0])
  )
  for (const { record, over, kept: onPurpose } of findLeftovers(repo, keptIds, me)) {
    if (onPurpose) {
      kept.push(`${folderOf(path.join(repo.commonDir, 'worktrees', record.id!)) ?? record.path} (by ${over})`)
      continue
    }
    const result = await exitWorktree(record, { onExit: 'remove', discardChanges: false, step: 'sweep', trusted: false, rescue: [] }, repo)
    report({ ...result, message: `Left by ${over}: ${result.message}` })
  }
  if (kept.length) core.info(oneLine(`Kept by earlier jobs, left as they are: ${kept.join(', ')}. Enter one with path to work on or remove it.`))
  reportOrphans(repo)
}

/**
 * Folders in the default worktrees folder whose registration is gone (a repository recreated by the
 * next actions/checkout, for one): their files may be someone's work, so they are reported, never deleted.
 */
function reportOrphans(repo: Repository): void {
  const dir = defaultWorktreesDir(repo.toplevel)
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return
  }
  const orphans = names.map(name => path.join(dir, name)).filter(folder => isOrphanFolder(repo.commonDir, folder))
  if (orphans.length) {
    core.warning(
      `Found ${orphans.length} worktree folder(s) that ${repo.toplevel} no longer knows (was the repository recreated?): ${orphans.join(', ')}. Their files are left as they are: copy out what is needed, then delete the folders.`,
      { title: 'agent-worktree' }
    )
  }
}
