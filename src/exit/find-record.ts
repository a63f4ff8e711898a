// Finds the worktree a later step of the job (the exit, the run sub-action) works on, and the record the main
// step left for it, from git's own registration: the path given, or the one the main step exported. Before any
// git call, the git set-up of enter from that record, found by reading files.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import { adminDirOf, adminDirs, folderOf, lockOf, openRepository, type Repository } from '../git/repository.js'
import { samePath } from '../os/paths.js'
import { readSmall } from '../os/untrusted-files.js'
import { currentOwner, describeOwner, parseLock, recordMatchesLock, sameJob } from '../record/ownership.js'
import { InputError } from '../record/settings.js'
import { wasEntered } from '../record/entered.js'
import {
  canSeal,
  ENV_ORIGINAL_PATH,
  ENV_WORKTREE_PATH,
  isSealed,
  readRecordFile,
  readSetupFile,
  type GitSetup,
  type WorktreeRecord
} from '../record/state-helper.js'
import { cloneEntryOf } from './clones.js'
import { KINDS, kindFor } from './kinds/kind.js'
import { quoted } from '../os/quote.js'

/** The worktree a later step works on, and how its errors name it: the path given, or the one the main step exported. */
export function targetOf(given: string | undefined): { target: string; input: string } {
  const target = given ?? process.env[ENV_WORKTREE_PATH]
  if (!target)
    throw new InputError(
      'path',
      '',
      'no worktree was entered in this job',
      'Run the agent-worktree action before this step, or give the path of a worktree it entered.'
    )
  return { target, input: given ? 'path' : `path (from ${ENV_WORKTREE_PATH})` }
}

const FIX = "Give the worktree-path output of this job's agent-worktree step."

/** Nothing is at the path and nothing registers it. */
export interface Gone {
  gone: string
  repository: string
  /** How an error names the path: the input, or where its value came from. */
  input: string
}

/**
 * Nothing is at `target` and git registers no worktree there: gone, when a main step of this job entered it (or the
 * path is the one it exported); otherwise the input names no worktree of ours, and says so.
 */
function goneOrMistyped(given: string | undefined, target: string, input: string, repository: string): Gone {
  if (given === undefined || wasEntered(target)) return { gone: target, repository, input }
  throw new InputError(input, target, 'nothing is there, and no agent-worktree step of this job entered a worktree there', FIX)
}

/** The git dir a .git file names, as git reads it. */
function pointedGitDir(top: string): string | undefined {
  const pointer = /^gitdir: (.*)$/m.exec(readSmall(path.join(top, '.git')) ?? '')?.[1]?.trim()
  return pointer ? path.resolve(top, pointer) : undefined
}

/** The common git dir of the checkout at `top`, read from its files: its .git folder, or the git dir its .git file names and that one's commondir. */
function commonDirOf(top: string): string | undefined {
  const dotGit = path.join(top, '.git')
  const gitDir = fs.statSync(dotGit, { throwIfNoEntry: false })?.isDirectory() ? dotGit : pointedGitDir(top)
  const common = gitDir && readSmall(path.join(gitDir, 'commondir'))?.trim()
  return common ? path.resolve(gitDir, common) : gitDir
}

/** The folders of ours in the common dir (worktree git dirs, clone folders) that register `target`, or whose record names it (moved away). */
function entriesFor(commonDir: string, target: string): string[] {
  const names = (p: string | undefined): boolean => p !== undefined && samePath(p, target)
  return KINDS.flatMap(kind => kind.entries(commonDir)).filter(dir => names(folderOf(dir)) || names(readRecordFile(dir)?.path))
}

/**
 * The job's git set-up of enter, for a later step (the exit, the run sub-action) to pin before its first git call,
 * from the record the main step sealed, found without git (the git PATH names now may be one GITHUB_PATH put
 * first): by the worktree's .git file, or from the original's common dir (read from its files), whose folders of
 * ours register worktrees and clones alike; a record the agent changed is a hint, and the set-up is then the one the
 * main step sealed in RUNNER_TEMP. Wherever a step can seal (a runner's runtime token, or act's seal key in
 * RUNNER_TEMP) every record the main step leaves is sealed: neither found means the worktree is gone (nothing
 * registers it, nothing is at its path), or that what the main step left is missing or was changed, and the step
 * stops rather than run git as PATH names it. Where none can (no token, no RUNNER_TEMP): nothing is pinned, and
 * git is the one on PATH.
 */
export function setupOfEnter(given: string | undefined): { setup?: GitSetup } | Gone {
  const { target, input } = targetOf(given)
  const original = process.env[ENV_ORIGINAL_PATH]
  const commonDir = original ? commonDirOf(original) : undefined
  const entries = commonDir ? entriesFor(commonDir, target) : []
  const records = [pointedGitDir(target), ...entries].map(dir => (dir ? readRecordFile(dir) : undefined)).filter(r => r !== undefined)
  const sealed = records.find(record => record.git && isSealed(record))?.git ?? readSetupFile()
  if (sealed) return { setup: sealed }
  if (!canSeal()) return {}
  if (original && commonDir && !entries.length && !fs.existsSync(target)) return goneOrMistyped(given, target, input, original)
  const problem = records.length
    ? "the record agent-worktree's main step sealed for it was changed"
    : 'it is not a worktree that agent-worktree entered (or its record is missing)'
  throw new InputError(input, target, `${problem}, so the git of enter is not known (this step runs no git found on PATH)`, FIX)
}

/**
 * The repository that registers `target`, and the git dir of ours that registers it: a worktree's, or, for a
 * clone (isolation: clone, a repository of its own), its folder of ours in the repository the job came from.
 * A folder the agent deleted is still registered there.
 */
async function registrationOf(target: string, input: string): Promise<{ opened?: Repository; gitDir?: string }> {
  const original = process.env[ENV_ORIGINAL_PATH]
  const start = fs.existsSync(target) ? target : original
  const opened = start ? await openRepository(start, input).catch(() => undefined) : undefined
  const gitDir = opened && adminDirOf(opened.commonDir, target)
  if (gitDir || !original) return { opened, gitDir }
  const from = await openRepository(original, input).catch(() => undefined)
  return { opened: from, gitDir: from && cloneEntryOf(from.commonDir, target) }
}

/** The record names the repository that registers it, and its kind keeps it in the folder of ours that does. */
function registeredAs(record: WorktreeRecord, entry: string, commonDir: string): boolean {
  return samePath(record.commonDir ?? '', commonDir) && samePath(kindFor(record).entry(commonDir, path.basename(entry)), entry)
}

/**
 * The record the main step left in the worktree's git dir. The agent can write that file, so nothing in
 * it chooses the target: the worktree is the one at the given path (or AGENT_WORKTREE_PATH), in the
 * repository opened from there; its record must carry the token of its lock, and belong to this job.
 */
export async function findRecord(given: string | undefined): Promise<{ record: WorktreeRecord; repo: Repository; sealed: boolean } | Gone> {
  const { target, input } = targetOf(given)
  const { opened, gitDir } = await registrationOf(target, input)
  if (opened && !gitDir && !fs.existsSync(target)) {
    // Moved (git worktree move): its record, in its git dir, still names the path it was entered at.
    const moved = adminDirs(opened.commonDir).find(dir => readRecordFile(dir)?.path === target)
    const movedTo = moved && folderOf(moved)
    if (moved) throw new InputError(input, target, `the worktree was moved to ${movedTo ? quoted(movedTo) : 'another folder'}`, 'Give its new path.')
    // Nothing at the path, and git has no worktree there: an earlier exit removed it, or the agent did; or it never was one.
    return goneOrMistyped(given, target, input, opened.toplevel)
  }
  const record = gitDir ? readRecordFile(gitDir) : undefined
  if (!opened || !gitDir || !record || !registeredAs(record, gitDir, opened.commonDir)) {
    throw new InputError(input, target, 'it is not a worktree that agent-worktree entered (or it was already removed)', FIX)
  }
  const lock = lockOf(gitDir)
  const parked = record.exited === 'parked' && parseLock(lock).kind === 'parked'
  if (!parked && !recordMatchesLock(lock, record)) {
    throw new InputError(input, target, `its lock (${lock === undefined ? 'none' : quoted(lock)}) is not the one agent-worktree set when it entered`, FIX)
  }
  if (!sameJob(record.owner, currentOwner())) {
    throw new InputError(input, target, `another job entered it (${describeOwner(record.owner)})`, FIX)
  }
  // Sealed by this job, the record is the main step's own: its facts are evidence (the base, the filters and
  // push settings at enter). Its git dir is the one found from the path, whatever id the record names.
  const sealed = isSealed(record) && record.id === path.basename(gitDir)
  return {
    sealed,
    record: { ...record, id: path.basename(gitDir), commonDir: opened.commonDir },
    repo: { toplevel: record.repository, commonDir: opened.commonDir, git: new Git(opened.commonDir) }
  }
}
