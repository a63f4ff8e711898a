// Files the agent can write (its worktree, git dirs, the common git dir) are read here and nowhere else: only
// regular files, opened without following a link and without waiting for a named pipe's writer, in bounded
// memory. A read never blocks the step, so SIGINT and SIGTERM are always heard.
import { createHash, randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'

export type FileKind = 'file' | 'link' | 'directory' | 'fifo' | 'socket' | 'device' | 'missing'

/** What is at `p`, without following a link there. */
export function kindOf(p: fs.PathLike): FileKind {
  return kindOfStat(fs.lstatSync(p, { throwIfNoEntry: false }))
}

function kindOfStat(stat: fs.Stats | undefined): FileKind {
  if (!stat) return 'missing'
  if (stat.isFile()) return 'file'
  if (stat.isSymbolicLink()) return 'link'
  if (stat.isDirectory()) return 'directory'
  if (stat.isFIFO()) return 'fifo'
  if (stat.isSocket()) return 'socket'
  return 'device'
}

/** A kind that holds no bytes git or a rescue could take: reading one could block for ever. */
export function isSpecial(kind: FileKind): kind is 'fifo' | 'socket' | 'device' {
  return kind === 'fifo' || kind === 'socket' || kind === 'device'
}

// O_NONBLOCK: a named pipe opens at once instead of waiting for a writer (and is then refused by fstat).
const FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0)

/** An open descriptor of the regular file at `p`, or undefined for anything else (a link, a pipe, nothing). */
export function openRegular(p: fs.PathLike): number | undefined {
  let fd: number
  try {
    fd = fs.openSync(p, FLAGS)
  } catch {
    return undefined
  }
  try {
    if (fs.fstatSync(fd).isFile()) return fd
  } catch {
    // fall through
  }
  fs.closeSync(fd)
  return undefined
}

const CHUNK = 64 * 1024

/** The text of a small regular file (a record, a lock, a ref), or undefined: not one, or larger than `max`. */
export function readSmall(p: string, max = 1024 * 1024): string | undefined {
  return readBytes(p, max)?.toString('utf8')
}

/** The bytes of a regular file, or undefined: not one, or larger than `max`. */
export function readBytes(p: string, max: number): Buffer | undefined {
  const fd = openRegular(p)
  if (fd === undefined) return undefined
  try {
    const chunks: Buffer[] = []
    let total = 0
    // First a buffer the size of the file (a ref, a lock: a few bytes), one byte more to see its end in one
    // read; then smaller ones, for a file that grows meanwhile.
    let size = Math.min(max + 1, fs.fstatSync(fd).size + 1)
    for (;;) {
      const buffer = Buffer.alloc(size)
      const read = fs.readSync(fd, buffer, 0, size, null)
      if (read === 0) break
      total += read
      if (total > max) return undefined
      chunks.push(buffer.subarray(0, read))
      size = Math.min(size, CHUNK)
    }
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)
  } catch {
    return undefined
  } finally {
    fs.closeSync(fd)
  }
}

/** No line of a file we read (a reflog entry, a ref) is longer: a longer one is nobody's and is skipped. */
const MAX_LINE = 64 * 1024

/**
 * Each line of a regular file, read a chunk at a time (a reflog may be large) in time linear in its size;
 * none when it is not one.
 */
export function* linesOf(p: string): Generator<string> {
  const fd = openRegular(p)
  if (fd === undefined) return
  try {
    let rest: Buffer[] = []
    let restLength = 0
    const buffer = Buffer.alloc(CHUNK)
    for (;;) {
      let read: number
      try {
        read = fs.readSync(fd, buffer, 0, CHUNK, null)
      } catch {
        return
      }
      if (read === 0) break
      let start = 0
      for (let newline = buffer.indexOf(10, 0); newline !== -1 && newline < read; newline = buffer.indexOf(10, start)) {
        if (restLength + newline - start <= MAX_LINE) yield Buffer.concat([...rest, buffer.subarray(start, newline)]).toString('latin1')
        rest = []
        restLength = 0
        start = newline + 1
      }
      // What is left of the chunk begins a line; a line that outgrows MAX_LINE is dropped as it comes.
      if (restLength <= MAX_LINE) rest.push(Buffer.from(buffer.subarray(start, read)))
      restLength += read - start
    }
    if (restLength && restLength <= MAX_LINE) yield Buffer.concat(rest).toString('latin1')
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * Whether `relative` (a path git reported, maybe from an index the agent forged) names something inside
 * `folder`, reached without passing through a link: plain segments only (no "..", ".", empty or ".git"), and
 * no folder on the way replaced by a link that leads out of the worktree.
 */
export function reachedWithoutLinks(folder: string, relative: string, encoding: 'utf8' | 'latin1' = 'utf8'): boolean {
  if (!plainPath(relative)) return false
  const parent = path.posix.dirname(relative)
  if (parent === '.') return true
  try {
    const real = fs.realpathSync(inside(folder, parent, encoding), { encoding: 'buffer' })
    return real.equals(inside(fs.realpathSync(folder), parent, encoding))
  } catch {
    return false
  }
}

/**
 * A path git reported (maybe from an index or tree the agent forged) that names something inside a folder:
 * plain segments only, no "..", ".", empty or git dir one, and on Windows no backslash (a separator there).
 */
export function plainPath(relative: string): boolean {
  return (
    !path.isAbsolute(relative) &&
    relative.split('/').every(s => s !== '' && s !== '.' && s !== '..' && !dotGit(s) && (process.platform !== 'win32' || !s.includes('\\')))
  )
}

/** Code points HFS+ ignores in a name (git's is_hfs_dotgit): ".g\u200cit" is ".git" there. */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g

/**
 * A name some file system takes for ".git", as git refuses them on checkout (core.protectNTFS, core.protectHFS):
 * any case; on NTFS with trailing dots and spaces, a stream (".git::$INDEX_ALLOCATION") or the short name git~1.
 */
function dotGit(segment: string): boolean {
  const name = segment.replace(HFS_IGNORED, '').toLowerCase()
  const ntfs = name.split(':')[0].replace(/[. ]+$/, '')
  return name === '.git' || ntfs === '.git' || ntfs === 'git~1'
}

/** What `openBeneath` found: for a regular file an open descriptor (the caller closes it), its size and mode. */
export interface Beneath {
  kind: FileKind
  /** False when a folder on the way is a link, or no folder: nothing there is the worktree's. */
  reached: boolean
  fd?: number
  size?: number
  mode?: number
  /** A link's target, as bytes. */
  target?: Buffer
}

const DIRECTORY = fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | (fs.constants.O_NOFOLLOW ?? 0)
const PROC_FD = process.platform === 'linux' && fs.existsSync('/proc/self/fd')

/**
 * What is at `relative` inside `folder`, opened one segment at a time, each through the descriptor of the
 * folder before it (/proc/self/fd/<n>/<segment>, Linux): a folder on the way swapped for a link between a
 * check and the open (a race an agent's process can run while we copy) fails the open instead of leading
 * out of the worktree. Elsewhere the folders on the way are checked by their real path first.
 */
export function openBeneath(folder: string, relative: string, encoding: 'utf8' | 'latin1' = 'utf8'): Beneath {
  if (!plainPath(relative)) return { kind: 'missing', reached: false }
  if (!PROC_FD) return reachedWithoutLinks(folder, relative, encoding) ? entryAt(inside(folder, relative, encoding)) : { kind: 'missing', reached: false }
  const segments = relative.split('/')
  let dir: number
  try {
    dir = fs.openSync(folder, DIRECTORY)
  } catch {
    return { kind: 'missing', reached: false }
  }
  try {
    for (const segment of segments.slice(0, -1)) {
      const next = fs.openSync(at(dir, segment, encoding), DIRECTORY)
      fs.closeSync(dir)
      dir = next
    }
    return entryAt(at(dir, segments[segments.length - 1], encoding))
  } catch {
    return { kind: 'missing', reached: false }
  } finally {
    fs.closeSync(dir)
  }
}

function at(dir: number, segment: string, encoding: 'utf8' | 'latin1'): Buffer {
  return Buffer.concat([Buffer.from(`/proc/self/fd/${dir}/`), Buffer.from(segment, encoding)])
}

function entryAt(p: Buffer): Beneath {
  const kind = kindOf(p)
  if (kind === 'link') return { kind, reached: true, target: fs.readlinkSync(p, { encoding: 'buffer' }) }
  if (kind !== 'file') return { kind, reached: true }
  const fd = openRegular(p)
  if (fd === undefined) return { kind: 'missing', reached: true }
  const stat = fs.fstatSync(fd)
  return { kind, reached: true, fd, size: stat.size, mode: stat.mode }
}

/** `folder`/`relative` as bytes: a name git gave as latin1 (every byte one character) keeps every byte. */
export function inside(folder: string, relative: string, encoding: 'utf8' | 'latin1' = 'utf8'): Buffer {
  return Buffer.concat([Buffer.from(folder), Buffer.from(path.sep), Buffer.from(relative.split('/').join(path.sep), encoding)])
}

/**
 * Writes a small file in a folder the agent can write: to a new file of a random name (never through a link
 * planted at a name we would use), renamed over the target (a link there is replaced, not followed).
 */
export function writeReplacing(file: string, content: string | Uint8Array): void {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
  fs.writeFileSync(temp, content, { flag: 'wx', mode: 0o644 })
  try {
    fs.renameSync(temp, file)
  } catch (error) {
    fs.rmSync(temp, { force: true })
    throw error
  }
}

/**
 * The regular files below `dir`, walked without following a link, at most `max` of them (a folder the agent
 * filled is not read for ever).
 */
export function regularFilesBelow(dir: string, max = 100_000): string[] {
  const found: string[] = []
  const walk = (at: string): void => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(at, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (found.length >= max) return
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile()) found.push(full)
    }
  }
  if (kindOf(dir) === 'directory') walk(dir)
  return found
}

/** Copies a regular file to a new file `to`, a chunk at a time; false when `from` is not one, or is larger than `max`. */
export function copyRegular(from: fs.PathLike, to: string, max = Number.MAX_SAFE_INTEGER): boolean {
  const fd = openRegular(from)
  if (fd === undefined) return false
  try {
    return fs.fstatSync(fd).size <= max && copyOpen(fd, to)
  } finally {
    fs.closeSync(fd)
  }
}

/** Copies what an open descriptor reads to a new file `to`, a chunk at a time. */
export function copyOpen(fd: number, to: string): boolean {
  const out = fs.openSync(to, 'wx', 0o600)
  try {
    const buffer = Buffer.alloc(CHUNK)
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, CHUNK, null)
      if (read === 0) return true
      fs.writeSync(out, buffer, 0, read)
    }
  } finally {
    fs.closeSync(out)
  }
}

/** Whether two regular files hold the same bytes, compared a chunk at a time; false when either is not one. */
export function sameBytes(a: string, b: string): boolean {
  const fa = openRegular(a)
  const fb = fa === undefined ? undefined : openRegular(b)
  try {
    if (fa === undefined || fb === undefined || fs.fstatSync(fa).size !== fs.fstatSync(fb).size) return false
    const ba = Buffer.alloc(CHUNK)
    const bb = Buffer.alloc(CHUNK)
    for (;;) {
      const ra = fs.readSync(fa, ba, 0, CHUNK, null)
      const rb = fs.readSync(fb, bb, 0, CHUNK, null)
      if (ra !== rb || !ba.subarray(0, ra).equals(bb.subarray(0, rb))) return false
      if (ra === 0) return true
    }
  } catch {
    return false
  } finally {
    if (fa !== undefined) fs.closeSync(fa)
    if (fb !== undefined) fs.closeSync(fb)
  }
}

/**
 * What a file brought into the worktree is, to know it again: a link's target, or a regular file's size and
 * git blob ids (SHA-1 and SHA-256 object formats), under which its bytes would travel in any tree or commit.
 * Read only up to `size` when one is given: a file of another size is another file, and is not read at all.
 */
export function identityOf(folder: string, relative: string, size?: number): string | undefined {
  const found = openBeneath(folder, relative)
  if (found.kind === 'link') return `link:${found.target!.toString('latin1')}`
  if (found.fd === undefined) return undefined
  try {
    if (size !== undefined && found.size !== size) return `blob:${found.size}`
    const sha1 = createHash('sha1').update(`blob ${found.size}\0`)
    const sha256 = createHash('sha256').update(`blob ${found.size}\0`)
    const buffer = Buffer.alloc(Math.min(CHUNK, found.size! + 1))
    for (let read = fs.readSync(found.fd, buffer); read > 0; read = fs.readSync(found.fd, buffer)) {
      sha1.update(buffer.subarray(0, read))
      sha256.update(buffer.subarray(0, read))
    }
    return `blob:${found.size}:${sha1.digest('hex')}:${sha256.digest('hex')}`
  } finally {
    fs.closeSync(found.fd)
  }
}

/** The size an identity names, to read a file again only that far. */
export function identitySize(identity: string): number | undefined {
  const size = /^blob:(\d+):/.exec(identity)?.[1]
  return size === undefined ? undefined : Number(size)
}

/** The blob ids an identity names: a file's bytes, in either object format. */
export function identityBlobs(identity: string): string[] {
  const [kind, , sha1, sha256] = identity.split(':')
  return kind === 'blob' && sha1 && sha256 ? [sha1, sha256] : []
}
