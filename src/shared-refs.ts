// The refs every worktree of a repository shares, read at enter and at exit as cheaply as their number allows,
// and what changed between the two. Read from the files as git reads them (packed-refs, and the loose refs over
// it) while there are few loose refs: a git call is the dearest part of a step. Many loose refs (or a reftable
// repository, which has no such files) are listed by git instead, in a process of its own beside the step's work;
// at exit only the folders that changed are read again.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Git } from './git-command-manager.js'
import { sha256Of } from './repository.js'
import { kindOf, readBytes, readSmall, regularFilesBelow } from './untrusted-files.js'

export interface Refs {
  /** packed-refs: at enter a copy in RUNNER_TEMP, its hash and the file's identity; at exit the file itself. */
  packed?: { file: string; sha256?: string; stat?: string }
  /**
   * "<value> <ref>\n" per ref, sorted by ref: the shared loose refs, or, listed by git, every ref (the ones that are not
   * shared are passed over when compared). A symbolic ref's value is "ref:<target>".
   */
  loose: string
  /** Listed by git: at enter into a file in RUNNER_TEMP (the step never holds it whole then), at exit likewise or in part. */
  listed?: Listed
  /** Refs this step set itself after git listed them (a fetched base): their values as the step left them. */
  set?: Record<string, string>
}

export interface Listed {
  /** At enter: the file, its hash, when git began to list, and packed-refs' identity then. */
  file?: string
  sha256?: string
  since?: number
  packed?: string
  /**
   * At exit, when nothing was packed and few loose refs are in the folders that changed since (a folder's time
   * changes with every ref created, replaced or deleted in it): those folders, whose loose refs `loose` holds.
   */
  folders?: string[]
}

/** How readRefs reads: at enter with the token for the copy of packed-refs, maybe a listing begun early; at exit as at enter. */
export interface ReadRefs {
  token?: string
  /** At enter: the listing begun early. */
  listed?: Promise<Listed>
  /** At exit: the refs of enter. */
  before?: Refs
}

/** A ref that is not what it was: `from` undefined when created, `to` undefined when deleted. */
export interface RefChange {
  ref: string
  from?: string
  to?: string
}

/** Per-worktree refs, and agent-worktree's own: never shared. */
const NOT_SHARED = /^refs\/(agent-worktree|worktree|bisect|rewritten)\//
/** More loose refs than this are listed by git: 20,000 take 200 ms to read, and the step has one thread. */
const MAX_LOOSE = 1000
/** Up to this many refs that may have changed are looked up one by one; more, and each side is parsed whole. */
const MAX_LOOKUPS = 32
const MAX_PACKED_BYTES = 1024 ** 3

/** Whether a ref is shared: not per-worktree, not ours, not the worktree's branch nor a remote-tracking branch of it. */
export function isShared(ref: string, branch: string): boolean {
  if (NOT_SHARED.test(ref)) return false
  // A push of the worktree's branch creates a remote-tracking branch of it.
  return !branch || (ref !== `refs/heads/${branch}` && /^refs\/remotes\/[^/]+\/(.+)$/.exec(ref)?.[1] !== branch)
}

/**
 * At enter, started before the steps that take long: the listing by git, when the refs are too many to read
 * (none otherwise: they are read from the files at the end).
 */
export function listRefsEarly(git: Git, commonDir: string): Promise<Listed> | undefined {
  if (looseFiles(commonDir)) return undefined
  const file = path.join(process.env.RUNNER_TEMP || os.tmpdir(), `agent-worktree-refs-${randomBytes(8).toString('hex')}`)
  const [since, packed] = [Date.now(), statOf(path.join(commonDir, 'packed-refs'))]
  const fd = fs.openSync(file, 'wx', 0o600)
  return listRefs(git, fd)
    .finally(() => fs.closeSync(fd))
    .then(() => ({ file, sha256: sha256Of(stepBytes({ file })), since, packed }))
}

function listRefs(git: Git, stdout?: number): Promise<string> {
  // A symbolic ref (refs/remotes/origin/HEAD) by its target, as its file has it.
  return git.exec(['for-each-ref', '--format=%(if)%(symref)%(then)ref:%(symref)%(else)%(objectname)%(end) %(refname)'], { interruptible: true, stdout })
}

/**
 * The loose ref files, when they are few enough to read and the repository keeps its refs in files: the walk
 * stops at the first one too many (a folder of 10,000 is not listed whole).
 */
function looseFiles(commonDir: string): string[] | undefined {
  if (fs.existsSync(path.join(commonDir, 'reftable'))) return undefined
  const found: string[] = []
  const walk = (dir: string): boolean => {
    let folder: fs.Dir
    try {
      folder = fs.opendirSync(dir)
    } catch {
      return true
    }
    try {
      for (let entry = folder.readSync(); entry; entry = folder.readSync()) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory() && !walk(full)) return false
        if (entry.isFile() && found.push(full) > MAX_LOOSE) return false
      }
      return true
    } finally {
      folder.closeSync()
    }
  }
  return walk(path.join(commonDir, 'refs')) ? found : undefined
}

/**
 * The refs that are one of `names`, or below one as a folder (as git's for-each-ref matches its patterns): from the
 * files, without reading any other ref (git reads every ref file of a folder to find one, and 20,000 cost it 150
 * ms); git's own listing for a reftable repository.
 */
export async function refsNamed(git: Git, commonDir: string, names: string[]): Promise<string[]> {
  if (fs.existsSync(path.join(commonDir, 'reftable')))
    return (await git.exec(['for-each-ref', '--format=%(refname)', '--', ...names])).split('\n').filter(Boolean)
  const found = new Set<string>()
  const packed = readBytes(path.join(commonDir, 'packed-refs'), MAX_PACKED_BYTES) ?? Buffer.alloc(0)
  for (const name of names) {
    const file = path.join(commonDir, ...name.split('/'))
    const kind = kindOf(file)
    if (kind === 'file') found.add(name)
    if (kind === 'directory') for (const below of regularFilesBelow(file)) found.add(`${name}/${path.relative(file, below).split(path.sep).join('/')}`)
    for (const end of ['\n', '/']) {
      for (let at = packed.indexOf(` ${name}${end}`); at !== -1; at = packed.indexOf(` ${name}${end}`, at + 1)) {
        const stop = packed.indexOf(10, at)
        found.add(packed.toString('utf8', at + 1, stop === -1 ? packed.length : stop))
      }
    }
  }
  return [...found].sort()
}

/**
 * The shared refs: from git's listing when one was started, else from the files, loose refs first (a ref git
 * packs meanwhile leaves its loose file after it is in packed-refs). At enter (a token given) packed-refs is
 * copied into RUNNER_TEMP, where no agent writes.
 */
export async function readRefs(git: Git, commonDir: string, branch: string, how: ReadRefs): Promise<Refs> {
  if (how.listed) return { loose: '', listed: await how.listed }
  if (how.before?.listed) return (how.before.listed.file && changedLoose(commonDir, how.before.listed, branch)) || { loose: await listRefs(git), listed: {} }
  const files = looseFiles(commonDir)
  if (!files) return { loose: await listRefs(git), listed: {} }
  const root = path.join(commonDir, 'refs')
  return {
    loose: looseLines(
      files.map(file => `refs/${path.relative(root, file).split(path.sep).join('/')}`),
      commonDir,
      branch
    ),
    packed: packedRefs(commonDir, how.token)
  }
}

/** "<value> <ref>\n" of the shared loose refs among `refs`, sorted by ref. */
function looseLines(refs: string[], commonDir: string, branch: string): string {
  return refLines(
    refs
      .filter(ref => isShared(ref, branch))
      .flatMap(ref => {
        const value = readSmall(path.join(commonDir, ...ref.split('/')), 1024)
          ?.trim()
          .replace(/^ref: /, 'ref:')
        return value ? [`${value} ${ref}`] : []
      }),
    branch
  )
}

/**
 * At exit, after a listing at enter: the loose refs of the folders whose time changed since git began to list
 * (a second early: file times lag the clock), when nothing was packed meanwhile and they are few. Undefined
 * otherwise: then git lists them all again.
 */
function changedLoose(commonDir: string, listed: Listed, branch: string): Refs | undefined {
  const packed = path.join(commonDir, 'packed-refs')
  if (fs.existsSync(path.join(commonDir, 'reftable')) || statOf(packed) !== listed.packed) return undefined
  const since = BigInt(listed.since! - 1000) * 1_000_000n
  const known = foldersOf(stepBytes(listed))
  const folders = [...known].filter(folder => {
    const stat = fs.lstatSync(path.join(commonDir, ...folder.split('/')), { throwIfNoEntry: false, bigint: true })
    return !stat || stat.mtimeNs >= since
  })
  const refs = folders.flatMap(folder => refsIn(commonDir, folder, known))
  if (refs.length > MAX_LOOSE) return undefined
  return { loose: looseLines(refs, commonDir, branch), listed: { folders }, packed: listed.packed ? { file: packed } : undefined }
}

/** Every folder that holds a ref of the listing, and those above it up to refs: one string made per folder. */
function foldersOf(listing: Buffer): Set<string> {
  const folders = new Set<string>(['refs'])
  let last = [0, 0]
  for (let start = 0, end = listing.indexOf(10); end !== -1; start = end + 1, end = listing.indexOf(10, start)) {
    const [from, to] = [listing.indexOf(32, start) + 1, listing.lastIndexOf(47, end)]
    if (from <= 0 || to < from) continue
    // Sorted by ref: the lines of one folder come together.
    if (to - from === last[1] - last[0] && listing.compare(listing, last[0], last[1], from, to) === 0) continue
    last = [from, to]
    for (let at = listing.toString('utf8', from, to); at.includes('/') && !folders.has(at); at = at.slice(0, at.lastIndexOf('/'))) folders.add(at)
  }
  return folders
}

/** The refs whose files are in a folder, and in folders below it that the listing did not know. */
function refsIn(commonDir: string, folder: string, known: Set<string>): string[] {
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(path.join(commonDir, ...folder.split('/')), { withFileTypes: true })
  } catch {
    return []
  }
  return entries.flatMap(entry => {
    const ref = `${folder}/${entry.name}`
    if (entry.isFile()) return [ref]
    if (!entry.isDirectory() || known.has(ref)) return []
    const dir = path.join(commonDir, ...ref.split('/'))
    return regularFilesBelow(dir).map(file => `${ref}/${path.relative(dir, file).split(path.sep).join('/')}`)
  })
}

/** "<value> <ref>\n" of the shared refs among `lines`, sorted by ref (as git lists them, and packs them). */
function refLines(lines: string[], branch: string): string {
  const refOf = (line: string): string => line.slice(line.indexOf(' ') + 1)
  const shared = lines.filter(line => line && isShared(refOf(line), branch)).sort((a, b) => (refOf(a) < refOf(b) ? -1 : refOf(a) > refOf(b) ? 1 : 0))
  return shared.map(line => `${line}\n`).join('')
}

/**
 * packed-refs with its inode, size and time: git writes a new packed-refs and renames it into place, so the same
 * ones at exit are the same file, and nothing of it needs reading then.
 */
function packedRefs(commonDir: string, token: string | undefined): Refs['packed'] {
  const file = path.join(commonDir, 'packed-refs')
  const stat = statOf(file)
  if (!stat) return undefined
  if (!token) return { file, stat }
  const bytes = readBytes(file, MAX_PACKED_BYTES)
  if (!bytes) throw new Error(`${file} cannot be read`)
  const copy = path.join(process.env.RUNNER_TEMP || os.tmpdir(), `agent-worktree-${token}-packed-refs`)
  fs.rmSync(copy, { force: true })
  fs.writeFileSync(copy, bytes, { flag: 'wx', mode: 0o600 })
  // Replaced while it was read: no identity to trust, the bytes are compared at exit.
  return { file: copy, sha256: sha256Of(bytes), stat: statOf(file) === stat ? stat : undefined }
}

function statOf(file: string): string | undefined {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false, bigint: true })
  return stat?.isFile() ? `${stat.ino}:${stat.size}:${stat.mtimeNs}` : undefined
}

/**
 * What changed. Only the refs that may have are looked at: those on the lines where the two packed-refs, or the
 * two lists of loose refs, differ. In the common case packed-refs is the same file, and none of it is read.
 */
export function compareRefs(was: Refs, now: Refs, branch: string): RefChange[] {
  if (was.listed?.file && now.listed?.folders) return compareFolders(was.listed, now, branch, was.set)
  const same = was.packed?.stat !== undefined && was.packed.stat === now.packed?.stat
  if (same && was.loose === now.loose && !was.set && !was.listed?.file) return []
  const [packedBefore, packedAfter] = same ? [undefined, undefined] : [packedBytes(was.packed), packedBytes(now.packed)]
  const [looseBefore, looseAfter] = [was.listed?.file ? stepBytes(was.listed) : Buffer.from(was.loose), Buffer.from(now.loose)]
  const candidates = new Set([...changedRefs(looseBefore, looseAfter), ...Object.keys(was.set ?? {})])
  if (packedBefore && packedAfter) for (const ref of changedRefs(packedBefore, packedAfter)) candidates.add(ref)
  const whole = candidates.size > MAX_LOOKUPS
  let live: Buffer | undefined
  // The same packed-refs for both: the file of exit, read when a ref must be looked up in it.
  const shared = (): Buffer => (live ??= packedBytes(now.packed))
  const before = valuesOf(looseBefore, packedBefore ?? shared, whole, was.set)
  const after = valuesOf(looseAfter, packedAfter ?? shared, whole)
  return changesOf(candidates, before, after, branch)
}

/** The refs of enter's listing in the folders that changed, against the loose refs there now and packed-refs (the same file). */
function compareFolders(listed: Listed, now: Refs, branch: string, set: Record<string, string> = {}): RefChange[] {
  const listing = stepBytes(listed)
  const candidates = new Set([
    ...now.loose
      .split('\n')
      .filter(Boolean)
      .map(line => line.slice(line.indexOf(' ') + 1)),
    ...now.listed!.folders!.flatMap(f => refsDirectlyIn(listing, f))
  ])
  const whole = candidates.size > MAX_LOOKUPS
  const before = valuesOf(listing, Buffer.alloc(0), whole, set)
  const after = valuesOf(Buffer.from(now.loose), () => packedBytes(now.packed), whole)
  return changesOf(candidates, before, after, branch)
}

/** The refs of a sorted listing that are in `folder` itself: its block of refs, without those of folders below. */
function refsDirectlyIn(listing: Buffer, folder: string): string[] {
  const refs: string[] = []
  const found = listing.indexOf(` ${folder}/`)
  for (let start = found === -1 ? -1 : listing.lastIndexOf(10, found) + 1; start !== -1 && start < listing.length;) {
    const end = listing.indexOf(10, start)
    const line = listing.toString('utf8', start, end === -1 ? listing.length : end)
    const ref = line.slice(line.indexOf(' ') + 1)
    if (!ref.startsWith(`${folder}/`)) break
    if (!ref.slice(folder.length + 1).includes('/')) refs.push(ref)
    start = end === -1 ? -1 : end + 1
  }
  return refs
}

function changesOf(
  candidates: Set<string>,
  before: (ref: string) => string | undefined,
  after: (ref: string) => string | undefined,
  branch: string
): RefChange[] {
  const changes: RefChange[] = []
  for (const ref of [...candidates].filter(ref => isShared(ref, branch)).sort()) {
    const [from, to] = [before(ref), after(ref)]
    if (from !== to) changes.push({ ref, from, to })
  }
  return changes
}

/** packed-refs' bytes (none: empty). */
function packedBytes(packed: Refs['packed']): Buffer {
  return packed ? stepBytes(packed) : Buffer.alloc(0)
}

/** Files of the main step already read and checked, by name: a step reads each once. */
const checked = new Map<string, Buffer>()

/** A file's bytes; one the main step made only as it made it, else it is no record of anything. */
function stepBytes({ file, sha256 }: { file?: string; sha256?: string }): Buffer {
  const known = file === undefined ? undefined : checked.get(`${file}\0${sha256}`)
  if (known) return known
  const bytes = file === undefined ? undefined : readBytes(file, MAX_PACKED_BYTES)
  if (!bytes) throw new Error(`${file} cannot be read`)
  if (sha256 !== undefined && sha256Of(bytes) !== sha256) throw new Error(`${file} is not what the main step wrote`)
  if (sha256 !== undefined) checked.set(`${file}\0${sha256}`, bytes)
  return bytes
}

const CHUNK = 4096

/** The refs on the lines where two lists of refs differ: all but their common beginning and end, in whole lines. */
function changedRefs(a: Buffer, b: Buffer): string[] {
  if (a.equals(b)) return []
  const max = Math.min(a.length, b.length)
  let start = 0
  while (start + CHUNK <= max && a.compare(b, start, start + CHUNK, start, start + CHUNK) === 0) start += CHUNK
  while (start < max && a[start] === b[start]) start++
  let end = 0
  while (end + CHUNK <= max - start && a.compare(b, b.length - end - CHUNK, b.length - end, a.length - end - CHUNK, a.length - end) === 0) end += CHUNK
  while (end < max - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++
  return [...refsOn(a, start, a.length - end), ...refsOn(b, start, b.length - end)]
}

/** The refs of the whole lines that bytes `from` to `to` touch. */
function refsOn(list: Buffer, from: number, to: number): string[] {
  const first = from === 0 ? 0 : list.lastIndexOf(10, from - 1) + 1
  const last = list.indexOf(10, Math.max(from, to - 1))
  return refLinesOf(list.toString('utf8', first, last === -1 ? list.length : last)).map(line => line.slice(line.indexOf(' ') + 1))
}

/** The "<value> <ref>" lines of a list: not packed-refs' header, nor the peeled ids ("^") of its tags. */
function refLinesOf(text: string): string[] {
  return text.split('\n').filter(line => line && !line.startsWith('#') && !line.startsWith('^'))
}

/** A ref's value as git reads it: one this step set, else the loose ref, else the packed one. */
function valuesOf(loose: Buffer, packedRefs: Buffer | (() => Buffer), whole: boolean, set: Record<string, string> = {}): (ref: string) => string | undefined {
  const lookups = [loose, packedRefs].map(list => lookup(list, whole))
  return ref => set[ref] ?? lookups[0](ref) ?? lookups[1](ref)
}

function lookup(list: Buffer | (() => Buffer), whole: boolean): (ref: string) => string | undefined {
  const read = (): Buffer => (typeof list === 'function' ? list() : list)
  let map: Map<string, string> | undefined
  return ref => {
    if (whole) {
      map ??= new Map(refLinesOf(read().toString('utf8')).map(line => [line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' '))]))
      return map.get(ref)
    }
    const bytes = read()
    const at = bytes.indexOf(` ${ref}\n`)
    return at === -1 ? undefined : bytes.toString('latin1', bytes.lastIndexOf(10, at) + 1, at)
  }
}
