// At enter, finish what earlier jobs left behind on a machine that outlives its jobs: worktrees whose job
// is provably over and whose post never ran (or was cut off) go through the same gate as an exit;
// worktrees kept on purpose are reported, never touched.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { evidenceOf } from '../exit/evidence.js'
import { exitWorktree, reclaimLeftover } from '../exit/exit-worktree.js'
import { reclaimOf } from '../exit/exit-options.js'
import { currentOwner, inRunner, jobOver, recordMatchesLock, sweepsHere, type Owner } from '../record/ownership.js'
import { samePath } from '../os/paths.js'
import { KINDS, kindFor } from '../exit/kinds/kind.js'
import { defaultWorktreesDir } from '../record/names.js'
import { withRepositoryLock } from '../git/repository-lock.js'
import { keptId, KEPT_REFS } from '../record/refs.js'
import { report } from '../runner/report/exit.js'
import { reportReclaimed, reportSweep, writeSweepSummary, type KeptWorktree, type Swept } from '../runner/report/enter.js'
import { isOrphanFolder, lockOf, type Repository } from '../git/repository.js'
import { readRecordFile, writeHints, type WorktreeRecord } from '../record/state-helper.js'
import { diskUsage } from '../os/disk-usage.js'
import type { Reclaimed } from '../exit/reclaim.js'
import { kindOf } from '../os/untrusted-files.js'
import { anyExpiring, expireParked } from '../exit/worktree-pool.js'
import type { OnRemote } from '../remote/tips.js'

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
export function findLeftovers(repo: Repository, keptIds: Set<string>, worktreesDir: string, me: Owner = currentOwner()): Leftover[] {
  if (!inRunner(me)) return []
  const leftovers: Leftover[] = []
  for (const [kind, entry] of KINDS.flatMap(kind => kind.entries(repo.commonDir).map(entry => [kind, entry] as const))) {
    const record = readRecordFile(entry)
    if (!recordMatchesLock(lockOf(entry), record) || !record.owner) continue
    // A record says what it is; where it lies decides. A clone is where its record says, only if a main step made it there.
    if (kindFor(record) !== kind || !kind.madeFolder(repo.commonDir, entry, record.path, worktreesDir)) continue
    if (!samePath(record.commonDir ?? '', repo.commonDir) || (record.id !== undefined && record.id !== path.basename(entry))) continue
    const over = jobOver(record.owner, me)
    if (!over) continue
    const id = path.basename(entry)
    leftovers.push({ record: { ...record, id }, over, kept: record.onExit === 'keep' || record.exited === 'keep' || keptIds.has(id) })
  }
  return leftovers
}

/** `worktreesDir`: where this job's main step makes worktrees, the only folder whose clones it believes a main step made. */
export async function sweep(
  repo: Repository,
  onRemote: () => Promise<OnRemote>,
  worktreesDir: string,
  me: Owner = currentOwner(),
  env: NodeJS.ProcessEnv = process.env
): Promise<void> {
  // A GitHub-hosted runner gives every job a fresh machine: nothing can be left there.
  if (!inRunner(me) || !sweepsHere(env)) return
  const expired = (await anyExpiring(repo, worktreesDir)) ? await withRepositoryLock(repo.commonDir, () => expireParked(repo, onRemote, worktreesDir, me)) : []
  const kept: Swept['kept'] = []
  const staying: Staying[] = []
  const leftovers = findLeftovers(repo, new Set(), worktreesDir, me)
  // Kept worktrees are marked by a ref too, which the record in their git dir cannot take back: read where there is a leftover.
  const marks = leftovers.length ? await repo.git.run(['for-each-ref', '--format=%(refname)', KEPT_REFS]) : undefined
  const keptIds = new Set((marks?.stdout ?? '').split('\n').filter(Boolean).map(keptId))
  for (const { record, over, kept: byRecord } of leftovers) {
    const onPurpose = byRecord || keptIds.has(record.id!)
    const kind = kindFor(record)
    const entry = kind.entry(repo.commonDir, record.id!)
    // Kept by its job: left as it is, but for the ignored folders its record's reclaim rule names.
    if (onPurpose) {
      const at = kind.folder(entry, record.path) ?? record.path
      kept.push({ path: at, over })
      const reclaimed = await reclaimLeftover(evidenceOf(record, 'hint'), repo, reclaimOf(record))
      reportReclaimed(reclaimed, at)
      staying.push({ entry, path: at, since: record.owner.since, reclaimed })
      continue
    }
    const result = await exitWorktree(
      evidenceOf(record, 'hint'),
      { onExit: 'remove', discardChanges: false, step: 'sweep', rescue: [], onRemote, reclaim: reclaimOf(record) },
      repo
    )
    report(result, `Left by ${over}: `)
    if (!result.removed && result.reason !== 'gone') staying.push({ entry, path: result.path, since: record.owner.since, reclaimed: result.reclaimed })
  }
  const swept = { repository: repo.toplevel, expired, kept, orphans: orphans(repo), worktrees: sized(staying) }
  reportSweep(swept)
  await writeSweepSummary(swept)
}

/** A worktree an ended job left that stays: where this action keeps its record, where it is, since when, what it gave back. */
interface Staying {
  entry: string
  path: string
  since: string
  reclaimed?: Reclaimed
}

/**
 * The worktrees that stay, with their age and size. A size is measured once and noted in the record file (a
 * hint, shown only), again after a reclaim: a kept worktree no job works in does not change.
 */
function sized(staying: Staying[]): KeptWorktree[] {
  return staying
    .filter(s => kindOf(s.path) === 'directory')
    .map(s => {
      const noted = readRecordFile(s.entry)?.size
      if (noted && !s.reclaimed?.folders.length && typeof noted.bytes === 'number')
        return { path: s.path, since: s.since, bytes: noted.bytes, reclaimed: s.reclaimed }
      const bytes = diskUsage(s.path)?.bytes ?? 0
      writeHints(s.entry, { size: { bytes, at: new Date().toISOString() } })
      return { path: s.path, since: s.since, bytes, reclaimed: s.reclaimed }
    })
}

/**
 * Folders in the default worktrees folder whose registration is gone (a repository recreated by the
 * next actions/checkout, for one): their files may be someone's work, so they are reported, never deleted.
 */
function orphans(repo: Repository): string[] {
  const dir = defaultWorktreesDir(repo.toplevel)
  const names = kindOf(dir) === 'directory' ? fs.readdirSync(dir) : []
  return names.map(name => path.join(dir, name)).filter(folder => isOrphanFolder(repo.commonDir, folder))
}
