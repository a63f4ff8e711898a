// What a park proved of a worktree's files, kept for the job that takes it from the pool: each tracked file's object
// and mode, as the gate compared the file's bytes with them, and its stat data as it was. The take's gate gives git
// that stat data for every file whose entry is still the one proven, and git then reads the bytes only of the files
// whose stat data is not what it was: the proof costs a look at each file and a read of what changed.
//
// Why stat data can be believed here: the kernel sets a file's change time (ctime) to the time of any change to it
// (its bytes, mode, times or name), and nothing but root sets it otherwise. The park marks a time on the worktree's own
// filesystem (the folder's ctime) before the gate reads the files, and keeps only files whose ctime lies in an
// earlier second: any change since gives a ctime of a later second, which git compares (it compares no nanoseconds
// unless built to). One way around it: bytes written through a shared memory mapping made before the mark show in the
// ctime only once the kernel has written the page out; a process that outlives the job's sandbox to do that is the
// runner's user's, which can as well write into the next job's worktree after its take, or rewrite this list. The list
// lies in the git dir of the parked worktree, read-only in every sandbox list (sandbox/paths.ts), as the object store's
// list is: who can write it (unconfined) can as well rewrite the object store every checkout reads. It is an index of
// its own (index-file.ts). It is only ever a shortcut: where it cannot be written, the old one goes, and the take reads
// every file.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { entryMode, indexBytes, indexReader, type IndexEntry } from './index-file.js'
import { inside, readBytes, writeReplacing } from '../os/untrusted-files.js'

/** The list's file, in the git dir of a worktree (the entry of a clone). */
export const PARKED_FILES = 'agent-worktree-parked'

/** What a park proved: asked for names in the order git lists them, the entry proven of each, if any. */
export type ParkedFiles = (name: Buffer) => IndexEntry | undefined

/** About 100 bytes a file: a list of a few million files. */
const MAX_LIST = 512 * 1024 * 1024
const SECOND = 1_000_000_000n

/**
 * Marks this moment on the filesystem of `folder` (its ctime, set anew by setting its times to what they are: a chmod
 * could drop its setgid bit) and returns its second; undefined where it cannot, and on Windows, where git keeps a
 * file's creation time in the place of its change time: no change since would show there.
 */
export function markParking(folder: string, platform = process.platform): bigint | undefined {
  if (platform === 'win32') return undefined
  try {
    const { atime, mtime } = fs.lstatSync(folder)
    fs.utimesSync(folder, atime, mtime)
    return fs.lstatSync(folder, { bigint: true }).ctimeNs / SECOND
  } catch {
    return undefined
  }
}

/**
 * Keeps in `entry` what the park proved, where it can: `entries`, the index entries the gate compared the files of
 * `folder` with after `mark`; where there are none to keep (or no mark), or they cannot be written, no list.
 */
export function keepParkedFiles(entry: string, folder: string, entries: readonly IndexEntry[] | undefined, mark: bigint | undefined): void {
  const file = path.join(entry, PARKED_FILES)
  try {
    if (entries && mark !== undefined) return writeParkedFiles(file, folder, entries, mark)
  } catch {
    // A folder or anything else at its name: no list, as below.
  }
  try {
    fs.rmSync(file, { force: true })
  } catch {
    // Still there, and not a file the take can read (a folder): it reads every file.
  }
}

/** Writes `file`: of `entries`, each file (or link) whose ctime lies before the mark's second. */
function writeParkedFiles(file: string, folder: string, entries: readonly IndexEntry[], mark: bigint): void {
  const proven: IndexEntry[] = []
  for (const { mode, object, stage, name, skipWorktree } of entries) {
    const type = entryMode(mode) & 0o170000
    if (stage !== 0 || skipWorktree || (type !== 0o100000 && type !== 0o120000)) continue
    let stat: fs.BigIntStats | undefined
    try {
      stat = fs.lstatSync(inside(folder, name.toString('latin1'), 'latin1'), { bigint: true, throwIfNoEntry: false })
    } catch {
      continue
    }
    if (!stat || !(stat.isFile() || stat.isSymbolicLink()) || stat.ctimeNs / SECOND >= mark) continue
    proven.push({ mode, object, stage, name, stat: statData(stat) })
  }
  writeReplacing(file, indexBytes(proven))
}

/** What the park of `entry` proved, in a repository whose object ids are `idBytes` long; undefined where it kept no list. */
export function readParkedFiles(entry: string, idBytes: number): ParkedFiles | undefined {
  const bytes = readBytes(path.join(entry, PARKED_FILES), MAX_LIST)
  return bytes && indexReader(bytes, idBytes)
}

/** The stat data git keeps of a file, as an index holds it: each field's low 32 bits. */
function statData(stat: fs.BigIntStats): Buffer {
  const fields = [
    stat.ctimeNs / SECOND,
    stat.ctimeNs % SECOND,
    stat.mtimeNs / SECOND,
    stat.mtimeNs % SECOND,
    stat.dev,
    stat.ino,
    stat.mode,
    stat.uid,
    stat.gid,
    stat.size
  ]
  const bytes = Buffer.alloc(4 * fields.length)
  fields.forEach((field, i) => bytes.writeUInt32BE(Number(BigInt.asUintN(32, field)), 4 * i))
  return bytes
}
