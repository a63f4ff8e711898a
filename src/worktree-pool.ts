// The worktree pool (recycle: true): a worktree the gate proved clean is parked instead of deleted, and
// the next job takes it and moves it to its own base, which rewrites only the files that differ.
// Every function here runs under the repository lock, so two legs never park or take the same one.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from './git-command-manager.js'
import type { WorktreeEntry } from './porcelain.js'
import { adminDirOf, type Repository, worktreeGit } from './repository.js'
import { writeRecordFile, type WorktreeRecord } from './state-helper.js'

/** Parked worktrees of one repository, at most; beyond, a clean worktree is deleted as without recycle. */
export const POOL_SIZE = 8
/** A parked worktree older than this is removed by the sweep. */
export const PARKED_MAX_AGE_MS = 24 * 60 * 60 * 1000

const PARKED = 'agent-worktree parked '

export function parkedSince(entry: WorktreeEntry): number | undefined {
  if (!entry.locked?.startsWith(PARKED)) return undefined
  const since = Date.parse(entry.locked.slice(PARKED.length))
  return Number.isNaN(since) ? undefined : since
}

/**
 * Parks a worktree that the gate proved clean: HEAD detached, its branch deleted, untracked and ignored
 * files cleaned (nothing leaks from one job to the next), locked as parked. False when the pool is full.
 */
export async function park(repo: Repository, record: WorktreeRecord, adminDir: string, entries: WorktreeEntry[], lock: string | undefined): Promise<boolean> {
  if (entries.filter(e => parkedSince(e) !== undefined).length >= POOL_SIZE) return false
  const git = worktreeGit(adminDir, record.path)
  await git.exec(['checkout', '--quiet', '--detach'])
  await git.exec(['clean', '-ffdxq'])
  if (record.created && record.branch) await repo.git.exec(['branch', '-D', record.branch])
  const since = new Date().toISOString()
  if (lock !== undefined) await repo.git.exec(['worktree', 'unlock', record.path])
  await repo.git.exec(['worktree', 'lock', '--reason', `${PARKED}${since}`, record.path])
  writeRecordFile(adminDir, { ...record, parked: since })
  return true
}

/**
 * Takes a parked worktree for `record`: checks it is clean, ignored files included, writes the new record
 * into its git dir first (a step cut short afterwards finds it), moves it to the new path, locks it as the
 * job's, and creates the new branch at the base. Returns its git dir, or undefined when none could be taken.
 */
export async function takeParked(repo: Repository, record: WorktreeRecord, entries: WorktreeEntry[], lockReason: string): Promise<string | undefined> {
  const parked = entries.filter(e => parkedSince(e) !== undefined).sort((a, b) => parkedSince(b)! - parkedSince(a)!)
  for (const entry of parked) {
    const adminDir = adminDirOf(repo.commonDir, entry.path)
    if (!adminDir || !fs.existsSync(entry.path)) continue
    const status = await worktreeGit(adminDir, entry.path).run(['status', '--porcelain', '--ignored', '--untracked-files=all'])
    if (status.exitCode !== 0 || status.stdout !== '') {
      // Someone used it while it was parked: it is theirs now, no longer the pool's.
      await repo.git.run(['worktree', 'unlock', entry.path])
      await repo.git.run(['worktree', 'lock', '--reason', 'agent-worktree: taken out of the pool, it was not clean', entry.path])
      continue
    }
    writeRecordFile(adminDir, record)
    await repo.git.exec(['worktree', 'unlock', entry.path])
    fs.mkdirSync(path.dirname(record.path), { recursive: true })
    const moved = await repo.git.run(['worktree', 'move', entry.path, record.path])
    if (moved.exitCode !== 0) {
      // Another file system, for one: leave it parked.
      await repo.git.exec(['worktree', 'lock', '--reason', entry.locked!, entry.path])
      continue
    }
    await repo.git.exec(['worktree', 'lock', '--reason', lockReason, record.path])
    await repo.git.exec(['branch', record.branch, record.baseSha])
    return adminDir
  }
  return undefined
}

/** Checks out the new branch in a worktree taken from the pool, and checks it is clean and at the base. */
export async function checkOutTaken(record: WorktreeRecord): Promise<void> {
  const git = new Git(record.path)
  await git.exec(['checkout', '--quiet', record.branch])
  const [head, status] = await Promise.all([git.exec(['rev-parse', 'HEAD']), git.exec(['status', '--porcelain', '--untracked-files=all'])])
  if (head.trim() !== record.baseSha || status !== '') {
    throw new Error(`the worktree taken from the pool is not clean at ${record.baseSha} after checkout: ${status.trim() || head.trim()}`)
  }
}

/** Removes parked worktrees older than the limit; git itself refuses any that is not clean. */
export async function expireParked(repo: Repository, entries: WorktreeEntry[], now = Date.now()): Promise<string[]> {
  const removed: string[] = []
  for (const entry of entries) {
    const since = parkedSince(entry)
    if (since === undefined || now - since < PARKED_MAX_AGE_MS) continue
    await repo.git.exec(['worktree', 'unlock', entry.path])
    const removal = await repo.git.run(['worktree', 'remove', entry.path])
    if (removal.exitCode === 0) removed.push(entry.path)
    else await repo.git.run(['worktree', 'lock', '--reason', entry.locked!, entry.path])
  }
  return removed
}
