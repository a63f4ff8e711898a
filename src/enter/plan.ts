// Plans a new worktree: every check that needs the repository, before anything is created. Each refusal
// names the input, the value and the fix.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { defaultWorktreesDir, flattenName, generateName } from '../record/names.js'
import { InputError, type OnExit, type PushRequest } from '../record/settings.js'
import { absolute, type EnterSettings } from '../runner/inputs.js'
import { currentOwner } from '../record/ownership.js'
import { isInside, isReallyInside, realPath } from '../os/paths.js'
import { planLinks, resolveIncludeFile } from './prepare-worktree.js'
import { adminDirOf, adminDirs, folderOf, type Repository } from '../git/repository.js'
import { refsNamed } from '../shared/shared-refs.js'
import type { PushTarget, WorktreeRecord } from '../record/state-helper.js'
import { cloneEntries } from '../exit/clones.js'
import { quoted } from '../os/quote.js'
import { repositoryOf } from '../remote/github-repository.js'

export interface Plan {
  record: WorktreeRecord
  includeFile?: string
  /** symlink-dirs that the checkout does not have. */
  missingLinks: string[]
}

/** A file name longer than this cannot be created (NAME_MAX); git adds ".lock" to ref names. */
const NAME_MAX = 255
const PATH_MAX = 4096

/**
 * The record of the worktree to create in `folder` (from checkWorktreesFolder), and what to prepare in it. The
 * caller holds the repository lock. `remoteNames`: the remotes of the config of enter.
 */
export async function planCreate(
  repo: Repository,
  settings: EnterSettings,
  pinned: Pick<WorktreeRecord, 'fileMode' | 'pinned' | 'push'>,
  folder: string,
  remoteNames: string[]
): Promise<Plan> {
  const name = settings.name ?? generateName()
  const nameInput = settings.name === undefined ? 'name (generated)' : 'name'
  const worktreesDir = await checkWorktreesDir(repo, folder, settings.worktreesDir)
  const worktreePath = path.join(worktreesDir, flattenName(name))
  // A registration whose folder is gone counts too: git would refuse to add at its path.
  if (fs.existsSync(worktreePath) || adminDirOf(repo.commonDir, worktreePath) || cloneEntries(repo.commonDir).some(e => folderOf(e) === worktreePath)) {
    throw new InputError(
      nameInput,
      name,
      `the worktree ${quoted(worktreePath)} already exists`,
      'Choose another name, or enter the existing worktree with path (or remove it: see Troubleshooting in the README).'
    )
  }
  const branch = settings.branch ?? `worktree-${flattenName(name)}`
  const branchInput = settings.branch === undefined ? nameInput : 'branch'
  const [problem, base] = await Promise.all([branchProblem(repo, branch, remoteNames), resolveBase(repo, settings)])
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

/**
 * The branch the exit pushes to, as the push input asks, and the pull request it opens, as pull-request asks:
 * checked now, before anything is created.
 */
export async function pushPlan(
  repo: Repository,
  settings: EnterSettings,
  branch: string,
  remote: PushTarget | undefined
): Promise<Pick<WorktreeRecord, 'pushTo' | 'pullRequest' | 'pullBase'>> {
  if (!settings.push) return { pullBase: remote && (await pullBaseOf(repo, settings.baseRef, remote.remote)) }
  if (!remote)
    throw new InputError(
      'push',
      settings.push.branch ?? 'true',
      `${quoted(repo.toplevel)} has no remote to push to`,
      'Add one (actions/checkout adds origin), or remove push.'
    )
  if (settings.pullRequest) {
    const repository = repositoryOf(remote.url)
    if (typeof repository === 'string')
      throw new InputError(
        'pull-request',
        settings.pullRequest.draft ? 'draft' : 'true',
        repository,
        'Open the pull request in a later step of your own, or remove pull-request.'
      )
  }
  const [pushTo, pullBase] = await Promise.all([pushBranch(repo, settings.push, branch), pullBaseOf(repo, settings.baseRef, remote.remote)])
  return { pushTo, pullRequest: settings.pullRequest, pullBase }
}

/**
 * The branch of the remote of enter that base-ref names (origin/main, refs/remotes/origin/main: main), a pull
 * request's base; none for anything else (a commit, a tag, a local branch). Read now: at exit, the remote-tracking
 * refs are the agent's to change.
 */
async function pullBaseOf(repo: Repository, baseRef: string, remote: string): Promise<string | undefined> {
  const prefix = `refs/remotes/${remote}/`
  if (![`${remote}/`, `remotes/${remote}/`, prefix].some(start => baseRef.startsWith(start))) return undefined
  // A git older than 2.43 echoes --end-of-options, which it does not know as rev-parse's: the name is the last line.
  const full = (await repo.git.run(['rev-parse', '--symbolic-full-name', '--end-of-options', baseRef])).stdout.trim().split('\n').pop() ?? ''
  const branch = full.startsWith(prefix) ? full.slice(prefix.length) : ''
  return branch && branch !== 'HEAD' ? branch : undefined
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
      `${quoted(to)} is not a valid branch name (see git check-ref-format)`,
      "Give a valid branch name, or true for the worktree's own."
    )
  return to
}

/** How the worktree is to be exited, as the main step was told: `onExit` when on-exit was not given. */
export function exitPlan(
  settings: EnterSettings,
  onExit: OnExit,
  commonDir: string
): Pick<WorktreeRecord, 'onExit' | 'onExitGiven' | 'discardChanges' | 'rescue' | 'rescueMaxBytes' | 'reclaim' | 'ephemeral' | 'inWorkspace' | 'leg'> {
  return {
    leg: settings.leg,
    onExit: settings.onExit ?? onExit,
    onExitGiven: settings.onExit !== undefined,
    discardChanges: settings.discardChanges,
    rescue: settings.rescue,
    rescueMaxBytes: settings.rescueMaxBytes,
    reclaim: settings.reclaim,
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
async function branchProblem(repo: Repository, branch: string, remoteNames: string[]): Promise<string | undefined> {
  if (branch.startsWith('-') || !(await repo.git.isValidBranchName(branch))) {
    return `${quoted(branch)} is not a valid branch name (see git check-ref-format: no "..", no spaces, no leading "-", no trailing ".lock")`
  }
  const long = branch.split('/').find(part => Buffer.byteLength(part) > NAME_MAX - 10)
  if (long) return `a part of the branch name is ${Buffer.byteLength(long)} bytes long, more than a file name may be`
  if (/^[0-9a-f]{4,64}$/i.test(branch)) return `${quoted(branch)} looks like a commit id, which git would read instead`
  if (/^[A-Z_]*HEAD$/.test(branch)) return `${quoted(branch)} is a name git uses for its own refs`
  const taken = await refsNamed(repo.git, repo.commonDir, [`refs/heads/${branch}`, `refs/tags/${branch}`, `refs/remotes/${branch}`, `refs/${branch}`])
  if (taken.includes(`refs/heads/${branch}`)) return `the branch ${quoted(branch)} already exists`
  if (taken.length)
    return `${quoted(taken[0])} exists, and a branch ${quoted(branch)} would ${taken[0].startsWith(`refs/heads/${branch}/`) ? 'clash with it' : 'make the name ambiguous'}`
  const remote = remoteNames.find(r => r && branch.startsWith(`${r}/`))
  if (remote) return `it starts with the remote name ${quoted(remote)}, so it would shadow the remote-tracking branch ${quoted(branch)} for every later job`
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
        `Write it in full (${quoted(`refs/remotes/${ref}`)} or ${quoted(`refs/heads/${ref}`)}), or delete the local branch that shadows it.`
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
  throw new InputError('base-ref', ref, `it does not name a commit in ${quoted(repo.toplevel)}`, `Use a branch, tag or commit that exists there.${remote}`)
}

/**
 * The kernel's pseudo file systems (Linux statfs types), which hold no folders of anyone's: mkdir there fails, or
 * in /proc says ENOENT of a folder whose parent exists, which makes node's recursive mkdir loop forever.
 */
const PSEUDO_FILE_SYSTEMS = new Map([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x1cd1, 'devpts'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0x6165676c, 'pstore'],
  [0xde5e81e4, 'efivarfs']
])

/** What a path is, or undefined where nothing is (also below a file: ENOTDIR). */
function entryAt(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p)
  } catch (error) {
    if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined
    throw error
  }
}

function kindOf(stat: fs.Stats): string {
  return stat.isFIFO() ? 'a named pipe' : stat.isSocket() ? 'a socket' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : 'a file'
}

/**
 * The folder for new worktrees, checked on the file system before anything is made (and before the repository
 * lock): a folder, or a path whose nearest existing parent is a folder this user may write, on a file system
 * that holds files; not a symbolic link (it could lead anywhere), not a file system's root. Returns it with
 * links resolved. `given` is worktrees-dir as typed; errors quote it so.
 */
export function checkWorktreesFolder(given: string | undefined, toplevel: string): string {
  const input = given === undefined ? 'worktrees-dir (default)' : 'worktrees-dir'
  const value = given ?? defaultWorktreesDir(toplevel)
  const dir = absolute(value)
  const long = dir.split(/[\\/]/).find(part => Buffer.byteLength(part) > NAME_MAX)
  if (long || Buffer.byteLength(dir) > PATH_MAX - 512)
    throw new InputError(input, value, 'the path is too long for the file system (a name over 255 bytes, or a path near 4096)', 'Give a shorter path.')
  const stat = entryAt(dir)
  if (stat?.isSymbolicLink())
    throw new InputError(input, value, `it is a symbolic link (to ${quoted(fs.readlinkSync(dir))})`, 'Give the real path of the folder instead.')
  if (stat && !stat.isDirectory())
    throw new InputError(input, value, `it is ${kindOf(stat)}, not a folder`, 'Point it at a folder, or at a path that does not exist yet.')
  let nearest = dir
  while (!entryAt(nearest)) nearest = path.dirname(nearest)
  const above = fs.statSync(nearest, { throwIfNoEntry: false })
  if (!above?.isDirectory())
    throw new InputError(
      input,
      value,
      `${quoted(nearest)} on the way is ${above ? kindOf(above) : 'a link that leads nowhere'}, not a folder`,
      'Give a path whose folders are folders.'
    )
  const real = realPath(dir)
  const pseudo = process.platform === 'linux' ? PSEUDO_FILE_SYSTEMS.get(fs.statfsSync(nearest).type) : undefined
  if (pseudo)
    throw new InputError(
      input,
      value,
      `it is on the kernel's ${pseudo} file system, which holds no folders of a job's`,
      'Give a folder on a disk, such as the default beside the checkout.'
    )
  const folder = realPath(nearest)
  try {
    fs.accessSync(folder, fs.constants.W_OK | fs.constants.X_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'EACCES'
    const what = folder === real ? 'write to' : `create ${quoted(path.relative(folder, real))} in`
    if (code === 'EROFS') throw new InputError(input, value, `${quoted(folder)} is on a read-only file system`, 'Give a folder on a disk the job may write.')
    throw new InputError(
      input,
      value,
      `the runner's user${process.getuid ? ` (uid ${process.getuid()})` : ''} cannot ${what} ${quoted(folder)} (${code})`,
      'Give a folder that user can write, or let it write there.'
    )
  }
  if (path.parse(real).root === real)
    throw new InputError(input, value, 'it is the root of a file system', 'Give a folder of its own, such as the default beside the checkout.')
  return real
}

/**
 * A folder (checked by checkWorktreesFolder) that may hold new worktrees of this repository: not inside a git
 * dir (git would register a worktree inside its own data), not inside another worktree, and inside the checkout
 * only where git ignores it (else the agent's files would be changes of the checkout).
 */
async function checkWorktreesDir(repo: Repository, real: string, given: string | undefined): Promise<string> {
  const input = given === undefined ? 'worktrees-dir (default)' : 'worktrees-dir'
  const value = given ?? defaultWorktreesDir(repo.toplevel)
  if (isReallyInside(real, repo.commonDir))
    throw new InputError(
      input,
      value,
      `it is inside the git dir ${quoted(repo.commonDir)}`,
      'Give a folder outside .git, such as the default beside the checkout.'
    )
  // The linked worktrees, where git's own listing finds them: each git dir's gitdir file.
  for (const folder of adminDirs(repo.commonDir).map(folderOf)) {
    if (folder !== undefined && (isInside(real, folder) || isReallyInside(real, folder)))
      throw new InputError(input, value, `it is inside the worktree ${quoted(folder)}`, 'Give a folder outside every worktree.')
  }
  if (isReallyInside(real, repo.toplevel)) {
    const relative = path.relative(realPath(repo.toplevel), real)
    const ignored = relative !== '' && (await repo.git.run(['check-ignore', '-q', '--', `${relative}/x`])).exitCode === 0
    if (!ignored) {
      throw new InputError(
        input,
        value,
        `it is inside the checkout ${quoted(repo.toplevel)}, which git does not ignore there`,
        `Add ${quoted(`${relative || '.'}/`)} to .gitignore, or give a folder outside the checkout (the default is beside it).`
      )
    }
  }
  return real
}
