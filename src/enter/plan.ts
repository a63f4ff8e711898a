// Plans a new worktree: every check that needs the repository, before anything is created. Each refusal
// names the input, the value and the fix.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { flattenName, generateName } from '../record/names.js'
import { InputError, type OnExit, type PushRequest } from '../record/settings.js'
import type { EnterSettings } from '../runner/inputs.js'
import { currentOwner } from '../record/ownership.js'
import { isInside, isReallyInside, realPath } from '../os/paths.js'
import { planLinks, resolveIncludeFile } from './prepare-worktree.js'
import { adminDirOf, folderOf, listWorktrees, type Repository } from '../git/repository.js'
import { refsNamed } from '../shared/shared-refs.js'
import type { PushTarget, WorktreeRecord } from '../record/state-helper.js'
import { cloneEntries } from '../exit/clones.js'

export interface Plan {
  record: WorktreeRecord
  includeFile?: string
  /** symlink-dirs that the checkout does not have. */
  missingLinks: string[]
}

/** Beside the checkout, not inside it: `git clean -ffdx` in the checkout never reaches a kept worktree. */
export function defaultWorktreesDir(toplevel: string): string {
  return `${toplevel}.worktrees`
}

/** A file name longer than this cannot be created (NAME_MAX); git adds ".lock" to ref names. */
const NAME_MAX = 255
const PATH_MAX = 4096

/** The record of the worktree to create, and what to prepare in it. The caller holds the repository lock. */
export async function planCreate(repo: Repository, settings: EnterSettings, pinned: Pick<WorktreeRecord, 'fileMode' | 'pinned' | 'push'>): Promise<Plan> {
  const name = settings.name ?? generateName()
  const nameInput = settings.name === undefined ? 'name (generated)' : 'name'
  const worktreesDir = await checkWorktreesDir(repo, settings.worktreesDir ?? defaultWorktreesDir(repo.toplevel), settings.worktreesDir !== undefined)
  const worktreePath = path.join(worktreesDir, flattenName(name))
  // A registration whose folder is gone counts too: git would refuse to add at its path.
  if (fs.existsSync(worktreePath) || adminDirOf(repo.commonDir, worktreePath) || cloneEntries(repo.commonDir).some(e => folderOf(e) === worktreePath)) {
    throw new InputError(
      nameInput,
      name,
      `the worktree ${worktreePath} already exists`,
      'Choose another name, or enter the existing worktree with path (or remove it: see Troubleshooting in the README).'
    )
  }
  const branch = settings.branch ?? `worktree-${flattenName(name)}`
  const branchInput = settings.branch === undefined ? nameInput : 'branch'
  const [problem, base] = await Promise.all([branchProblem(repo, branch), resolveBase(repo, settings)])
  if (problem)
    throw new InputError(branchInput, settings.branch ?? name, problem, 'Choose another branch or name; to work on an existing worktree, enter it with path.')
  const includeFile = resolveIncludeFile(repo.toplevel, settings.includeFile)
  const { links, missing } = await planLinks(repo.git, repo.toplevel, base, settings.symlinkDirs)
  const record: WorktreeRecord = {
    token: randomBytes(8).toString('hex'),
    repository: repo.toplevel,
    commonDir: repo.commonDir,
    path: worktreePath,
    name,
    branch,
    baseSha: base,
    created: true,
    links,
    recycle: settings.recycle || undefined,
    isolation: settings.isolation === 'clone' ? 'clone' : undefined,
    ...exitPlan(settings, 'remove', repo.commonDir),
    ...(await pushPlan(repo, settings, branch, pinned.push)),
    ...pinned,
    owner: currentOwner()
  }
  return { record, includeFile, missingLinks: missing }
}

/** The branch the exit pushes to, as the push input asks: checked now, before anything is created. */
export async function pushPlan(
  repo: Repository,
  settings: EnterSettings,
  branch: string,
  remote: PushTarget | undefined
): Promise<Pick<WorktreeRecord, 'pushTo'>> {
  if (!settings.push) return {}
  if (!remote)
    throw new InputError(
      'push',
      settings.push.branch ?? 'true',
      `${repo.toplevel} has no remote to push to`,
      'Add one (actions/checkout adds origin), or remove push.'
    )
  return { pushTo: await pushBranch(repo, settings.push, branch) }
}

/** The branch a push request names, checked: the one given, or the worktree's own (`own`, '' when HEAD is detached). */
export async function pushBranch(repo: Pick<Repository, 'git'>, request: PushRequest, own: string): Promise<string> {
  const value = request.branch ?? 'true'
  const to = request.branch ?? own
  if (!to)
    throw new InputError(
      'push',
      value,
      'the worktree has no branch of its own (its HEAD is detached)',
      'Give the name of the branch to push to, such as push: agent/fix.'
    )
  if (to.startsWith('-') || !(await repo.git.isValidBranchName(to)))
    throw new InputError(
      'push',
      value,
      `"${to}" is not a valid branch name (see git check-ref-format)`,
      "Give a valid branch name, or true for the worktree's own."
    )
  return to
}

/** How the worktree is to be exited, as the main step was told: `onExit` when on-exit was not given. */
export function exitPlan(
  settings: EnterSettings,
  onExit: OnExit,
  commonDir: string
): Pick<WorktreeRecord, 'onExit' | 'onExitGiven' | 'discardChanges' | 'rescue' | 'rescueMaxBytes' | 'ephemeral' | 'inWorkspace' | 'leg'> {
  return {
    leg: settings.leg,
    onExit: settings.onExit ?? onExit,
    onExitGiven: settings.onExit !== undefined,
    discardChanges: settings.discardChanges,
    rescue: settings.rescue,
    rescueMaxBytes: settings.rescueMaxBytes,
    // Read once, at enter: the post takes them from its own state.
    ephemeral: process.env.RUNNER_ENVIRONMENT === 'github-hosted',
    inWorkspace: inWorkspace(commonDir)
  }
}

/**
 * Whether the next job's actions/checkout prepares the repository: its git dir is GITHUB_WORKSPACE's or lies
 * inside it (checkout's `path` always does). A clone elsewhere (repository-path) is never prepared.
 */
export function inWorkspace(commonDir: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const workspace = env.GITHUB_WORKSPACE
  return workspace !== undefined && workspace !== '' && (isInside(commonDir, workspace) || isReallyInside(commonDir, workspace))
}

/**
 * Why a new branch of this name would mislead, or undefined. It must be valid, new, and unambiguous: a
 * local origin/main would shadow the remote-tracking one for every later job, a tag or a hex name
 * would be read as something else, and a name git's own pseudo-refs use would be too.
 */
async function branchProblem(repo: Repository, branch: string): Promise<string | undefined> {
  if (branch.startsWith('-') || !(await repo.git.isValidBranchName(branch))) {
    return `"${branch}" is not a valid branch name (see git check-ref-format: no "..", no spaces, no leading "-", no trailing ".lock")`
  }
  const long = branch.split('/').find(part => Buffer.byteLength(part) > NAME_MAX - 10)
  if (long) return `a part of the branch name is ${Buffer.byteLength(long)} bytes long, more than a file name may be`
  if (/^[0-9a-f]{4,64}$/i.test(branch)) return `"${branch}" looks like a commit id, which git would read instead`
  if (/^[A-Z_]*HEAD$/.test(branch)) return `"${branch}" is a name git uses for its own refs`
  const [taken, remotes] = await Promise.all([
    refsNamed(repo.git, repo.commonDir, [`refs/heads/${branch}`, `refs/tags/${branch}`, `refs/remotes/${branch}`, `refs/${branch}`]),
    repo.git.exec(['remote'])
  ])
  if (taken.includes(`refs/heads/${branch}`)) return `the branch ${branch} already exists`
  if (taken.length)
    return `${taken[0]} exists, and a branch ${branch} would ${taken[0].startsWith(`refs/heads/${branch}/`) ? 'clash with it' : 'make the name ambiguous'}`
  const remote = remotes.split('\n').find(r => r && branch.startsWith(`${r}/`))
  if (remote) return `it starts with the remote name ${remote}/, so it would shadow the remote-tracking branch ${branch} for every later job`
  return undefined
}

/** The base commit; an ambiguous name (a local origin/main beside the remote-tracking one) is refused. */
async function resolveBase(repo: Repository, settings: EnterSettings): Promise<string> {
  const ref = settings.baseRef
  const result = await repo.git.run(['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])
  if (result.exitCode === 0) {
    if (/ambiguous/.test(result.stderr)) {
      throw new InputError(
        'base-ref',
        ref,
        'it names more than one ref (for example a local branch and a remote-tracking branch of the same name)',
        `Write it in full (refs/remotes/${ref} or refs/heads/${ref}), or delete the local branch that shadows it.`
      )
    }
    return result.stdout.trim()
  }
  if (settings.baseRef === 'HEAD' && (await repo.git.run(['rev-parse', '--verify', '--quiet', 'HEAD'])).exitCode !== 0) {
    throw new InputError(
      'repository-path',
      repo.toplevel,
      'the repository has no commit yet, so there is nothing to start a worktree from',
      'Make a first commit, or check out a repository that has one.'
    )
  }
  const remote =
    /^[^/]+\//.test(ref) && !settings.fetch
      ? ' If it is a branch of the remote, set fetch: true to fetch it first (a pull_request checkout has only the merge commit), or check out with fetch-depth: 0.'
      : ''
  throw new InputError('base-ref', ref, `it does not name a commit in ${repo.toplevel}`, `Use a branch, tag or commit that exists there.${remote}`)
}

/**
 * Why this process cannot make `dir` (or a worktree in it), or undefined: the folder itself, or the
 * nearest one above it that exists, must let it create entries (a read-only file system tells too).
 */
function notWritable(dir: string): { what: string; folder: string; code: string } | undefined {
  let folder = dir
  while (!fs.existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder)
  try {
    fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK)
    return undefined
  } catch (error) {
    return { what: folder === dir ? 'write to' : `create ${path.relative(folder, dir)} in`, folder, code: (error as NodeJS.ErrnoException).code ?? 'EACCES' }
  }
}

/**
 * A folder that may hold new worktrees: not a symbolic link (it could lead anywhere), not a file, not
 * a file system's root, not inside a git dir (git would register a worktree inside its own data), not
 * inside another worktree, and inside the checkout only where git ignores it (else the agent's files
 * would be changes of the checkout). Returns it with links resolved.
 */
async function checkWorktreesDir(repo: Repository, dir: string, given: boolean): Promise<string> {
  const input = given ? 'worktrees-dir' : 'worktrees-dir (default)'
  const long = dir.split(/[\\/]/).find(part => Buffer.byteLength(part) > NAME_MAX)
  if (long || Buffer.byteLength(dir) > PATH_MAX - 512)
    throw new InputError(input, dir, 'the path is too long for the file system (a name over 255 bytes, or a path near 4096)', 'Give a shorter path.')
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false })
  if (stat?.isSymbolicLink())
    throw new InputError(input, dir, `it is a symbolic link (to ${fs.readlinkSync(dir)})`, 'Give the real path of the folder instead.')
  if (stat && !stat.isDirectory()) throw new InputError(input, dir, 'it is not a folder', 'Point it at a folder, or at a path that does not exist yet.')
  const real = realPath(dir)
  const unwritable = notWritable(real)
  if (unwritable)
    throw new InputError(
      input,
      dir,
      `the runner's user${process.getuid ? ` (uid ${process.getuid()})` : ''} cannot ${unwritable.what} ${unwritable.folder} (${unwritable.code})`,
      'Give a folder that user can write, or let it write there.'
    )
  if (path.parse(real).root === real)
    throw new InputError(input, dir, 'it is the root of a file system', 'Give a folder of its own, such as the default beside the checkout.')
  if (isReallyInside(real, repo.commonDir))
    throw new InputError(input, dir, `it is inside the git dir ${repo.commonDir}`, 'Give a folder outside .git, such as the default beside the checkout.')
  const entries = await listWorktrees(repo)
  for (const entry of entries.slice(1)) {
    if (isInside(real, entry.path) || isReallyInside(real, entry.path))
      throw new InputError(input, dir, `it is inside the worktree ${entry.path}`, 'Give a folder outside every worktree.')
  }
  if (isReallyInside(real, repo.toplevel)) {
    const relative = path.relative(realPath(repo.toplevel), real)
    const ignored = relative !== '' && (await repo.git.run(['check-ignore', '-q', '--', `${relative}/x`])).exitCode === 0
    if (!ignored) {
      throw new InputError(
        input,
        dir,
        `it is inside the checkout ${repo.toplevel}, which git does not ignore there`,
        `Add ${relative || '.'}/ to .gitignore, or give a folder outside the checkout (the default is beside it).`
      )
    }
  }
  return real
}
