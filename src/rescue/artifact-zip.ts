// A rescue artifact's zip, read by the restore itself and within bounds: the artifact client would unpack whatever
// a zip holds (a megabyte that inflates to a gigabyte) into the runner's temp folder before the restore could look.
// Only the central directory is believed for sizes, and no entry writes more than it says.
import * as fs from 'node:fs'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import * as zlib from 'node:zlib'
import { quoted } from '../os/quote.js'

export interface ZipEntry {
  name: string
  /** 0: stored; 8: deflated. */
  method: number
  compressed: number
  size: number
  offset: number
}

const END_OF_DIRECTORY = 0x06054b50
const DIRECTORY_ENTRY = 0x02014b50
const LOCAL_HEADER = 0x04034b50
/** The end record and the longest comment a zip may have after it. */
const TAIL_BYTES = 22 + 0xffff

/** The entries of the zip's central directory; undefined when the file is not a zip this reads (zip64, split, cut short). */
export function zipEntries(file: string): ZipEntry[] | undefined {
  const fd = fs.openSync(file, 'r')
  try {
    const { size } = fs.fstatSync(fd)
    const tail = Buffer.alloc(Math.min(size, TAIL_BYTES))
    fs.readSync(fd, tail, 0, tail.length, size - tail.length)
    let end = tail.length - 22
    while (end >= 0 && tail.readUInt32LE(end) !== END_OF_DIRECTORY) end--
    if (end < 0) return undefined
    const [count, dirSize, dirOffset] = [tail.readUInt16LE(end + 10), tail.readUInt32LE(end + 12), tail.readUInt32LE(end + 16)]
    if (dirOffset + dirSize > size) return undefined
    const dir = Buffer.alloc(dirSize)
    fs.readSync(fd, dir, 0, dirSize, dirOffset)
    const entries: ZipEntry[] = []
    for (let at = 0, i = 0; i < count; i++) {
      if (at + 46 > dir.length || dir.readUInt32LE(at) !== DIRECTORY_ENTRY) return undefined
      const [nameLength, extra, comment] = [dir.readUInt16LE(at + 28), dir.readUInt16LE(at + 30), dir.readUInt16LE(at + 32)]
      const entry = {
        name: dir.toString('utf8', at + 46, at + 46 + nameLength),
        method: dir.readUInt16LE(at + 10),
        compressed: dir.readUInt32LE(at + 20),
        size: dir.readUInt32LE(at + 24),
        offset: dir.readUInt32LE(at + 42)
      }
      // Zip64 keeps the real values elsewhere: a rescue of that size is past any rescue-max-size anyway.
      if ([entry.compressed, entry.size, entry.offset].includes(0xffffffff)) return undefined
      entries.push(entry)
      at += 46 + nameLength + extra + comment
    }
    return entries
  } finally {
    fs.closeSync(fd)
  }
}

/** Writes one entry's bytes to a new file `to`, and never more than the central directory says it holds. */
export async function extractEntry(file: string, entry: ZipEntry, to: string): Promise<void> {
  const header = Buffer.alloc(30)
  const fd = fs.openSync(file, 'r')
  try {
    fs.readSync(fd, header, 0, 30, entry.offset)
  } finally {
    fs.closeSync(fd)
  }
  if (header.readUInt32LE(0) !== LOCAL_HEADER) throw new Error(`${quoted(entry.name)} is not where its zip says`)
  if (entry.method !== 0 && entry.method !== 8) throw new Error(`${quoted(entry.name)} is compressed by method ${entry.method}, which no rescue uses`)
  // The local header's name and extra fields may differ in length from the central directory's.
  const start = entry.offset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28)
  let written = 0
  const bounded = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.length
      done(written > entry.size ? new Error(`${quoted(entry.name)} holds more than the ${entry.size} bytes its zip says`) : null, chunk)
    }
  })
  const out = fs.createWriteStream(to, { flags: 'wx', mode: 0o600 })
  if (!entry.compressed) return void (await pipeline(bounded.end(), out))
  const source = fs.createReadStream(file, { start, end: start + entry.compressed - 1 })
  await (entry.method === 8 ? pipeline(source, zlib.createInflateRaw(), bounded, out) : pipeline(source, bounded, out))
}
