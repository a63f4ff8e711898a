// Exits a worktree: keep it, or remove it when the safety gate allows. Shared by the post step and the exit sub-action.
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { OnExit } from './input-helper.js'
import { compareSnapshots, snapshotCheckout } from './isolation.js'
import { ownLinks } from './prepare-worktree.js'
import { park } from './worktree-pool.js'
import { withRepositoryLock } from './repository-lock.js'
import type { WorktreeEntry } from './porcelain.js'
import { adminDirOf, adminDirs, findWorktree, listWorktrees, openRepository, samePath, worktreeGit, type Repository } from './repository.js'
import { decide, describeFindings, inspect, type Findings, type Verdict } from './safety-gate.js'
import { readRecordFile, writeRecordFile, type WorktreeRecord } from './state-helper.js'

export interface ExitResult {
  record: WorktreeRecord
  /** What was done. */
  action: OnExit
  removed: boolean
  findings?: Findings
  /** What the agent changed in the original checkout, which it should have left alone. */
  breach: string[]
  /** One sentence for a human or an agent. */
  message: string
  /** True when a person should look: work was kept back, or something went wrong. */
  warning: boolean
}

export interface ExitOptions {
  onExit: OnExit
  discardChanges: boolean
  /** The post step leaves alone a worktree that the exit sub-action already exited. */
  step: 'post' | 'exit' | 'sweep'
}

/** `opened`: the repository, when the caller has it already. */
export async function exitWorktree(record: WorktreeRecord, options: ExitOptions, opened?: Repository): Promise<ExitResult> {
  const kept = (message: string, warning: boolean, findings?: Findings, breach: string[] = []): ExitResult => ({
    record,
    action: 'keep',
    removed: false,
    findings,
    breach,
    message,
    warning
  })

  let repo: Repository
  let entries: WorktreeEntry[]
  try {
    repo = opened ?? (await openRepository(record.repository, 'repository-path'))
    entries = await listWorktrees(repo)
  } catch (error) {
    return kept(
      `Kept ${record.path}: the repository ${record.repository} could not be read (${(error as Error).message}). Check that repository-path still exists.`,
      true
    )
  }
  const found = findWorktree(entries, record.path)
  if (!found) {
    const cleaned = record.created ? await withRepositoryLock(repo.commonDir, () => clearInterruptedAdd(repo, record, entries)) : ''
    return kept(`Nothing to do: ${record.path} is no longer a worktree of ${record.repository}${cleaned}.`, false)
  }
  if (found.isMain) return kept(`Kept ${record.path}: it is the main worktree, which is never removed.`, true)

  const adminDir = adminDirOf(repo.commonDir, record.path)
  const fileRecord = adminDir ? readRecordFile(adminDir) : undefined
  const ours = fileRecord?.token === record.token
  // git marks a worktree "initializing" until its add finishes: at the path this step planned under the
  // repository lock, with no record written yet, that is this step's own add, cut short.
  const interruptedAdd = record.created && !fileRecord && found.entry.locked === 'initializing'
  const lockedByUs = interruptedAdd || (found.entry.locked?.startsWith(`agent-worktree ${record.token}:`) ?? false)
  if (ours && fileRecord?.removing) {
    // The gate allowed this removal before the step was cut short; only git's part is left to do.
    const outcome = await withRepositoryLock(repo.commonDir, () => remove(repo, record, adminDir!, true, found.entry.locked, lockedByUs))
    if (outcome.error)
      return kept(
        `Kept ${record.path}: git could not finish removing it (${outcome.error}). Remove it with git worktree remove --force once nothing there is needed.`,
        true
      )
    return {
      record,
      action: 'remove',
      removed: true,
      breach: [],
      message: `Removed ${record.path}${outcome.branchNote}, finishing a removal that was cut short.`,
      warning: false
    }
  }
  if (record.created && !ours && !lockedByUs) {
    return kept(`Kept ${record.path}: it is not the worktree this step created, so it is left alone. Its owner decides what becomes of it.`, true)
  }
  if (options.step === 'post' && ours && fileRecord?.exited) {
    return kept(`Nothing to do: the exit step already exited ${record.path} (${fileRecord.exited}).`, false)
  }
  if (found.entry.locked !== undefined && !lockedByUs && options.onExit === 'remove') {
    return kept(
      `Kept ${record.path}: it is locked by someone else (${found.entry.locked || 'no reason given'}). Unlock it with git worktree unlock if it should go.`,
      true
    )
  }

  const folder = adminDir ? checkFolder(record.path, adminDir) : 'its git dir could not be found'
  const submodules = folder === 'intact' && fs.existsSync(path.join(adminDir!, 'modules'))
  // The main step creates without checkout, then checks out; git writes the index last. Without an index the
  // main step was cut short before the agent could start: nothing in the folder is anyone's work.
  const checkedOut = !record.created || folder !== 'intact' || fs.existsSync(path.join(adminDir!, 'index'))
  const links = folder === 'intact' ? ownLinks(record.repository, record.path, record.links) : []
  const [findings, breach] = await Promise.all([
    inspect({
      worktree: folder === 'intact' && checkedOut ? worktreeGit(adminDir!, record.path) : undefined,
      submodules,
      ownLinks: links,
      repository: repo.git,
      head: found.entry.head,
      baseSha: record.baseSha,
      branchesToDelete: (await branchToDelete(repo, record, found.entry.branch)) ?? []
    }),
    options.step === 'sweep' ? [] : isolationBreach(record)
  ])
  if (folder !== 'intact' && folder !== 'missing') findings.error ??= folder
  const verdict = decide(options.onExit, options.discardChanges, findings)
  if (!verdict.startsWith('remove')) {
    // An explicit exit is final: the post step must not remove what the exit step kept.
    if (options.step === 'exit' && adminDir) writeRecordFile(adminDir, { ...record, exited: 'keep' })
    return kept(keepMessage(record, verdict, findings), verdict !== 'keep-asked', findings, breach)
  }

  // git refuses to remove a worktree with submodules unless forced; the gate has checked them too.
  const force = verdict === 'remove-discard' || submodules || !checkedOut
  // The links go first, by unlink, which never touches what they point to; git would count them as untracked.
  for (const link of links) fs.unlinkSync(path.join(record.path, link))
  // Only a whole, clean, plain worktree goes to the pool.
  const parkable =
    verdict === 'remove-clean' &&
    record.recycle &&
    record.created &&
    checkedOut &&
    !submodules &&
    !fs.existsSync(path.join(adminDir!, 'info', 'sparse-checkout'))
  if (parkable && (await withRepositoryLock(repo.commonDir, async () => park(repo, record, adminDir!, await listWorktrees(repo), found.entry.locked)))) {
    const message = `Parked ${record.path} in the pool for the next job and deleted its branch ${record.branch}: nothing unsaved was found.`
    return { record, action: 'remove', removed: true, findings, breach, message, warning: false }
  }
  const outcome = await withRepositoryLock(repo.commonDir, () => remove(repo, record, adminDir!, force, found.entry.locked, lockedByUs))
  if (outcome.error)
    return kept(
      `Kept ${record.path}: git could not remove it (${outcome.error}). Look at it, and remove it by hand if nothing there is needed.`,
      true,
      findings,
      breach
    )
  const branchNote = outcome.branchNote
  const what = verdict === 'remove-discard' ? `, discarding ${describeFindings(findings)} as discard-changes asked` : ': nothing unsaved was found'
  return { record, action: 'remove', removed: true, findings, breach, message: `Removed ${record.path}${branchNote}${what}.`, warning: false }
}

/** Changes to the original checkout since enter; none when there is nothing to compare with. */
async function isolationBreach(record: WorktreeRecord): Promise<string[]> {
  if (!record.original || samePath(record.repository, record.path)) return []
  try {
    return compareSnapshots(record.original, await snapshotCheckout(record.repository))
  } catch {
    return []
  }
}

/** Unlock, remove, delete the branch: under the repository lock, as these race with other jobs' git calls. */
async function remove(
  repo: Repository,
  record: WorktreeRecord,
  adminDir: string,
  force: boolean,
  lock: string | undefined,
  lockedByUs: boolean
): Promise<{ error?: string; branchNote: string }> {
  // Marked first: git deletes the files before the registration, and a step cut short in between must be
  // able to finish the removal, not take the deleted files for unsaved work.
  writeRecordFile(adminDir, { ...record, removing: true })
  // What `git worktree unlock` does, without a git process: the lock is this file (git-worktree(1), DETAILS).
  if (lockedByUs) fs.rmSync(path.join(adminDir, 'locked'), { force: true })
  const removal = await repo.git.run(['worktree', 'remove', ...(force ? ['--force'] : []), record.path])
  if (removal.exitCode !== 0) {
    if (lockedByUs) await repo.git.run(['worktree', 'lock', '--reason', lock!, record.path])
    writeRecordFile(adminDir, record)
    return { error: removal.stderr.trim(), branchNote: '' }
  }
  if (!record.created || !record.branch) return { branchNote: '' }
  // The gate counted this branch's commits, so deleting it loses nothing that was not discarded on purpose.
  const deletion = await repo.git.run(['branch', '-D', record.branch])
  return {
    branchNote:
      deletion.exitCode === 0 ? ` and deleted its branch ${record.branch}` : `; its branch ${record.branch} could not be deleted (${deletion.stderr.trim()})`
  }
}

/**
 * What a step cut short in the middle of `git worktree add` or of a removal leaves at a path that is no
 * longer a worktree: a folder holding nothing but a .git file, and the branch, which git creates first and
 * deletes last. The branch goes only when no worktree has it checked out and none of its commits is unsaved.
 */
async function clearInterruptedAdd(repo: Repository, record: WorktreeRecord, entries: WorktreeEntry[]): Promise<string> {
  const notes: string[] = []
  const adminDir = halfGoneAdminDir(repo.commonDir, record)
  if (adminDir) {
    fs.rmSync(adminDir, { recursive: true, force: true })
    notes.push(`its git dir ${adminDir}`)
  }
  const folder = (() => {
    try {
      return fs.readdirSync(record.path)
    } catch {
      return undefined
    }
  })()
  if (folder && folder.every(name => name === '.git')) {
    fs.rmSync(record.path, { recursive: true, force: true })
    notes.push('its empty folder')
  }
  const ref = `refs/heads/${record.branch}`
  if (record.branch && !entries.some(e => e.branch === ref) && (await repo.git.branchExists(record.branch))) {
    const unsaved = await repo.git.run(['log', '--format=%h', ref, '--not', record.baseSha, '--remotes', '--'])
    if (unsaved.exitCode === 0 && unsaved.stdout.trim() === '' && (await repo.git.run(['branch', '-D', record.branch])).exitCode === 0) {
      notes.push(`its branch ${record.branch}`)
    }
  }
  return notes.length ? `; removed ${notes.join(' and ')}, left by a step that was cut short` : ''
}

/**
 * A git dir of this worktree that git no longer lists, because an add or a removal was cut short: it still
 * holds this step's record, or it lacks the gitdir file and bears the worktree's name (git's id for it).
 */
function halfGoneAdminDir(commonDir: string, record: WorktreeRecord): string | undefined {
  const id = path.basename(record.path)
  return adminDirs(commonDir).find(dir => {
    if (readRecordFile(dir)?.token === record.token) return true
    const name = path.basename(dir)
    // git names the git dir after the folder, with a number added when that name is taken.
    const sameId = name === id || (name.startsWith(id) && /^\d+$/.test(name.slice(id.length)))
    return sameId && !fs.existsSync(path.join(dir, 'gitdir'))
  })
}

/** The branch this step created, while it still exists: removing the worktree deletes it too. */
async function branchToDelete(repo: Repository, record: WorktreeRecord, checkedOut: string | undefined): Promise<[string] | undefined> {
  if (!record.created || !record.branch) return undefined
  // Usually still checked out in the worktree, which git just listed; else ask.
  if (checkedOut === `refs/heads/${record.branch}` || (await repo.git.branchExists(record.branch))) return [record.branch]
  return undefined
}

/**
 * Whether the folder is still the worktree git registered. A symlink in its place may lead anywhere, and a
 * .git file pointing elsewhere makes git speak of another repository: neither is inspected or removed as ours.
 */
function checkFolder(p: string, adminDir: string): string {
  let stat: fs.Stats
  try {
    stat = fs.lstatSync(p)
  } catch {
    return 'missing'
  }
  if (!stat.isDirectory()) return 'its path is no longer a plain folder (a symbolic link or a file took its place)'
  try {
    const pointer = /^gitdir: (.*)$/m.exec(fs.readFileSync(path.join(p, '.git'), 'utf8'))?.[1]
    if (pointer && samePath(path.resolve(p, pointer), adminDir)) return 'intact'
  } catch {
    // no .git file, or a folder in its place
  }
  return `its .git file no longer points to its git dir ${adminDir}`
}

function keepMessage(record: WorktreeRecord, verdict: Verdict, findings: Findings): string {
  switch (verdict) {
    case 'keep-asked':
      return `Kept ${record.path} as on-exit: keep asked; it has ${describeFindings(findings)}${findings.error ? ` (state not fully known: ${findings.error})` : ''}.`
    case 'keep-unknown':
      return `Kept ${record.path}: its state could not be determined (${findings.error}), so nothing was removed. Look at it, and remove it by hand if nothing there is needed.`
    default:
      return `Kept ${record.path}: it has ${describeFindings(findings)}. Commit and push the work, or exit with discard-changes: true to remove it anyway.`
  }
}
