// Removing a worktree's folder so that no file written after the gate is lost: the folder is first moved
// aside in one rename (a writer by path then misses it), checked again there, and only then deleted;
// its registration and branch go last, once nothing of it remains on disk.
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Kind } from './kinds/kind.js'
import type { Believed } from './evidence.js'
import { defaultWorktreesDir } from '../record/names.js'
import { ownershipOf } from '../record/ownership.js'
import { isInside, isReallyInside, realPath, samePath } from '../os/paths.js'
import { childEnvironment, type Platform, type Resident } from '../os/processes.js'
import { adminDirs, checkFolder, isOrphanFolder, lockOf, type FolderState, type Repository } from '../git/repository.js'
import { inspect, type GateInput } from '../gate/safety-gate.js'
import { deleteBranch, type BranchDeletion } from '../gate/delete-branch.js'
import { nothingNew, type Findings } from '../gate/findings.js'
import { readRecordFile, writeHints, type WorktreeRecord } from '../record/state-helper.js'
import { kindOf } from '../os/untrusted-files.js'
import { quoted } from '../os/quote.js'

/** What a removal did: removed (and its branch), parked, or why the worktree stays. */
export type Outcome =
  | { reason: 'clean'; branch?: BranchDeletion }
  | { reason: 'parked' }
  /** Processes still work inside it, the repository lock could not be had, or the folder could not be moved aside. */
  | { reason: 'busy'; residents?: Resident[]; lockTimeout?: string; unmovable?: string }
  | { reason: 'mounted'; mounts: string[] }
  /** It changed while it was being removed: what the check again found. */
  | { reason: 'changed'; findings: Findings }
  | { reason: 'incomplete'; left: string; at: string }

/** Where a removal moves the worktree's folder before deleting it: beside it, so the rename is atomic. */
export function quarantinePath(folder: string): string {
  return isQuarantine(folder) ? folder : path.join(path.dirname(folder), `.${path.basename(folder)}${QUARANTINE}`)
}

const QUARANTINE = '.agent-worktree-removing'

/** A folder already moved aside by a removal that was cut short. */
export function isQuarantine(folder: string): boolean {
  return path.basename(folder).startsWith('.') && path.basename(folder).endsWith(QUARANTINE)
}

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms))

/** Codes of a file held open (Windows) or of a scan in progress: worth a few more tries. */
const BUSY = new Set(['EBUSY', 'EPERM', 'EACCES', 'ENOTEMPTY'])

/** Renames, retrying with a short back-off while Windows reports the folder in use. */
export async function renameFolder(from: string, to: string, platform: Platform = process.platform, rename = fs.renameSync, attempts = 5): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      rename(from, to)
      return
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? ''
      if (platform !== 'win32' || !BUSY.has(code) || attempt === attempts) throw error
      await sleep(100 * 2 ** attempt)
    }
  }
}

/**
 * Deletes a folder and everything in it: also read-only folders (Go's module cache), read-only files
 * (Windows), files held open for a moment (Windows, retried) and paths longer than PATH_MAX (POSIX rm).
 * Returns undefined when the folder is gone, else what is left and why.
 */
export async function deleteTree(dir: string, platform: Platform = process.platform): Promise<string | undefined> {
  let first: NodeJS.ErrnoException | undefined
  const attempt = async (): Promise<boolean> => {
    try {
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: platform === 'win32' ? 6 : 0, retryDelay: 100 })
    } catch (error) {
      first ??= error as NodeJS.ErrnoException
    }
    return !fs.existsSync(dir)
  }
  if (await attempt()) return undefined
  makeWritable(dir, platform)
  if (await attempt()) return undefined
  if (platform !== 'win32') {
    // fts-based tools walk trees of any depth; node's fs works on whole paths. Neither crosses into another
    // file system (checked before, see mountsInside; this is the second line).
    await run('chmod', ['-R', 'u+rwx', '--', dir])
    await run('rm', [platform === 'linux' ? '--one-file-system' : '-x', '-rf', '--', dir])
    if (!fs.existsSync(dir)) return undefined
  }
  const left = countEntries(dir)
  return `${left === undefined ? 'some files' : `${left} file${left === 1 ? '' : 's'} or folder${left === 1 ? '' : 's'}`} could not be deleted${first ? ` (${first.message})` : ''}`
}

function makeWritable(dir: string, platform: Platform): void {
  const visit = (p: string): void => {
    let stat: fs.Stats
    try {
      stat = fs.lstatSync(p)
    } catch {
      return
    }
    if (stat.isSymbolicLink()) return
    try {
      if (stat.isDirectory()) fs.chmodSync(p, stat.mode | 0o700)
      else if (platform === 'win32') fs.chmodSync(p, 0o666)
    } catch {
      // not ours to change; the deletion will say so
    }
    if (stat.isDirectory()) {
      let names: string[]
      try {
        names = fs.readdirSync(p)
      } catch {
        return
      }
      for (const name of names) visit(path.join(p, name))
    }
  }
  visit(dir)
}

function countEntries(dir: string): number | undefined {
  try {
    return fs.readdirSync(dir, { recursive: true }).length + 1
  } catch {
    return undefined
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise(resolve => {
    const child = spawn(command, args, { stdio: 'ignore', env: childEnvironment() })
    child.on('error', () => resolve())
    child.on('close', () => resolve())
  })
}

/**
 * Mount points at or below `dir`: a removal would delete the files of another file system (a bind mount of
 * a folder that lives elsewhere). Linux reads its mount table; macOS asks mount(8); elsewhere none are seen.
 */
export function mountsInside(dir: string, platform: Platform = process.platform, mountTable = readMountTable): string[] {
  // The mount table names real paths: the folder's, with every link resolved, is compared.
  const real = realPath(dir, platform)
  return mountTable(platform).filter(point => isInside(point, dir, platform) || isInside(point, real, platform))
}

function readMountTable(platform: Platform): string[] {
  if (platform === 'linux') {
    try {
      // Field 5 is the mount point, with space, tab, newline and backslash written as octal escapes.
      return fs
        .readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .map(line => line.split(' ')[4])
        .filter((point): point is string => Boolean(point))
        .map(point => point.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))))
    } catch {
      return []
    }
  }
  if (platform === 'darwin') {
    const out = spawnSync('mount', [], { encoding: 'utf8', env: childEnvironment(), timeout: 10_000 })
    return typeof out.stdout === 'string' ? [...out.stdout.matchAll(/ on (.+) \(/g)].map(match => match[1]) : []
  }
  return []
}

/**
 * Who is removed: its token (its kept mark's), the checkout it was entered from (whose worktrees folder goes with
 * its last worktree), and the step's own record, where the step has one: the mark of a removal under way goes into
 * the record file, and where there is none, the step's own record is written first, sealed.
 */
export type Removing = Pick<WorktreeRecord, 'token' | 'repository'> & { own?: WorktreeRecord; believed?: Pick<Believed, 'madeFolder'> }

/**
 * Under the repository lock: moves the folder aside, checks it there again, deletes it, and only then
 * drops the registration and deletes the branch if it still points where the gate saw it. Nothing is
 * unregistered while files remain. `entry`: where this action keeps the lock and record, of the kind.
 */
export async function removeWorktreeFolder(
  repo: Repository,
  kind: Kind,
  entry: string,
  removing: Removing,
  findings: Findings,
  gate: GateInput
): Promise<Outcome> {
  // Never anything but a folder of ours of the kind (a linked worktree's git dir, a clone's folder), whatever a record named.
  if (!samePath(kind.entry(repo.commonDir, path.basename(entry)), entry))
    throw new Error(`${quoted(entry)} is not a git dir of a worktree of ${quoted(repo.commonDir)}`)
  if (gate.folder) {
    const removed = await removeFolder(repo, kind, entry, removing, findings, gate, gate.folder)
    if (removed) return removed
    dropEmptyWorktreesDir(path.dirname(gate.folder), removing.repository, removing.believed?.madeFolder)
  }
  await kind.forget(repo, entry, removing.token)
  const branch = gate.branchesToDelete[0]
  return { reason: 'clean', branch: branch ? await deleteBranch(repo, branch, { seen: findings.branchTips?.[branch] }) : undefined }
}

/**
 * The folder of worktrees goes with its last worktree where it is this action's own: the default beside the
 * checkout (its name is ours), or one the main step made (`made`: the outermost folder it made, which the
 * step's own record vouches for), with the empty folders above it up to that one. rmdir, under the repository
 * lock that every add in it holds, removes a folder only while it is empty; one that was there before stays.
 */
function dropEmptyWorktreesDir(dir: string, repository: string, made: string | undefined): void {
  const folders = samePath(dir, defaultWorktreesDir(repository)) ? [dir] : made ? foldersUpTo(dir, made) : []
  for (const folder of folders) {
    try {
      fs.rmdirSync(folder)
    } catch {
      // not empty: another leg's worktree, or anything else
      return
    }
  }
}

/** `dir` and the folders above it up to `top`, innermost first; none when `dir` is not inside `top`. */
function foldersUpTo(dir: string, top: string): string[] {
  if (!isReallyInside(dir, top)) return []
  const [from, to] = [realPath(dir), realPath(top)]
  const folders = [from]
  for (let d = from; d !== to && path.dirname(d) !== d; d = path.dirname(d)) folders.push(path.dirname(d))
  return folders
}

/** Deletes the folder, or says why it stays (undefined: it is gone). */
async function removeFolder(
  repo: Repository,
  kind: Kind,
  entry: string,
  removing: Removing,
  findings: Findings,
  gate: GateInput,
  folder: string
): Promise<Outcome | undefined> {
  // Submodules' git dirs name their folders by path (core.worktree): a worktree with submodules is
  // checked again where it is, which leaves a window of a few milliseconds open.
  const aside = fs.existsSync(path.join(gate.gitDir, 'modules')) ? folder : quarantinePath(folder)
  // (A removal cut short is finished where it was moved: quarantinePath gives the same folder.)
  const mark = (moving: boolean): void => writeHints(entry, { removing: moving }, removing.own)
  const mounted = mountsInside(folder)
  if (mounted.length) return { reason: 'mounted', mounts: mounted }
  // Marked first: a step cut short after the move lets the next one finish, through the gate.
  mark(true)
  try {
    if (aside !== folder) await renameFolder(folder, aside)
  } catch (error) {
    mark(false)
    return { reason: 'busy', unmovable: (error as NodeJS.ErrnoException).code ?? (error as Error).message }
  }
  // A clone's git dir moved with its folder.
  const gitDir = kind.gitDir(entry, aside)
  const again = await inspect({ ...gate, gitDir, commonDir: kind.own(repo, gitDir).commonDir, folder: aside, previous: findings })
  const mountedSince = mountsInside(aside)
  if (!nothingNew(findings, again) || mountedSince.length) {
    if (aside !== folder) await renameFolder(aside, folder)
    mark(false)
    if (mountedSince.length) return { reason: 'mounted', mounts: mountedSince.map(point => path.join(folder, path.relative(aside, point))) }
    return { reason: 'changed', findings: again }
  }
  const left = await deleteTree(aside)
  return left ? { reason: 'incomplete', left, at: aside } : undefined
}

/** A worktree folder as an exit finds it, after a removal that was cut short has been settled. */
export interface Settled {
  /** Where the folder is now: where git has it, or moved aside by a removal that is to be finished. */
  here: string
  state: FolderState
  /** A removal was cut short after it moved the folder aside: it goes on, through the gate, deletions allowed. */
  finishing: boolean
}

/**
 * A removal cut short leaves the folder moved aside. Marked as being removed (the deletion may have begun and
 * taken its .git file too), what is left is judged where it is, deletions allowed, and the removal goes on;
 * otherwise it goes back where git has it, to be judged as usual.
 */
export async function settleFolder(folder: string, gitDir: string, removing: boolean): Promise<Settled> {
  const state = checkFolder(folder, gitDir)
  const aside = quarantinePath(folder)
  if (state !== 'missing' || kindOf(aside) !== 'directory') return { here: folder, state, finishing: false }
  if (removing) return { here: aside, state: 'intact', finishing: true }
  if (checkFolder(aside, gitDir) !== 'intact') return { here: folder, state, finishing: false }
  await renameFolder(aside, folder)
  return { here: folder, state: 'intact', finishing: false }
}

/** A removal that cannot be finished after all: the folder goes back where git has it, if still whole. Returns where it is. */
export async function putBack(settled: Settled, folder: string, gitDir: string): Promise<string> {
  if (settled.finishing && checkFolder(settled.here, gitDir) === 'intact') await renameFolder(settled.here, folder).catch(() => undefined)
  return fs.existsSync(folder) ? folder : settled.here
}

/** What a step cut short in the middle of `git worktree add` had left, and was cleared. */
export interface Cleared {
  gitDir?: string
  folder?: boolean
  branch?: BranchDeletion
}

/** The add a step was cut short in: its git dir's id (none while the add had not finished), path, branch and token, and the base it planned. */
export type CutShortAdd = Pick<WorktreeRecord, 'id' | 'path' | 'branch' | 'token'> & { base?: string }

/**
 * What a step cut short in the middle of `git worktree add` leaves at a path that is no longer a
 * worktree: a git dir git no longer lists (it holds this step's record or token, or lacks its gitdir
 * file and bears the worktree's name), a folder holding nothing but a .git file that points to that git
 * dir, and the branch, which git creates first; the branch goes only on the gate's proof that none of its
 * commits is unsaved. Only for the post's own add (an exit's Evidence.believed.ownAdd).
 */
export async function clearCutShortAdd(repo: Repository, add: CutShortAdd): Promise<Cleared> {
  const cleared: Cleared = {}
  // Only an add that never finished: once it had, the post's state holds the id of its git dir, and a
  // git dir that git no longer lists (its gitdir file deleted) still holds the agent's reflogs.
  const gitDir = add.id ? undefined : halfGoneGitDir(repo.commonDir, add)
  if (gitDir) {
    fs.rmSync(gitDir, { recursive: true, force: true })
    cleared.gitDir = gitDir
  }
  // The folder goes only when it is empty, or holds nothing but a .git file that points into this
  // repository at a git dir that no longer exists: a folder another repository's add made is left alone.
  const names = kindOf(add.path) === 'directory' ? fs.readdirSync(add.path) : undefined
  if (names && (names.length === 0 || (names.length === 1 && names[0] === '.git' && isOrphanFolder(repo.commonDir, add.path)))) {
    fs.rmSync(add.path, { recursive: true, force: true })
    cleared.folder = true
  }
  if (add.branch && add.base) {
    const branch = await deleteBranch(repo, add.branch, { savedBeyond: add.base })
    if (branch.deleted) cleared.branch = branch
  }
  return cleared
}

function halfGoneGitDir(commonDir: string, add: CutShortAdd): string | undefined {
  const id = path.basename(add.path)
  return adminDirs(commonDir).find(dir => {
    if (ownershipOf(lockOf(dir), readRecordFile(dir)?.token, add.token) === 'ours') return true
    const name = path.basename(dir)
    // git names the git dir after the folder, with a number added when that name is taken.
    const sameId = name === id || (name.startsWith(id) && /^\d+$/.test(name.slice(id.length)))
    return sameId && !fs.existsSync(path.join(dir, 'gitdir'))
  })
}
