// Removing a worktree's folder so that no file written after the gate is lost: the folder is first moved
// aside in one rename (a writer by path then misses it), checked again there, and only then deleted;
// its registration and branch go last, once nothing of it remains on disk.
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { isInside, samePath } from './paths.js'
import { childEnvironment, type Platform } from './processes.js'
import type { Repository } from './repository.js'
import { describeFindings, inspect, nothingNew, type Findings, type GateInput } from './safety-gate.js'
import { dropKeptRef, keptRef } from './rescue.js'
import { writeHints, type WorktreeRecord } from './state-helper.js'

export interface Outcome {
  reason: 'clean' | 'parked' | 'busy' | 'changed' | 'incomplete' | 'mounted'
  /** For 'clean', what happened to the branch; otherwise why the worktree is kept. */
  detail: string
}

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
  return mountTable(platform).filter(point => isInside(point, dir, platform))
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
 * Under the repository lock: moves the folder aside, checks it there again, deletes it, and only then
 * drops the registration and deletes the branch if it still points where the gate saw it. Nothing is
 * unregistered while files remain.
 */
export async function removeWorktreeFolder(
  repo: Repository,
  record: WorktreeRecord,
  gitDir: string,
  findings: Findings,
  gate: GateInput,
  trusted: boolean
): Promise<Outcome> {
  // Never anything but a linked worktree's git dir, whatever a record named.
  if (!samePath(path.dirname(gitDir), path.join(repo.commonDir, 'worktrees'))) throw new Error(`${gitDir} is not a git dir of a worktree of ${repo.commonDir}`)
  if (gate.folder) {
    const folder = gate.folder
    // Submodules' git dirs name their folders by path (core.worktree): a worktree with submodules is
    // checked again where it is, which leaves a window of a few milliseconds open.
    const aside = fs.existsSync(path.join(gitDir, 'modules')) ? folder : quarantinePath(folder)
    // (A removal cut short is finished where it was moved: quarantinePath gives the same folder.)
    const mark = (removing: boolean): void => writeHints(gitDir, { removing }, trusted ? record : undefined)
    const mounted = mountsInside(folder)
    if (mounted.length) return { reason: 'mounted', detail: mounted.join(', ') }
    // Marked first: a step cut short after the move lets the next one finish, through the gate.
    mark(true)
    try {
      if (aside !== folder) await renameFolder(folder, aside)
    } catch (error) {
      mark(false)
      return {
        reason: 'busy',
        detail: `it could not be moved aside for removal (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); a process may hold files open in it`
      }
    }
    const again = await inspect({ ...gate, folder: aside, previous: findings })
    const mountedSince = mountsInside(aside)
    if (!nothingNew(findings, again) || mountedSince.length) {
      if (aside !== folder) await renameFolder(aside, folder)
      mark(false)
      if (mountedSince.length) return { reason: 'mounted', detail: mountedSince.map(point => path.join(folder, path.relative(aside, point))).join(', ') }
      return { reason: 'changed', detail: again.error ?? describeFindings(again) }
    }
    const left = await deleteTree(aside)
    if (left) return { reason: 'incomplete', detail: `${left} in ${aside}` }
  }
  fs.rmSync(gitDir, { recursive: true, force: true })
  try {
    fs.rmdirSync(path.dirname(gitDir)) // .git/worktrees, when it was the last one, as git does
  } catch {
    // others remain
  }
  // A kept mark of an earlier exit (the worktree was kept, then taken over or exited again) goes with it.
  await dropKeptRef(repo.git, repo.commonDir, keptRef(gitDir, record.token))
  return { reason: 'clean', detail: await deleteBranch(repo, gate.branchesToDelete[0], findings, trusted) }
}

/**
 * Deletes the branch only if it still points where the gate saw it: a commit that lands meanwhile keeps it.
 * The gate counted its commits, so deleting it loses nothing that was not discarded on purpose.
 */
export async function deleteBranch(repo: Repository, branch: string | undefined, findings: Findings, trusted: boolean): Promise<string> {
  if (!branch) return ''
  const seen = findings.branchTips?.[branch]
  if (!seen) return `; its branch ${branch} was kept (its tip could not be read)`
  const deletion = await repo.git.run(['update-ref', '-d', `refs/heads/${branch}`, seen])
  if (deletion.exitCode === 0) return ` and deleted its branch ${branch}`
  return `; its branch ${branch} was kept: it ${trusted ? 'moved after the check' : 'could not be deleted'} (${deletion.stderr.trim()})`
}
