// An index written by us, for a sealed view: from git's listing of an index the agent wrote (ls-files -s), each
// entry's mode, object and stage, and nothing else of it: no stat data of the agent's (git then compares the file's
// bytes), no assume-unchanged bit, no extension. Format 2, or 3 where an entry keeps its skip-worktree bit; its
// checksum in the repository's hash (SHA-1, or SHA-256 where object ids are 64 digits). Stat data of our own is
// written where given: a park keeps its list of what it proved as such an index (git/parked-files.ts), read here.
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
  /**
   * What git compares with the file before it reads its bytes: the entry's first 40 bytes as the index keeps them
   * (ctime and mtime in seconds and nanoseconds, dev, ino, mode, uid, gid, size); zeros, always read, where not given.
   */
  stat?: Buffer
}

/** The fixed part of an entry before its object id: ctime, mtime (seconds, nanoseconds), dev, ino, mode, uid, gid, size. */
const STAT_BYTES = 40
const NAME_MASK = 0xfff
const EXTENDED = 0x4000
const STAGE_MASK = 0x3000
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
  fs.writeFileSync(file, indexBytes(entries))
}

/** The bytes of an index of `entries`, in the order git lists them. */
export function indexBytes(entries: IndexEntry[]): Buffer {
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
    entry.stat?.copy(body, offset, 0, STAT_BYTES)
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
  return Buffer.concat([body, checksum])
}

/**
 * A reader of an index such as indexBytes writes (format 2 or 3, object ids of `idBytes`): asked for names in the
 * order git lists them, it finds each entry of stage 0 once, with its stat data, reading the bytes once. Nothing is
 * found in bytes that are not such an index (its checksum is not checked: what it says is checked where it is used).
 */
export function indexReader(bytes: Buffer, idBytes: number): (name: Buffer) => IndexEntry | undefined {
  const version = bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'DIRC' ? bytes.readUInt32BE(4) : 0
  let left = version === 2 || version === 3 ? bytes.readUInt32BE(8) : 0
  const fixed = STAT_BYTES + idBytes + 2
  let offset = 12
  // The entry at `offset`, once read: where its name starts and ends, and its flags.
  let here: { start: number; end: number; flags: number } | undefined
  const read = (): typeof here => {
    if (left === 0 || offset + fixed > bytes.length) return undefined
    const flags = bytes.readUInt16BE(offset + fixed - 2)
    const start = offset + fixed + (flags & EXTENDED ? 2 : 0)
    // Byte by byte: a name is short, and a call into Buffer's own per entry costs more.
    let end = start
    while (end < bytes.length && bytes[end] !== 0) end++
    return end < bytes.length ? { start, end, flags } : undefined
  }
  return name => {
    while ((here ??= read())) {
      const { start, end, flags } = here
      let order = 0
      for (let i = 0; !order && i < name.length && start + i < end; i++) order = bytes[start + i] - name[i]
      if (!order) order = end - start - name.length
      if (order > 0) return undefined
      if (order === 0 && !(flags & STAGE_MASK)) {
        return {
          mode: bytes.readUInt32BE(offset + 24).toString(8),
          object: bytes.toString('hex', offset + STAT_BYTES, offset + STAT_BYTES + idBytes),
          stage: 0,
          name,
          stat: bytes.subarray(offset, offset + STAT_BYTES)
        }
      }
      // Its name sorts before the one asked for (or it is a conflict's side): the next.
      offset += (end - offset + 8) & ~7
      left--
      here = undefined
    }
    left = 0
    return undefined
  }
}
