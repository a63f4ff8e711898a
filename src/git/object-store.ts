// What was written into an object store since the agent got it, and whether it holds what its names say. git
// finds a packed object by its pack's index (.idx), the newest pack first, and a loose one by its file name, and
// checks no hash on an ordinary read: an agent that writes the store (a worktree's shared one, a clone's own) can
// make any object id, another job's commit or the base's tree, stand for bytes of its choosing, for every later
// reader. So the main step lists the store when the agent gets it, and before an exit believes a walk of history,
// whatever is not as listed is hashed again: each new or changed pack by `git index-pack --verify` (which indexes
// the pack anew and compares with its .idx and .rev byte for byte), each loose object inflated and hashed here.
//
// A list of identities, not a time: a file's ctime (which, unlike mtime, no agent can set) comes from a clock that
// can step back, and on a network filesystem from another machine's; an inode, size and ctime an agent cannot make
// again need no clock. What git reads besides and no one verifies here is not read by our git: multi-pack-index
// and bitmaps are switched off for every call (git-command-manager.ts); objects/info (alternates, commit-graph) is
// read-only in the sandbox lists.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from './git-command-manager.js'
import { privateTemp } from './sealed-git.js'
import { quoted } from '../os/quote.js'

/** The files of an object store git reads objects from, by path under objects/, each with its identity. */
export type StoreList = Record<string, string>

/** A loose object's folder and file: the id's first two hex digits, then the rest (sha1 or sha256). */
const LOOSE_DIR = /^[0-9a-f]{2}$/
const LOOSE_FILE = /^[0-9a-f]{38}([0-9a-f]{24})?$/
/** What of a pack git reads when it looks an object up: the pack, its index, its reverse index. */
const PACK_FILE = /^pack-([0-9a-f]{40}|[0-9a-f]{64})\.(pack|idx|rev)$/

/** Every file of `objects` that git reads objects from, by its identity now: nothing for a store that is not there. */
export function listStore(objects: string): StoreList {
  const list: StoreList = {}
  for (const name of namesIn(objects)) {
    if (name === 'pack') for (const file of namesIn(path.join(objects, name))) add(list, objects, `pack/${file}`, PACK_FILE.test(file))
    else if (LOOSE_DIR.test(name)) for (const file of namesIn(path.join(objects, name))) add(list, objects, `${name}/${file}`, LOOSE_FILE.test(file))
  }
  return list
}

function add(list: StoreList, objects: string, file: string, read: boolean): void {
  const identity = read ? identityOf(path.join(objects, file)) : undefined
  // Gone since the folder was read: nothing git could read.
  if (identity) list[file] = identity
}

function identityOf(file: string): string | undefined {
  const stat = lstatOf(file)
  return stat && `${stat.ino}:${stat.size}:${stat.ctimeNs}:${stat.isFile() ? 'f' : 'o'}`
}

/**
 * Files this process verified, by path and identity: a sweep that judges several worktrees of one store, or an exit
 * after a take, hashes each once. A file changed since has another identity.
 */
const verified = new Set<string>()

/** The files of `files` (under `objects`) not verified as they are now, and a note of them once they are. */
function stillToVerify(objects: string, files: string[]): { files: string[]; done: () => void } {
  const root = realOrSame(objects)
  const keys = files.map(file => `${path.join(root, file)}\0${identityOf(path.join(objects, file))}`)
  return { files: files.filter((_, i) => !verified.has(keys[i])), done: () => keys.forEach(key => verified.add(key)) }
}

/** The files of `list` (of the store at `objects`) this process verified as `list` has them. */
export function verifiedOf(objects: string, list: StoreList): StoreList {
  const root = realOrSame(objects)
  return Object.fromEntries(Object.entries(list).filter(([file, identity]) => verified.has(`${path.join(root, file)}\0${identity}`)))
}

/** One spelling of a store's folder however it was reached (a link on the way, a relative path). */
function realOrSame(dir: string): string {
  try {
    return fs.realpathSync(dir)
  } catch {
    return path.resolve(dir)
  }
}

function namesIn(dir: string): string[] {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

function lstatOf(file: string): fs.BigIntStats | undefined {
  try {
    return fs.lstatSync(file, { bigint: true })
  } catch {
    return undefined
  }
}

/** The files of the store that are not as `before` listed them: every one, without a list. */
export function writtenSince(objects: string, before: StoreList | undefined): string[] {
  const now = listStore(objects)
  return Object.keys(now).filter(file => !before || !Object.hasOwn(before, file) || before[file] !== now[file])
}

/**
 * The store at `objects` as it is now, once every file of it that `list` does not hold as it is now (new, or changed
 * since) is verified: `problem` says why one cannot be believed, as `unverified` does. `changed`: whether the list
 * now differs from `list` (a file verified, or one gone). No git call where nothing is new.
 */
export async function verifiedList(objects: string, list: StoreList): Promise<{ list: StoreList; problem?: string; changed: boolean }> {
  const now = listStore(objects)
  const written = Object.keys(now).filter(file => !Object.hasOwn(list, file) || list[file] !== now[file])
  const problem = await unverified(objects, written)
  const changed = written.length > 0 || Object.keys(list).some(file => !Object.hasOwn(now, file))
  return { list: now, problem, changed }
}

/**
 * Why what was written into the store at `objects` since `before` listed it (all of it, without a list) cannot be
 * believed, as a report says it; undefined when every object there is what its id says.
 */
export async function storeProblem(objects: string, before: StoreList | undefined): Promise<string | undefined> {
  let problem: string | undefined
  try {
    problem = await unverified(objects, writtenSince(objects, before))
  } catch (error) {
    problem = `the verification failed: ${(error as Error).message}`
  }
  return (
    problem &&
    `the object store ${quoted(objects)} holds objects that are not what their ids say (${problem}): git would read other bytes for an id, so what it says of the history and files cannot be believed`
  )
}

/**
 * Why what was written cannot be believed, in a few words: a pack whose index or reverse index is not what its
 * bytes give, a loose object whose bytes do not hash to its name, or one that could not be read. Undefined when
 * every object is what its name says; no git call where no pack was written.
 */
export async function unverified(objects: string, written: string[]): Promise<string | undefined> {
  const todo = stillToVerify(objects, written)
  const packs = [...new Set(todo.files.filter(file => file.startsWith('pack/')).map(file => file.replace(/\.(pack|idx|rev)$/, '')))]
  for (const file of todo.files.filter(f => !f.startsWith('pack/'))) {
    const problem = await looseProblem(objects, file)
    if (problem) return problem
  }
  for (const pack of packs) {
    const problem = await packProblem(objects, pack)
    if (problem) return problem
  }
  todo.done()
  return undefined
}

/** A loose object is its zlib-deflated bytes: hashed inflated, they must give its name. */
async function looseProblem(objects: string, file: string): Promise<string | undefined> {
  const name = file.replace('/', '')
  const hash = createHash(name.length === 64 ? 'sha256' : 'sha1')
  try {
    const stat = fs.lstatSync(path.join(objects, file), { throwIfNoEntry: false })
    // Gone since the store was listed (a gc packed it and pruned it, as git's background gc does): git cannot read it either.
    if (!stat) return undefined
    if (!stat.isFile()) return `the loose object ${file} is not a file`
    // zlib is loaded where an object is inflated, not at every stage's start (some 5 ms).
    const inflated = (await import('node:zlib')).createInflate()
    const source = fs.createReadStream(path.join(objects, file)).on('error', error => inflated.destroy(error))
    source.pipe(inflated)
    for await (const chunk of inflated) hash.update(chunk as Buffer)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    return `the loose object ${file} cannot be read (${(error as Error).message})`
  }
  return hash.digest('hex') === name ? undefined : `the loose object ${file} holds another object's bytes`
}

/** A pack is indexed anew by git, outside any repository (nothing of one is read), and compared with its index files. */
async function packProblem(objects: string, pack: string): Promise<string | undefined> {
  const base = path.join(objects, pack)
  // A pack without its index, or an index without its pack, is one git does not read.
  if (!lstatOf(`${base}.pack`) || !lstatOf(`${base}.idx`)) return undefined
  const format = path.basename(pack).length === 'pack-'.length + 64 ? ['--object-format=sha256'] : []
  const rev = lstatOf(`${base}.rev`) ? ['--rev-index'] : []
  const outside = privateTemp('agent-worktree-verify-')
  try {
    const git = new Git(outside, [], { GIT_CEILING_DIRECTORIES: path.dirname(outside) })
    const result = await git.run(['index-pack', '--verify', ...rev, ...format, `${base}.pack`], { interruptible: true })
    if (result.exitCode === 0) return undefined
    const said = result.stderr.trim().split('\n').pop() ?? ''
    return `the pack ${pack}.pack does not hold what its index says (git index-pack --verify: ${said.replace(/^fatal: /, '')})`
  } finally {
    fs.rmSync(outside, { recursive: true, force: true })
  }
}
