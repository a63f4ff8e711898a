// An index entry forged as an agent can forge it (it writes the index as it likes): the stat data of the file as
// it is now (size, times, inode), with an object id of the forger's choosing, so that git, trusting the stat data,
// calls a changed file unchanged. Index versions 2 and 3 (git's default); extensions dropped, checksum made again.
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
  const body = index.subarray(0, offset)
  fs.writeFileSync(indexFile, Buffer.concat([body, createHash('sha1').update(body).digest()]))
}
