// An index entry forged as an agent can forge it (it writes the index as it likes): the stat data of the file as
// it is now (size, times, inode), with an object id of the forger's choosing, so that git, trusting the stat data,
// calls a changed file unchanged. Index versions 2 and 3 (git's default); extensions dropped, checksum made again.
// And an untracked cache (the index's UNTR extension) whose stat data of a folder is set to the folder's own after a
// file was written there: a git that believes the cache does not list the file.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'

export function forgeEntry(indexFile: string, worktree: string, name: string, objectId: string): void {
  const index = fs.readFileSync(indexFile)
  const version = index.readUInt32BE(4)
  const count = index.readUInt32BE(8)
  const stat = fs.statSync(path.join(worktree, name), { bigint: true })
  const seconds = (ns: bigint): [number, number] => [Number(ns / 1_000_000_000n), Number(ns % 1_000_000_000n)]
  let offset = 12
  let found = false
  for (let i = 0; i < count; i++) {
    const flags = index.readUInt16BE(offset + 60)
    const start = offset + 62 + (version >= 3 && flags & 0x4000 ? 2 : 0)
    const length = flags & 0xfff
    if (index.subarray(start, start + length).toString() === name) {
      const [[cs, cn], [ms, mn]] = [seconds(stat.ctimeNs), seconds(stat.mtimeNs)]
      const fields = [
        cs,
        cn,
        ms,
        mn,
        Number(stat.dev & 0xffffffffn),
        Number(stat.ino & 0xffffffffn),
        null,
        Number(stat.uid),
        Number(stat.gid),
        Number(stat.size & 0xffffffffn)
      ]
      fields.forEach((value, k) => value !== null && index.writeUInt32BE(value, offset + 4 * k))
      Buffer.from(objectId, 'hex').copy(index, offset + 40)
      found = true
    }
    offset += (start - offset + length + 8) & ~7
  }
  if (!found) throw new Error(`${name} is not in ${indexFile}`)
  writeIndex(indexFile, index.subarray(0, offset))
}

/** An index's bytes, with the checksum git expects at its end (SHA-1 repositories). */
function writeIndex(indexFile: string, body: Buffer): void {
  fs.writeFileSync(indexFile, Buffer.concat([body, createHash('sha1').update(body).digest()]))
}

/** A folder's stat data as the untracked cache keeps it: ctime, mtime (seconds, nanoseconds), dev, ino, uid, gid, size. */
function statData(dir: string): Buffer {
  const s = fs.statSync(dir, { bigint: true })
  const fields = [s.ctimeMs / 1000n, s.ctimeNs % 1_000_000_000n, s.mtimeMs / 1000n, s.mtimeNs % 1_000_000_000n, s.dev, s.ino, s.uid, s.gid, s.size]
  const bytes = Buffer.alloc(36)
  fields.forEach((value, i) => bytes.writeUInt32BE(Number(value & 0xffffffffn), i * 4))
  return bytes
}

/**
 * Runs `write` (which writes into `folder`), then sets the stat data the index's untracked cache keeps of `folder`
 * to the folder's new one. Throws where the cache has no record of the folder. The index is written a second after
 * the folder changed: within the same second git takes the folder's stat data as racy, and reads it again.
 */
export async function forgeUntrackedCache(indexFile: string, folder: string, write: () => void): Promise<void> {
  const before = statData(folder)
  write()
  const after = statData(folder)
  await new Promise(resolve => setTimeout(resolve, 1100))
  const index = fs.readFileSync(indexFile)
  const body = index.subarray(0, index.length - 20)
  const at = body.indexOf(before)
  if (at === -1) throw new Error(`the untracked cache of ${indexFile} has no record of ${folder}`)
  writeIndex(indexFile, Buffer.concat([body.subarray(0, at), after, body.subarray(at + after.length)]))
}
