// The main step: check every input, plan the worktree, save the plan, then create or enter it.
import * as core from '@actions/core'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from './git-command-manager.js'
import { flattenName, getEnterSettings, InputError, NAME_MAX_LENGTH, type EnterSettings } from './input-helper.js'
import { snapshotCheckout, type CheckoutSnapshot } from './isolation.js'
import { copyIncludedFiles, createLinks, planLinks, resolveIncludeFile } from './prepare-worktree.js'
import { withRepositoryLock } from './repository-lock.js'
import { checkOutTaken, takeParked } from './worktree-pool.js'
import { adminDirOf, findWorktree, listWorktrees, openRepository, realPath, type Repository } from './repository.js'
import { ENV_ORIGINAL_PATH, ENV_WORKTREE_PATH, STATE_COMMON_DIR, currentJob, saveRecordState, writeRecordFile, type WorktreeRecord } from './state-helper.js'
import { sweep } from './sweep.js'

export async function run(): Promise<void> {
  try {
    const settings = getEnterSettings()
    const repo = await openRepository(settings.repositoryPath, 'repository-path')
    core.saveState(STATE_COMMON_DIR, repo.commonDir)
    const [original] = await Promise.all([snapshotCheckout(repo.toplevel), sweep(repo)])
    const record = settings.path ? await enterByPath(repo, settings, original) : await create(repo, settings, original)
    setOutputs(record, adminDirOf(repo.commonDir, record.path)!, repo.commonDir)
  } catch (error) {
    core.setFailed(error instanceof Error ? error.message : String(error))
  }
}

/** Unique per job run, also among the legs of a matrix and among reruns, which share run id and job. */
export function generateName(env: NodeJS.ProcessEnv = process.env): string {
  const random = randomBytes(4).toString('hex')
  const run = currentJob(env).run || `${Date.now()}`
  const tail = `-${run}-${random}`
  const job = (env.GITHUB_JOB || 'agent').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[.-]+/, '') || 'agent'
  return job.slice(0, NAME_MAX_LENGTH - tail.length) + tail
}

/** Beside the checkout, not inside it: `git clean -ffdx` in the checkout never reaches a kept worktree. */
export function defaultWorktreesDir(toplevel: string): string {
  return `${toplevel}.worktrees`
}

/**
 * Checks and creation run under the repository lock, so that two legs asking for one name cannot both
 * pass the checks; the checkout, the slow part, runs after the lock is released.
 */
async function create(repo: Repository, settings: EnterSettings, original: CheckoutSnapshot): Promise<WorktreeRecord> {
  const plan = await withRepositoryLock(repo.commonDir, async () => {
    if (settings.fetch) await fetchBase(repo, settings.baseRef)
    const planned = await planCreate(repo, settings, original)
    const { record } = planned
    // Saved before anything is created, so that a post after a crash or a cancel finds it.
    saveRecordState(record)
    fs.mkdirSync(path.dirname(record.path), { recursive: true })
    if (record.recycle && (await takeParked(repo, record, await listWorktrees(repo), lockReason(record)))) return { ...planned, taken: true }
    // The base is a commit id, so git writes no upstream configuration for the branch.
    await repo.git.exec([
      'worktree',
      'add',
      '--quiet',
      '--no-checkout',
      '--lock',
      '--reason',
      lockReason(record),
      '-b',
      record.branch,
      record.path,
      record.baseSha
    ])
    // Sparse checkout turns on per-worktree configuration in the shared config: a write that races.
    if (settings.sparsePaths.length) await new Git(record.path).exec(['sparse-checkout', 'set', '--cone', '--stdin'], settings.sparsePaths.join('\n'))
    const gitDir = adminDirOf(repo.commonDir, record.path)
    if (!gitDir) throw new Error(`git created ${record.path} but did not register it`)
    writeRecordFile(gitDir, record)
    return { ...planned, taken: false }
  })
  const { record } = plan
  // The checkout, outside the lock: of every file for a new worktree (what `git worktree add` does),
  // of the files that differ for one taken from the pool.
  if (plan.taken) await checkOutTaken(record)
  else await new Git(record.path).exec(['reset', '--hard', '--quiet'])
  if (plan.taken) core.info(`Took ${record.path} from the pool of parked worktrees.`)
  prepare(repo, plan)
  if (plan.includeFile) {
    const { copied, skipped } = await copyIncludedFiles(repo.toplevel, record.path, plan.includeFile)
    core.info(
      `Copied ${copied.length} ignored file(s) that ${path.relative(repo.toplevel, plan.includeFile)} names${copied.length ? `: ${copied.join(', ')}` : ''}.`
    )
    if (skipped.length) core.info(`Not copied: ${skipped.join(', ')}.`)
  }
  return record
}

/** Links the folders planned, and says which were not there to link. */
function prepare(repo: Repository, plan: Plan): void {
  const { record, missingLinks } = plan
  const taken = createLinks(repo.toplevel, record.path, record.links ?? [])
  if (missingLinks.length) core.warning(`symlink-dirs: ${missingLinks.join(', ')} not found in ${repo.toplevel}, so not linked.`, { title: 'agent-worktree' })
  if (taken.length) core.warning(`symlink-dirs: ${taken.join(', ')} already in the worktree, so not linked.`, { title: 'agent-worktree' })
}

/** Updates a remote-tracking base from its remote, so that a long-lived shared clone starts from the newest commit. */
async function fetchBase(repo: Repository, baseRef: string): Promise<void> {
  const remotes = (await repo.git.exec(['remote'])).split('\n').filter(Boolean)
  const remote = remotes.find(r => baseRef.startsWith(`${r}/`))
  const branch = remote && baseRef.slice(remote.length + 1)
  if (!remote || !branch) {
    throw new InputError(
      'base-ref',
      baseRef,
      `fetch: true needs a remote-tracking branch as base, <remote>/<branch>, and the remotes are ${remotes.join(', ') || 'none'}`,
      'Use for example base-ref: origin/main, or fetch: false.'
    )
  }
  const result = await repo.git.run([
    'fetch',
    '--quiet',
    '--no-tags',
    '--no-write-fetch-head',
    remote,
    `+refs/heads/${branch}:refs/remotes/${remote}/${branch}`
  ])
  if (result.exitCode !== 0) {
    throw new InputError(
      'base-ref',
      baseRef,
      `git fetch ${remote} ${branch} failed: ${result.stderr.trim()}`,
      'Check that the branch exists on the remote and that the job can read it.'
    )
  }
}

interface Plan {
  record: WorktreeRecord
  includeFile?: string
  /** symlink-dirs that the checkout does not have. */
  missingLinks: string[]
}

async function planCreate(repo: Repository, settings: EnterSettings, original: CheckoutSnapshot): Promise<Plan> {
  const name = settings.name ?? generateName()
  const nameInput = settings.name === undefined ? 'name (generated)' : 'name'
  const worktreesDir = checkWorktreesDir(settings.worktreesDir ?? defaultWorktreesDir(repo.toplevel))
  const worktreePath = path.join(worktreesDir, flattenName(name))
  // A registration whose folder is gone counts too: git would refuse to add at its path.
  if (fs.existsSync(worktreePath) || adminDirOf(repo.commonDir, worktreePath)) {
    throw new InputError(nameInput, name, `the worktree ${worktreePath} already exists`, 'Choose another name, or enter the existing worktree with path.')
  }

  const branch = settings.branch ?? `worktree-${flattenName(name)}`
  const branchInput = settings.branch === undefined ? nameInput : 'branch'
  const branchValue = settings.branch ?? name
  // Three independent questions, asked at once.
  const [validBranch, branchTaken, baseSha] = await Promise.all([
    !branch.startsWith('-') && repo.git.isValidBranchName(branch),
    repo.git.branchExists(branch),
    repo.git.resolveCommit(settings.baseRef)
  ])
  if (!validBranch) {
    throw new InputError(
      branchInput,
      branchValue,
      `"${branch}" is not a valid branch name`,
      'See git check-ref-format for the rules: no "..", no spaces, no leading "-", no trailing ".lock".'
    )
  }
  if (branchTaken) {
    throw new InputError(
      branchInput,
      branchValue,
      `the branch ${branch} already exists`,
      'Choose another branch or name; to work on an existing worktree, enter it with path.'
    )
  }
  if (!baseSha) {
    throw new InputError(
      'base-ref',
      settings.baseRef,
      `it does not name a commit in ${repo.toplevel}`,
      'Use a branch, tag or commit that exists there; fetch it first if it is only on the remote.'
    )
  }
  const includeFile = resolveIncludeFile(repo.toplevel, settings.includeFile)
  const { links, missing } = await planLinks(repo.git, repo.toplevel, baseSha, settings.symlinkDirs)
  const record: WorktreeRecord = {
    token: randomBytes(8).toString('hex'),
    repository: repo.toplevel,
    path: worktreePath,
    name,
    branch,
    baseSha,
    created: true,
    links,
    recycle: settings.recycle || undefined,
    onExit: settings.onExit ?? 'remove',
    discardChanges: settings.discardChanges,
    original,
    owner: currentJob()
  }
  return { record, includeFile, missingLinks: missing }
}

/** A folder, or a path that does not exist yet; not a symlink, which could lead anywhere. */
function checkWorktreesDir(dir: string): string {
  let stat: fs.Stats | undefined
  try {
    stat = fs.lstatSync(dir)
  } catch {
    stat = undefined
  }
  if (stat?.isSymbolicLink()) {
    throw new InputError('worktrees-dir', dir, `it is a symbolic link (to ${fs.readlinkSync(dir)})`, 'Give the real path of the folder instead.')
  }
  if (stat && !stat.isDirectory()) {
    throw new InputError('worktrees-dir', dir, 'it is not a folder', 'Point it at a folder, or at a path that does not exist yet.')
  }
  return realPath(dir)
}

async function enterByPath(repo: Repository, settings: EnterSettings, original: CheckoutSnapshot): Promise<WorktreeRecord> {
  const given = settings.path!
  const found = findWorktree(await listWorktrees(repo), given)
  if (!found || found.entry.bare) {
    throw new InputError(
      'path',
      given,
      `it is not a worktree of ${repo.toplevel}`,
      'Give a path that git worktree list shows, or omit path to create a new worktree.'
    )
  }
  if (found.isMain) {
    throw new InputError('path', given, 'it is the main checkout, which is not isolated from the rest of the job', 'Omit path to create a new worktree.')
  }
  const gitDir = adminDirOf(repo.commonDir, found.entry.path)
  if (found.entry.prunable !== undefined || !fs.existsSync(found.entry.path) || !gitDir) {
    throw new InputError('path', given, 'its folder is missing', 'Run git worktree prune, then omit path to create a new worktree.')
  }
  const record: WorktreeRecord = {
    token: randomBytes(8).toString('hex'),
    repository: repo.toplevel,
    path: found.entry.path,
    name: path.basename(found.entry.path),
    branch: found.entry.branch?.replace(/^refs\/heads\//, '') ?? '',
    baseSha: found.entry.head ?? '',
    created: false,
    onExit: settings.onExit ?? 'keep',
    discardChanges: settings.discardChanges,
    original,
    owner: currentJob()
  }
  saveRecordState(record)
  writeRecordFile(gitDir, record)
  return record
}

/** The lock keeps `git worktree prune` and other jobs' clean-ups away while the job works; the token proves it ours. */
export function lockReason(record: WorktreeRecord): string {
  const { runner, run, job } = record.owner
  const [runId, attempt] = run.split('-')
  const parts = [run && `run ${runId} attempt ${attempt}`, job && `job ${job}`, runner && `runner ${runner}`].filter(Boolean)
  return `agent-worktree ${record.token}: ${parts.join(' ')}`.trim().replace(/[\r\n]/g, ' ')
}

function setOutputs(record: WorktreeRecord, gitDir: string, commonDir: string): void {
  core.setOutput('worktree-path', record.path)
  core.setOutput('original-path', record.repository)
  core.setOutput('name', record.name)
  core.setOutput('branch', record.branch)
  core.setOutput('base-sha', record.baseSha)
  core.setOutput('git-dir', gitDir)
  core.setOutput('git-common-dir', commonDir)
  core.setOutput('created', String(record.created))
  core.exportVariable(ENV_WORKTREE_PATH, record.path)
  core.exportVariable(ENV_ORIGINAL_PATH, record.repository)
  core.info(
    `${record.created ? 'Created' : 'Entered'} worktree ${record.path} on ${record.branch ? `branch ${record.branch}` : 'a detached HEAD'} at ${record.baseSha.slice(0, 12)}.`
  )
}
