// An index written by us, for a sealed view: from git's listing of an index the agent wrote (ls-files -s), each
// entry's mode, object and stage, and nothing else of it: no stat data (git then compares every file's bytes), no
// assume-unchanged bit, no extension. Format 2, or 3 where an entry keeps its skip-worktree bit; its checksum in the
// repository's hash (SHA-1, or SHA-256 where object ids are 64 digits).
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'

export interface IndexEntry {
  /** The mode ls-files prints, in octal (100644, 100755, 120000, 160000): as the agent's index holds it. */
  mode: string
  /** The object id, in hex. */
  object: string
  /** 0, or 1 to 3 for a conflict's sides. */
  stage: number
  /** The path's bytes. */
  name: Buffer
  skipWorktree?: boolean
}

/** The fixed part of an entry before its object id: ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size. */
const STAT_BYTES = 40
const NAME_MASK = 0xfff
const EXTENDED = 0x4000
const SKIP_WORKTREE = 0x4000

/**
 * An entry's mode as git makes one (create_ce_mode): a link, a sparse folder, a gitlink, else a file, executable or
 * not. The agent's index can hold any mode, which git lists as it is and would stop on in the view; mode 0 would be
 * no entry to update-index.
 */
export function entryMode(listed: string): number {
  const mode = parseInt(listed, 8) || 0
  const type = mode & 0o170000
  if (type === 0o120000 || type === 0o040000 || type === 0o160000) return type
  return mode & 0o100 ? 0o100755 : 0o100644
}

/** Writes `entries`, which must be in the order git listed them (by name, then stage), as the index `file`. */
export function writeIndexFile(file: string, entries: IndexEntry[]): void {
  const idBytes = entries[0]?.object.length === 64 ? 32 : 20
  const version = entries.some(entry => entry.skipWorktree) ? 3 : 2
  const fixed = STAT_BYTES + idBytes + 2
  // Each entry is padded with 1 to 8 NULs to a multiple of 8 bytes, as git writes it.
  const sizeOf = (entry: IndexEntry): number => (fixed + (entry.skipWorktree ? 2 : 0) + entry.name.length + 8) & ~7
  const body = Buffer.alloc(12 + entries.reduce((sum, entry) => sum + sizeOf(entry), 0))
  body.write('DIRC', 0, 'latin1')
  body.writeUInt32BE(version, 4)
  body.writeUInt32BE(entries.length, 8)
  let offset = 12
  for (const entry of entries) {
    body.writeUInt32BE(entryMode(entry.mode), offset + 24)
    body.write(entry.object, offset + STAT_BYTES, 'hex')
    const flags = (entry.skipWorktree ? EXTENDED : 0) | (entry.stage << 12) | Math.min(entry.name.length, NAME_MASK)
    body.writeUInt16BE(flags, offset + fixed - 2)
    if (entry.skipWorktree) body.writeUInt16BE(SKIP_WORKTREE, offset + fixed)
    entry.name.copy(body, offset + fixed + (entry.skipWorktree ? 2 : 0))
    offset += sizeOf(entry)
  }
  const checksum = createHash(idBytes === 32 ? 'sha256' : 'sha1')
    .update(body)
    .digest()
  fs.writeFileSync(file, Buffer.concat([body, checksum]))
}
