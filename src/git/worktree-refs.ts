// Every commit that only a worktree's own git dir remembers, and that dies with it: what its HEAD
// pointed to since the job entered (the HEAD reflog), its own refs (refs/worktree/*, refs/bisect/*,
// refs/rewritten/*) and their reflogs, and the pseudo-refs of a merge, rebase, cherry-pick or revert
// left in progress. Read from the files, so that nothing git is told can hide them.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { kindOf, linesOf, readBytes, regularFilesBelow, writeReplacing } from '../os/untrusted-files.js'
import type { Git, GitResult } from './git-command-manager.js'

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/** Pseudo-refs and sequencer state that name commits, relative to the worktree's git dir. */
const PSEUDO_REFS = [
  'ORIG_HEAD',
  'MERGE_HEAD',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
  'REBASE_HEAD',
  'BISECT_HEAD',
  'rebase-merge/orig-head',
  'rebase-merge/onto',
  'rebase-merge/stopped-sha',
  'rebase-merge/amend',
  'rebase-apply/orig-head',
  'rebase-apply/onto',
  'rebase-apply/abort-safety',
  'sequencer/head',
  'sequencer/abort-safety'
]

/** The first line of a small file: a ref, a pseudo-ref. */
function firstLines(file: string, count = 1): string[] {
  const lines: string[] = []
  for (const line of linesOf(file)) {
    lines.push(line)
    if (lines.length >= count) break
  }
  return lines
}

/** Both sides of every reflog entry written at or after `since` (ms, taken to its whole second; all entries when undefined). */
export function reflogCommits(file: string, since?: number): string[] {
  const found: string[] = []
  for (const line of linesOf(file)) {
    // "<old> <new> <name> <email> <seconds> <zone>\t<message>"
    const match = /^(\S+) (\S+) .*> (\d+) [-+]\d{4}(\t|$)/.exec(line)
    // A reflog tells whole seconds: an entry of the second of `since` may come after it, and counts.
    if (!match || (since !== undefined && Number(match[3]) < Math.floor(since / 1000))) continue
    found.push(match[1], match[2])
  }
  return found.filter(id => OBJECT_ID.test(id) && !/^0+$/.test(id))
}

/** The commits a worktree's git dir remembers, HEAD's own target aside (git resolves HEAD). */
export function gitDirCommits(gitDir: string, since?: number): string[] {
  const found = [
    ...reflogCommits(path.join(gitDir, 'logs', 'HEAD'), since),
    ...regularFilesBelow(path.join(gitDir, 'logs', 'refs')).flatMap(file => reflogCommits(file, since)),
    ...regularFilesBelow(path.join(gitDir, 'refs')).flatMap(file => firstLines(file)),
    ...PSEUDO_REFS.flatMap(name => firstLines(path.join(gitDir, name), 1000).map(line => line.split(/\s/)[0]))
  ]
  return [...new Set(found.map(id => id.trim()).filter(id => OBJECT_ID.test(id)))]
}

/** The commits the reflog of a shared ref (refs/heads/<branch>, refs/stash) remembers since `since`. */
export function refReflogCommits(commonDir: string, ref: string, since?: number): string[] {
  return reflogCommits(path.join(commonDir, 'logs', ...ref.split('/')), since)
}

/**
 * Before git writes or deletes a ref that lives under `dir` (a git dir the agent can write), loose file and
 * reflog: a link on the way to either (refs/agent-worktree pointing into another repository), or in its place,
 * is removed. git writes a loose ref, appends to a reflog and deletes both by path, following the links of the
 * folders on the way, and would write or delete a file outside the repository.
 */
export function unlinkRefLinks(dir: string, ref: string): void {
  unlinkPackedRefsLink(dir)
  for (const parts of [ref.split('/'), ['logs', ...ref.split('/')]]) {
    let at = dir
    for (const part of parts) {
      at = path.join(at, part)
      const kind = kindOf(at)
      if (kind === 'link') fs.rmSync(at, { force: true })
      if (kind !== 'directory') break
    }
  }
}

/**
 * git follows a link at packed-refs to rewrite (and lock) the file it points to: the link goes, and the refs packed
 * in what it pointed to, when that is a regular file, come back as the repository's own file.
 */
function unlinkPackedRefsLink(dir: string): void {
  const file = path.join(dir, 'packed-refs')
  if (kindOf(file) !== 'link') return
  let packed: Buffer | undefined
  try {
    packed = readBytes(fs.realpathSync(file), MAX_PACKED_REFS)
  } catch {
    // leads nowhere: git reads no refs there either
  }
  if (packed) writeReplacing(file, packed)
  else fs.rmSync(file, { force: true })
}

/** No repository's packed-refs is larger (10 million refs of 100 bytes). */
const MAX_PACKED_REFS = 1024 * 1024 * 1024

export interface RefChange {
  /** The git dir whose reflog of the ref git writes: the common dir for a shared ref, a worktree's git dir for its HEAD. */
  log: string
  /** The git dir of a worktree whose HEAD names the branch written: git writes its HEAD reflog too. */
  head?: string
  message?: string
  /** Only while the ref is at this commit. */
  from?: string
  /** HEAD itself, not the branch it names. */
  noDeref?: boolean
  /** Throw when git refuses (or the step is cancelled), instead of returning git's answer. */
  required?: boolean
}

/** Every ref the action writes goes through here, so that no write follows a link the agent put on the way to a ref or its reflog. */
export async function writeRef(git: Git, ref: string, to: string, change: RefChange): Promise<GitResult> {
  return updateRef(git, [ref, to], ref, change)
}

export async function deleteRef(git: Git, ref: string, change: RefChange): Promise<GitResult> {
  return updateRef(git, ['-d', ref], ref, change)
}

async function updateRef(git: Git, what: string[], ref: string, change: RefChange): Promise<GitResult> {
  unlinkRefLinks(change.log, ref)
  if (change.head) unlinkRefLinks(change.head, 'HEAD')
  const args = [
    'update-ref',
    ...(change.noDeref ? ['--no-deref'] : []),
    ...(change.message ? ['-m', change.message] : []),
    ...what,
    ...(change.from ? [change.from] : [])
  ]
  if (!change.required) return git.run(args)
  return { exitCode: 0, stdout: await git.exec(args), stderr: '' }
}
