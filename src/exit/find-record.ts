// Finds the worktree a later step of the job (the exit, the run sub-action) works on, and the record the main
// step left for it, from git's own registration: the path given, or the one the main step exported.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import { adminDirOf, adminDirs, folderOf, lockOf, openRepository, type Repository } from '../git/repository.js'
import { samePath } from '../os/paths.js'
import { readSmall } from '../os/untrusted-files.js'
import { currentOwner, describeOwner, lockToken, parseLock, sameJob } from '../record/ownership.js'
import { InputError } from '../record/settings.js'
import { ENV_ORIGINAL_PATH, ENV_WORKTREE_PATH, isSealed, readRecordFile, type GitSetup, type WorktreeRecord } from '../record/state-helper.js'
import { CLONES_DIR, cloneEntryOf } from './clones.js'

/**
 * The job's git set-up of enter, from the record the main step sealed, found without git (the git PATH names now
 * may be one GITHUB_PATH put first): the worktree's .git file leads to it. An unsealed record tells nothing.
 */
export function sealedSetup(target: string | undefined): GitSetup | undefined {
  const pointer = target && /^gitdir: (.*)$/m.exec(readSmall(path.join(target, '.git')) ?? '')?.[1]?.trim()
  const record = pointer ? readRecordFile(path.resolve(target, pointer)) : undefined
  return record && isSealed(record) ? record.git : undefined
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

/**
 * The record the main step left in the worktree's git dir. The agent can write that file, so nothing in
 * it chooses the target: the worktree is the one at the given path (or AGENT_WORKTREE_PATH), in the
 * repository opened from there; its record must carry the token of its lock, and belong to this job.
 */
export async function findRecord(
  given: string | undefined
): Promise<{ record: WorktreeRecord; repo: Repository; sealed: boolean } | { gone: string; repository: string }> {
  const target = given ?? process.env[ENV_WORKTREE_PATH]
  const input = given ? 'path' : `path (from ${ENV_WORKTREE_PATH})`
  const fix = "Give the worktree-path output of this job's agent-worktree step."
  if (!target)
    throw new InputError(
      'path',
      '',
      'no worktree was entered in this job',
      'Run the agent-worktree action before this step, or give the path of a worktree it entered.'
    )
  const { opened, gitDir } = await registrationOf(target, input)
  if (opened && !gitDir && !fs.existsSync(target)) {
    // Moved (git worktree move): its record, in its git dir, still names the path it was entered at.
    const moved = adminDirs(opened.commonDir).find(dir => readRecordFile(dir)?.path === target)
    if (moved) throw new InputError(input, target, `the worktree was moved to ${folderOf(moved) ?? 'another folder'}`, 'Give its new path.')
    // Nothing at the path, and git has no worktree there: an earlier exit removed it, or the agent did.
    return { gone: target, repository: opened.toplevel }
  }
  const record = gitDir ? readRecordFile(gitDir) : undefined
  const isClone = gitDir !== undefined && path.basename(path.dirname(gitDir)) === CLONES_DIR
  if (!opened || !gitDir || !record || !samePath(record.commonDir ?? '', opened.commonDir) || (record.isolation === 'clone') !== isClone) {
    throw new InputError(input, target, 'it is not a worktree that agent-worktree entered (or it was already removed)', fix)
  }
  const lock = lockOf(gitDir)
  const parked = record.exited === 'parked' && parseLock(lock).kind === 'parked'
  if (!parked && lockToken(lock) !== record.token) {
    throw new InputError(input, target, `its lock (${lock ?? 'none'}) is not the one agent-worktree set when it entered`, fix)
  }
  if (!sameJob(record.owner, currentOwner())) {
    throw new InputError(input, target, `another job entered it (${describeOwner(record.owner)})`, fix)
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
