// The enter's lines: what the main step entered, what act will do with it, what a restore put back, what the
// pool handed out or held back, what the sweep of earlier jobs' worktrees did (words.ts: how names are shown).
import { core } from '../toolkit.js'
import * as path from 'node:path'
import type { ActFate } from '../act.js'
import { oneLine, quoted } from '../../os/quote.js'
import type { Nothing } from '../../rescue/find-rescue.js'
import type { Restored } from '../../rescue/restore.js'
import type { Findings } from '../../gate/findings.js'
import type { WorktreeRecord } from '../../record/state-helper.js'
import type { HeldBack } from '../../exit/worktree-pool.js'
import type { Reclaimed } from '../../exit/reclaim.js'
import { describeAge, describeBytes, describeFindings, describeReclaimed, listed } from './words.js'
import { html } from './summary.js'

/** What every worktree shares could not be read at enter: the exit will not say what changed in it. */
export function reportSharedUnread(why: string): void {
  core.info(oneLine(`What every worktree of the repository shares (refs, config, hooks) could not be read, so the exit will not report changes to it: ${why}`))
}

/** What the main step entered, and what act will do with it. */
export function reportEntered(record: Pick<WorktreeRecord, 'created' | 'path' | 'branch' | 'baseSha'>, fate: ActFate | undefined): void {
  const note = fate && actNote(fate)
  if (note?.level === 'warning') core.warning(oneLine(note.message), { title: 'agent-worktree' })
  else if (note) core.info(oneLine(note.message))
  core.info(
    oneLine(
      `${record.created ? 'Created' : 'Entered'} worktree ${quoted(record.path)} on ${record.branch ? `branch ${quoted(record.branch)}` : 'a detached HEAD'} at ${record.baseSha.slice(0, 12)}.`
    )
  )
}

/** Under act: what goes with act's clean-up, said as a warning when unsaved work goes too, else as a line of the log. */
export function actNote(fate: ActFate): { level: 'warning' | 'info'; message: string } {
  const rescue = fate.rescued
    ? 'rescue: branch pushes unsaved work to the remote before that.'
    : 'To keep unsaved work, give repository-path a clone outside it (your own checkout), or set rescue: branch to push unsaved work to the remote.'
  if (fate.mode === 'host') {
    const goes = [
      fate.worktree && `the worktree ${quoted(fate.worktree)}`,
      fate.repository && `its branch, commits and registration (in act's copy of the repository, ${quoted(fate.repository)})`
    ].filter(Boolean)
    return {
      level: fate.rescued ? 'info' : 'warning',
      message: `Running under act in host mode, which deletes its job folder ${quoted(fate.folder)} when the job succeeds (it keeps it after a failure): ${goes.join(' and ')} go with it. ${rescue}`
    }
  }
  if (!fate.outside) {
    return {
      level: 'info',
      message: `Running under act in a container: the worktree ${quoted(fate.worktree)} stays only if act runs with --bind, which mounts the workspace ${quoted(fate.workspace)} from the disk; without --bind, act removes the workspace with the container.${fate.rescued ? ` ${rescue}` : ''}`
    }
  }
  const outside = fate.outside.repository
    ? `its repository ${quoted(fate.outside.repository)}`
    : `the worktree ${quoted(fate.outside.worktree ?? fate.worktree)}`
  return {
    level: fate.rescued ? 'info' : 'warning',
    message: `Running under act in a container, which act removes after the job with all that is not mounted from the disk (the workspace is, with --bind): ${outside} lies outside the workspace and goes with it, unless mounted. ${
      fate.rescued
        ? rescue
        : 'To keep unsaved work, set worktrees-dir to a folder inside the workspace that git ignores (for example .worktrees, listed in .gitignore) and run act with --bind, or set rescue: branch to push unsaved work to the remote.'
    }`
  }
}

/** What a restore put back into the new worktree, and what it could not. */
export function reportRestored(restored: Restored, record: Pick<WorktreeRecord, 'path' | 'branch' | 'baseSha'>): void {
  const from = `the ${restored.kind === 'branch' ? 'branch' : 'artifact'} ${quoted(restored.name)}`
  const was = restored.wasOn && restored.wasOn !== record.branch ? ` (the rescue's was ${quoted(restored.wasOn)})` : ''
  const head = !restored.head
    ? `its branch ${quoted(record.branch)} without a commit yet, as the rescue's was`
    : `HEAD at ${restored.head.slice(0, 12)} ${restored.onBranch ? `on its branch ${quoted(record.branch)}${was}` : 'detached, as it was'}`
  const kept = restored.kept.length ? ` Commits HEAD does not reach are kept as ${restored.kept.map(quoted).join(', ')}.` : ''
  const base = restored.otherBase
    ? ` The rescue was made on ${restored.otherBase.slice(0, 12)}, not on this worktree's base ${record.baseSha.slice(0, 12)}: it is restored on its own base, its history as it was.`
    : ''
  core.info(oneLine(`Restored ${from} into ${quoted(record.path)}: ${head}, the index as it was staged, the files as they were left.${kept}${base}`))
  if (restored.notRestored.length)
    core.warning(oneLine(`restore: not put back: ${listed(restored.notRestored.map(n => `${quoted(n.file)} (${n.why})`))}.`), { title: 'agent-worktree' })
}

/** restore: auto found nothing: one line. */
export function reportNothingToRestore(nothing: Nothing): void {
  if (nothing.left.length) {
    const left = nothing.left.map(({ kind, name }) => `the ${kind} ${quoted(name)}`).join(', ')
    const why =
      nothing.left.length === 1
        ? 'a branch is what anyone who may push could have made, and only an artifact of this run proves a rescue this step’s'
        : 'two rescues of one name, job and leg (a reusable workflow called twice in one job, a worktree entered again) cannot be told apart'
    core.warning(
      oneLine(
        `restore: auto restored nothing: attempt ${nothing.attempt - 1} left ${left}, and ${why}. The worktree starts from its base; restore one by name (restore: <name>) if it holds this step's work.`
      ),
      { title: 'agent-worktree' }
    )
    return
  }
  const looked = nothing.looked.join(' or ')
  core.info(
    oneLine(
      nothing.attempt === 1
        ? 'restore: auto: nothing to restore on the first attempt of a run.'
        : looked
          ? `restore: auto: attempt ${nothing.attempt - 1} left no rescue of this step (no ${looked} of its name, job and leg): the worktree starts from its base.`
          : `restore: auto: nothing to restore: this step rescues nowhere (rescue: none), so attempt ${nothing.attempt - 1} left no rescue.`
    )
  )
}

/** Why a parked worktree was taken out of the pool, in its lock and in the warning. */
export function heldBackWhy(findings: Findings): string {
  return findings.error ? `its state could not be read (${findings.error})` : `it holds ${describeFindings(findings)}`
}

/** Parked worktrees that gained work while parked: taken out of the pool and kept. */
export function reportHeldBack(heldBack: HeldBack[]): void {
  for (const held of heldBack.map(({ path, findings }) => `${quoted(path)}: ${heldBackWhy(findings)}`))
    core.warning(
      oneLine(
        `A parked worktree gained work while it was parked, so it was taken out of the pool and kept: ${held}. Look at it, and remove it by hand if nothing there is needed.`
      ),
      { title: 'agent-worktree' }
    )
}

export function reportTaken(worktree: string): void {
  core.info(oneLine(`Took ${quoted(worktree)} from the pool of parked worktrees.`))
}

export function reportTakeover(worktree: string, from: string): void {
  core.info(oneLine(`Taking over ${quoted(worktree)} from ${from}.`))
}

/** What symlink-dirs linked and include-file copied, and what not, with why. */
export function reportPrepared(prepared: {
  toplevel: string
  missingLinks: string[]
  /** Each as said: its folder quoted, and why. */
  unlinked: string[]
  includeFile?: string
  copied: string[]
  notCopied: { file: string; why: string; outside: boolean }[]
}): void {
  const { toplevel, missingLinks, unlinked, includeFile, copied, notCopied } = prepared
  if (missingLinks.length)
    core.warning(oneLine(`symlink-dirs: ${missingLinks.map(quoted).join(', ')} not found in ${quoted(toplevel)}, so not linked.`), { title: 'agent-worktree' })
  if (unlinked.length) core.warning(oneLine(`symlink-dirs: not linked: ${unlinked.join(', ')}.`), { title: 'agent-worktree' })
  if (!includeFile) return
  core.info(
    oneLine(
      `Copied ${copied.length} ignored file(s) that ${quoted(path.relative(toplevel, includeFile))} names${copied.length ? `: ${copied.map(quoted).join(', ')}` : ''}.`
    )
  )
  const outside = notCopied.filter(n => n.outside).map(n => `${quoted(n.file)} (${n.why})`)
  if (outside.length)
    core.warning(oneLine(`include-file: not copied, a folder on the way leads outside the worktree: ${outside.join(', ')}.`), { title: 'agent-worktree' })
  const others = notCopied.filter(n => !n.outside).map(n => `${quoted(n.file)} (${n.why})`)
  if (others.length) core.info(oneLine(`Not copied: ${others.join(', ')}.`))
}

/** What the sweep reclaimed in a worktree an ended job kept on purpose (an exit's reclaim is in its report). */
export function reportReclaimed(reclaimed: Reclaimed | undefined, where: string): void {
  const said = describeReclaimed(reclaimed, where)
  if (said) core.info(oneLine(said))
}

/** What the sweep of a later job did besides the exits it reports one by one. */
export interface Swept {
  repository: string
  /** Parked worktrees removed for their age. */
  expired: string[]
  /** Kept on purpose by earlier jobs: left as they are. */
  kept: { path: string; over: string }[]
  /** Folders whose registration is gone: left as they are. */
  orphans: string[]
  /** The worktrees earlier jobs left that stay, kept on purpose or for their work. */
  worktrees: KeptWorktree[]
}

/** A worktree that stays, since when (the job that entered it), its size, and what this sweep reclaimed there. */
export interface KeptWorktree {
  path: string
  since: string
  bytes: number
  reclaimed?: Reclaimed
}

/** Kept worktrees the job summary lists, the largest first. */
const LISTED_KEPT = 10

export function reportSweep(swept: Swept): void {
  if (swept.expired.length)
    core.info(oneLine(`Removed ${swept.expired.length} worktree(s) parked in the pool for more than a day: ${swept.expired.map(quoted).join(', ')}.`))
  if (swept.kept.length)
    core.info(
      oneLine(
        `Kept by earlier jobs, left as they are: ${swept.kept.map(k => `${quoted(k.path)} (by ${k.over})`).join(', ')}. Enter one with path to work on or remove it.`
      )
    )
  if (swept.orphans.length)
    core.warning(
      oneLine(
        `Found ${swept.orphans.length} worktree folder(s) that ${quoted(swept.repository)} no longer knows (was the repository recreated?): ${swept.orphans.map(quoted).join(', ')}. Their files are left as they are: copy out what is needed, then delete the folders.`
      ),
      { title: 'agent-worktree' }
    )
}

/**
 * The sweep's part of the job summary: what it reclaimed, and the worktrees that stay on this machine, the ten
 * largest with their age and size, and how to remove one; nothing when none stays.
 */
export async function writeSweepSummary(swept: Swept, now = Date.now()): Promise<void> {
  if (!swept.worktrees.length) return
  const largest = [...swept.worktrees].sort((a, b) => b.bytes - a.bytes).slice(0, LISTED_KEPT)
  const total = swept.worktrees.reduce((sum, w) => sum + w.bytes, 0)
  const reclaimed = swept.worktrees.flatMap(w => w.reclaimed?.folders ?? [])
  const freed = reclaimed.reduce((sum, f) => sum + f.bytes, 0)
  try {
    await core.summary
      .addHeading(`agent-worktree: worktrees kept in ${html(quoted(swept.repository))}`, 3)
      .addRaw(
        `<p>${swept.worktrees.length} worktree(s) that earlier jobs kept stay on this machine, ${describeBytes(total)} in all${
          swept.worktrees.length > LISTED_KEPT ? `; the ${LISTED_KEPT} largest` : ''
        }. This sweep reclaimed ${describeBytes(freed)} of their ignored folders (the reclaim input).</p>`,
        true
      )
      .addTable([
        [
          { data: 'path', header: true },
          { data: 'age', header: true },
          { data: 'size', header: true },
          { data: 'reclaimed now', header: true }
        ],
        ...largest.map(w => [
          html(quoted(w.path)),
          describeAge(now - Date.parse(w.since)),
          describeBytes(w.bytes),
          describeBytes((w.reclaimed?.folders ?? []).reduce((sum, f) => sum + f.bytes, 0))
        ])
      ])
      .addRaw(
        `<p>To remove one once what matters in it is pushed or copied out: ${html(
          `git -C ${quoted(swept.repository)} worktree remove -f -f <path>`
        )}, then delete its branch and its ref under refs/agent-worktree/kept/ (README, Troubleshooting).</p>`,
        true
      )
      .write()
  } catch (error) {
    core.debug(oneLine(`No job summary written: ${(error as Error).message}`))
  }
}
