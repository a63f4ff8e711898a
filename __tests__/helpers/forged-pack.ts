// A pack forged as an agent can forge it (it writes the object store as it likes): the right bytes of one object,
// packed by git, under an index (.idx, version 2) that names it by the id of another, so that git, which finds a
// packed object by its index and checks no hash on an ordinary read, gives the one for the other.
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { deflateSync } from 'node:zlib'

/** Writes into `objectsDir/pack` a pack that holds the bytes of `real` and an index that names them `claimed`; returns the pack's path. */
export function forgePack(gitDir: string, objectsDir: string, real: string, claimed: string): string {
  const temp = fs.mkdtempSync(path.join(objectsDir, 'forge-'))
  try {
    const name = execFileSync('git', ['--git-dir', gitDir, 'pack-objects', path.join(temp, 'pack')], { input: `${real}\n` })
      .toString()
      .trim()
    const idx = renamed(fs.readFileSync(path.join(temp, `pack-${name}.idx`)), new Map([[real, claimed]]))
    const packDir = path.join(objectsDir, 'pack')
    fs.mkdirSync(packDir, { recursive: true })
    fs.renameSync(path.join(temp, `pack-${name}.pack`), path.join(packDir, `pack-${name}.pack`))
    fs.writeFileSync(path.join(packDir, `pack-${name}.idx`), idx)
    // git looks in the newest pack first, by its time to the second: this one is newer than any.
    const later = new Date(Date.now() + 60_000)
    fs.utimesSync(path.join(packDir, `pack-${name}.pack`), later, later)
    return path.join(packDir, `pack-${name}.pack`)
  } finally {
    fs.rmSync(temp, { recursive: true, force: true })
  }
}

/** An index of version 2 with ids renamed, entries sorted again, fan-out and checksum made again. */
function renamed(idx: Buffer, names: Map<string, string>): Buffer {
  const count = idx.readUInt32BE(8 + 255 * 4)
  const ids = 8 + 256 * 4
  const crcs = ids + count * 20
  const offsets = crcs + count * 4
  const entries = Array.from({ length: count }, (_, i) => {
    const id = idx.subarray(ids + i * 20, ids + (i + 1) * 20).toString('hex')
    return { id: names.get(id) ?? id, crc: idx.subarray(crcs + i * 4, crcs + i * 4 + 4), offset: idx.subarray(offsets + i * 4, offsets + i * 4 + 4) }
  }).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const out = Buffer.from(idx)
  entries.forEach((e, i) => {
    Buffer.from(e.id, 'hex').copy(out, ids + i * 20)
    e.crc.copy(out, crcs + i * 4)
    e.offset.copy(out, offsets + i * 4)
  })
  for (let byte = 0; byte < 256; byte++) out.writeUInt32BE(entries.filter(e => parseInt(e.id.slice(0, 2), 16) <= byte).length, 8 + byte * 4)
  createHash('sha1')
    .update(out.subarray(0, out.length - 20))
    .digest()
    .copy(out, out.length - 20)
  return out
}

/** Writes the loose object of `real`'s bytes under the name of `claimed` (zlib of "<type> <size>\0<body>"). */
export function forgeLoose(gitDir: string, objectsDir: string, real: string, claimed: string): string {
  const type = execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-t', real]).toString().trim()
  const body = execFileSync('git', ['--git-dir', gitDir, 'cat-file', type, real])
  const file = path.join(objectsDir, claimed.slice(0, 2), claimed.slice(2))
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.rmSync(file, { force: true })
  fs.writeFileSync(file, deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])))
  return file
}
