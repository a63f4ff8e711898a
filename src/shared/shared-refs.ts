// The refs every worktree of a repository shares, read at enter and at exit as cheaply as their number allows,
// and what changed between the two. Read from the files as git reads them: packed-refs (copied at enter; at exit
// the same file when its identity is) and the loose refs over it. git writes a ref by renaming a new file into
// its folder, so a folder's time changes with every ref created, replaced or deleted in it. Up to 1,000 loose
// refs are read whole, the smallest folders first, and again at exit; a folder beyond that (refs/tags after a
// fetch of every tag) is recorded by its refs' names and looked at again only when its time changed: 20,000 ref
// files take 200 ms to read and 15 to list, and the main step is measured against git's own work. Of a ref known
// by name, the id it had at enter is what its reflog says (branches and remote-tracking branches keep one).
// A reftable repository has no such files: git lists its refs at enter and at exit.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import type { Git } from '../git/git-command-manager.js'
import { sha256Of } from '../git/repository.js'
import { kindOf, readBytes, readSmall, regularFilesBelow } from '../os/untrusted-files.js'
import { quoted } from '../os/quote.js'

export interface Refs {
  /** packed-refs: at enter a copy in RUNNER_TEMP, its hash and the file's identity; at exit the file itself. */
  packed?: { file: string; sha256?: string; stat?: string }
  /**
   * "<value> <ref>\n" per ref, sorted by ref: the shared loose refs read (at exit, those of the folders read whole
   * and each ref created or replaced in a folder known by name); for a reftable repository every shared ref. A
   * symbolic ref's value is "ref:<target>".
   */
  loose: string
  /** At enter, for loose refs: the folders read whole, and those known by their refs' names ("refs/tags"). */
  folders?: { read: string[]; named: Record<string, Named> }
  /** At exit: the refs known by name at enter whose files are gone (deleted, or packed). */
  gone?: string[]
}

/**
 * A folder of loose refs known by their names: its time (lstat's mtime, in ns) and the names of its ref files, a
 * line each (one string: the record of 20,000 is parsed at every exit, and split only when the folder changed).
 */
export interface Named {
  time: string
  names: string
}

/** A ref that is not what it was: `from` undefined when created, null when its id at enter is not known; `to` undefined when deleted. */
export interface RefChange {
  ref: string
  from?: string | null
  to?: string
}

/** Per-worktree refs, and agent-worktree's own: never shared. */
const NOT_SHARED = /^refs\/(agent-worktree|worktree|bisect|rewritten)\//
/** At most this many loose refs are read whole: 20,000 take 200 ms, and the step has one thread. */
const MAX_LOOSE = 1000
/** Up to this many refs that may have changed are looked up one by one; more, and each side is parsed whole. */
const MAX_LOOKUPS = 32
const MAX_PACKED_BYTES = 1024 ** 3
/** What a ref known by name was at enter, and is at exit while its file is untouched. */
const UNKNOWN = '\0unknown'
const UNTOUCHED = '\0untouched'

/** Whether a ref is shared: not per-worktree, not ours, not the worktree's branch nor a remote-tracking branch of it. */
export function isShared(ref: string, branch: string): boolean {
  if (NOT_SHARED.test(ref)) return false
  // A push of the worktree's branch creates a remote-tracking branch of it.
  return !branch || (ref !== `refs/heads/${branch}` && /^refs\/remotes\/[^/]+\/(.+)$/.exec(ref)?.[1] !== branch)
}

function listRefs(git: Git): Promise<string> {
  // A symbolic ref (refs/remotes/origin/HEAD) by its target, as its file has it.
  return git.exec(['for-each-ref', '--format=%(if)%(symref)%(then)ref:%(symref)%(else)%(objectname)%(end) %(refname)'])
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
 * The shared refs. At enter (a token given) packed-refs is copied into RUNNER_TEMP, where no agent writes, and the
 * loose refs are read or named; at exit (the refs of enter given) the loose refs are read where they may have changed.
 */
export async function readRefs(git: Git, commonDir: string, branch: string, how: { token?: string; before?: Refs }): Promise<Refs> {
  if (fs.existsSync(path.join(commonDir, 'reftable'))) return { loose: refLines((await listRefs(git)).split('\n'), branch) }
  const packed = packedRefs(commonDir, how.token)
  // Not read at enter from the files (a reftable then): every folder is new.
  if (how.before) return { ...readAgain(commonDir, branch, how.before.folders ?? { read: ['refs'], named: {} }), packed }
  const folders = foldersOf(commonDir)
  // The smallest folders first: those a fetch of every tag or branch filled are the ones known by name.
  const read = new Set<string>()
  let count = 0
  for (const { folder, files } of [...folders].sort((a, b) => a.files.length - b.files.length)) {
    if ((count += files.length) > MAX_LOOSE) break
    read.add(folder)
  }
  const named: Record<string, Named> = {}
  for (const { folder, time, files } of folders) if (!read.has(folder)) named[folder] = { time, names: files.join('\n') }
  const refs = folders.filter(({ folder }) => read.has(folder)).flatMap(({ folder, files }) => files.map(name => `${folder}/${name}`))
  return { loose: looseLines(refs, commonDir, branch), folders: { read: [...read], named }, packed }
}

interface Folder {
  folder: string
  time: string
  files: string[]
}

/** Every folder below refs, with its time (taken before it is listed) and the names of its ref files. */
function foldersOf(commonDir: string): Folder[] {
  const found: Folder[] = []
  const walk = (folder: string): void => {
    const dir = path.join(commonDir, ...folder.split('/'))
    const time = timeOf(dir)
    if (time === undefined) return
    const entries = entriesOf(dir)
    found.push({ folder, time, files: entries.filter(e => e.isFile() && refName(e.name)).map(e => e.name) })
    for (const entry of entries) if (entry.isDirectory() && sharedFolder(`${folder}/${entry.name}`)) walk(`${folder}/${entry.name}`)
  }
  walk('refs')
  return found
}

/** A file name a ref can have: not a lock file of git's, nor one with a line break (a line of the record). */
function refName(name: string): boolean {
  return !name.endsWith('.lock') && !name.includes('\n')
}

/** A folder whose refs may be shared: not agent-worktree's own (kept worktrees' refs), nor a per-worktree one. */
function sharedFolder(folder: string): boolean {
  return !NOT_SHARED.test(`${folder}/`)
}

function timeOf(dir: string): string | undefined {
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false, bigint: true })
  return stat?.isDirectory() ? String(stat.mtimeNs) : undefined
}

function entriesOf(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

/**
 * At exit: the refs of the folders read whole at enter, again; in a folder known by name whose time changed, the
 * refs created or replaced since (a file newer than the folder was at enter) and those gone; and every ref of a
 * folder that was not there at enter.
 */
function readAgain(commonDir: string, branch: string, { read, named }: NonNullable<Refs['folders']>): Pick<Refs, 'loose' | 'gone'> {
  const known = new Set([...read, ...Object.keys(named)])
  const refs: string[] = []
  const gone: string[] = []
  const real = realOf(commonDir)
  const look = (folder: string, files: (entry: fs.Dirent) => boolean): void => {
    const dir = path.join(commonDir, ...folder.split('/'))
    // A folder an agent replaced by a link, or one below a link: not the repository's, and not read.
    if (real === undefined || realOf(dir) !== path.join(real, ...folder.split('/'))) return
    for (const entry of entriesOf(dir)) {
      const ref = `${folder}/${entry.name}`
      if (entry.isFile() && refName(entry.name) && files(entry)) refs.push(ref)
      if (!entry.isDirectory() || known.has(ref) || !sharedFolder(ref)) continue
      const below = path.join(dir, entry.name)
      for (const file of regularFilesBelow(below)) refs.push(`${ref}/${path.relative(below, file).split(path.sep).join('/')}`)
    }
  }
  for (const folder of read) look(folder, () => true)
  for (const [folder, { time, names }] of Object.entries(named)) {
    const dir = path.join(commonDir, ...folder.split('/'))
    if (timeOf(dir) === time) continue
    const then = new Set(names.split('\n'))
    const now = new Set<string>()
    look(folder, entry => {
      now.add(entry.name)
      return !then.has(entry.name) || newerThan(path.join(dir, entry.name), BigInt(time))
    })
    for (const name of then) if (!now.has(name)) gone.push(`${folder}/${name}`)
  }
  return { loose: looseLines(refs, commonDir, branch), gone }
}

/**
 * Written since: git's new file renamed into place, or one written over. By its mtime: a copy that keeps times
 * (cp -a, tar, a cache) or a chmod -R gives every file a new ctime, and no ref changed.
 */
function newerThan(file: string, time: bigint): boolean {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false, bigint: true })
  return !stat || stat.mtimeNs > time
}

function realOf(dir: string): string | undefined {
  try {
    return fs.realpathSync(dir)
  } catch {
    return undefined
  }
}

/** "<value> <ref>\n" of the shared loose refs among `refs`, sorted by ref. */
function looseLines(refs: string[], commonDir: string, branch: string): string {
  return refLines(
    refs
      .filter(ref => isShared(ref, branch) && refName(ref))
      .flatMap(ref => {
        const value = refValue(readSmall(path.join(commonDir, ...ref.split('/')), 1024))
        return value ? [`${value} ${ref}`] : []
      }),
    branch
  )
}

/**
 * A loose ref file's value as git reads it: an object id (whatever follows it after white space), or a symbolic
 * ref's target as "ref:<target>". Anything else is no ref: nothing of it is ever shown.
 */
function refValue(text: string | undefined): string | undefined {
  const id = /^([0-9a-f]{40}(?:[0-9a-f]{24})?)(?:\s|$)/.exec(text ?? '')?.[1]
  const target = /^ref:[ \t]*(refs\/[^\s]+)\s*$/.exec(text?.split('\n')[0] ?? '')?.[1]
  return id ?? (target && `ref:${target}`)
}

/**
 * The commit id HEAD of `gitDir` names, read from the files as git reads them (HEAD, then the branch's loose ref over
 * packed-refs): undefined where only git can tell (a reftable, a ref that names another, one in neither file). What
 * the files say is not checked: a caller believes it only where it is an id git gave before.
 */
export function headFromFiles(gitDir: string, commonDir: string): string | undefined {
  if (fs.existsSync(path.join(commonDir, 'reftable'))) return undefined
  const head = refValue(readSmall(path.join(gitDir, 'HEAD'), 1024))
  if (!head?.startsWith('ref:')) return head
  const branch = head.slice('ref:'.length)
  if (!branch.startsWith('refs/heads/') || !refName(branch) || branch.split('/').some(part => part === '' || part.startsWith('.'))) return undefined
  const file = path.join(commonDir, ...branch.split('/'))
  // A loose ref git reads otherwise (a link, a folder) or that says something else than an id: git's to tell.
  if (kindOf(file) !== 'missing') {
    const loose = refValue(readSmall(file, 1024))
    return loose?.startsWith('ref:') ? undefined : loose
  }
  return refValue(lookup(readBytes(path.join(commonDir, 'packed-refs'), MAX_PACKED_BYTES) ?? Buffer.alloc(0), false)(branch))
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
  if (!bytes) throw new Error(`${quoted(file)} cannot be read`)
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
 * two lists of loose refs, differ, and those gone from a folder known by name. In the common case packed-refs is
 * the same file, and none of it is read. Of a ref known by name, `logged` tells the id it had at enter where a
 * reflog does: without it, a ref that only went into packed-refs is taken as the same.
 */
export function compareRefs(was: Refs, now: Refs, branch: string, logged: (ref: string) => string | undefined = () => undefined): RefChange[] {
  const same = was.packed?.stat !== undefined && was.packed.stat === now.packed?.stat
  const gone = new Set(now.gone)
  if (same && was.loose === now.loose && !gone.size) return []
  const [packedBefore, packedAfter] = same ? [undefined, undefined] : [packedBytes(was.packed), packedBytes(now.packed)]
  const [looseBefore, looseAfter] = [Buffer.from(was.loose), Buffer.from(now.loose)]
  const candidates = new Set([...changedRefs(looseBefore, looseAfter), ...gone])
  if (packedBefore && packedAfter) for (const ref of changedRefs(packedBefore, packedAfter)) candidates.add(ref)
  const whole = candidates.size > MAX_LOOKUPS
  let live: Buffer | undefined
  // The same packed-refs for both: the file of exit, read when a ref must be looked up in it.
  const shared = (): Buffer => (live ??= packedBytes(now.packed))
  const named = namedIn(was.folders?.named ?? {})
  const replaced = lookup(looseAfter, whole)
  const before = valuesOf(lookup(looseBefore, whole), lookup(packedBefore ?? shared, whole), ref => named(ref) && UNKNOWN)
  const after = valuesOf(replaced, lookup(packedAfter ?? shared, whole), ref => named(ref) && !gone.has(ref) && UNTOUCHED)
  const changes: RefChange[] = []
  for (const ref of [...candidates].filter(ref => isShared(ref, branch)).sort()) {
    const change = changeOf(ref, before(ref), after(ref), replaced(ref) !== undefined, logged)
    if (change) changes.push(change)
  }
  return changes
}

/** The change of one ref between its value before and after, where its value before is known or not. */
function changeOf(
  ref: string,
  from: string | undefined,
  to: string | undefined,
  replaced: boolean,
  logged: (ref: string) => string | undefined
): RefChange | undefined {
  if (to === UNTOUCHED) return undefined
  if (from !== UNKNOWN) return from !== to ? { ref, from, to } : undefined
  // Deleted; replaced, unless the reflog says it is where it was; gone into packed-refs, only where the reflog says it moved.
  const then = logged(ref)
  if (to === undefined || (replaced ? then !== to : then !== undefined && then !== to)) return { ref, from: then ?? null, to }
  return undefined
}

/** A ref's value as git reads it: the loose ref, else what a folder known by name says of it, else the packed one. */
function valuesOf(
  loose: (ref: string) => string | undefined,
  packed: (ref: string) => string | undefined,
  byName: (ref: string) => string | false
): (ref: string) => string | undefined {
  return ref => loose(ref) ?? (byName(ref) || packed(ref))
}

/** Whether a ref is one of the folders known by name: each folder's names made a set when first asked. */
function namedIn(named: Record<string, Named>): (ref: string) => boolean {
  const sets = new Map<string, Set<string>>()
  return ref => {
    const at = ref.lastIndexOf('/')
    const folder = ref.slice(0, at)
    // Object.hasOwn: a line of an agent's making can name a folder "__proto__".
    if (!Object.hasOwn(named, folder)) return false
    if (!sets.has(folder)) sets.set(folder, new Set(named[folder].names.split('\n')))
    return sets.get(folder)!.has(ref.slice(at + 1))
  }
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
  if (!bytes) throw new Error(`${quoted(file ?? '')} cannot be read`)
  if (sha256 !== undefined && sha256Of(bytes) !== sha256) throw new Error(`${quoted(file ?? '')} is not what the main step wrote`)
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
