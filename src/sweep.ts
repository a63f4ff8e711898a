// At enter, clean up what earlier jobs of this runner left behind: one runner runs one job at a time,
// so a worktree that an earlier job of the same runner created is no longer in use.
import * as core from '@actions/core'
import { exitWorktree } from './exit-worktree.js'
import { withRepositoryLock } from './repository-lock.js'
import { expireParked, PARKED_MAX_AGE_MS, parkedSince } from './worktree-pool.js'
import { report } from './report.js'
import type { WorktreeEntry } from './porcelain.js'
import { adminDirOf, listWorktrees, type Repository } from './repository.js'
import { currentJob, readRecordFile, type WorktreeRecord } from './state-helper.js'

/** Leftovers of earlier jobs of this runner: created by this action, not kept on purpose. */
export function findLeftovers(repo: Repository, entries: WorktreeEntry[], env: NodeJS.ProcessEnv = process.env): WorktreeRecord[] {
  const me = currentJob(env)
  // Without a runner name nothing tells one machine's jobs from another's: touch nothing.
  if (!me.runner) return []
  const leftovers: WorktreeRecord[] = []
  for (const entry of entries.slice(1)) {
    if (!entry.locked?.startsWith('agent-worktree ')) continue
    const adminDir = adminDirOf(repo.commonDir, entry.path)
    const record = adminDir ? readRecordFile(adminDir) : undefined
    if (!record?.created || !record.owner) continue
    if (record.owner.runner !== me.runner) continue
    if (record.owner.run === me.run && record.owner.job === me.job) continue // this job's own
    if (record.onExit === 'keep' || record.exited === 'keep') continue // kept on purpose
    if (!entry.locked.startsWith(`agent-worktree ${record.token}:`)) continue
    leftovers.push(record)
  }
  return leftovers
}

export async function sweep(repo: Repository): Promise<void> {
  const entries = await listWorktrees(repo)
  if (entries.some(e => Date.now() - (parkedSince(e) ?? Date.now()) >= PARKED_MAX_AGE_MS)) {
    const expired = await withRepositoryLock(repo.commonDir, async () => expireParked(repo, await listWorktrees(repo)))
    if (expired.length) core.info(`Removed ${expired.length} worktree(s) parked in the pool for more than a day: ${expired.join(', ')}.`)
  }
  for (const record of findLeftovers(repo, entries)) {
    const result = await exitWorktree(record, { onExit: 'remove', discardChanges: false, step: 'sweep' }, repo)
    report({ ...result, message: `Left by an earlier job on this runner: ${result.message}` })
  }
}
