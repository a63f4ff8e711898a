// Git LFS objects of a rescue: a commit or the index of an LFS repository holds a pointer, and the file's bytes
// are an object in the repository's LFS store (<common dir>/lfs/objects/xx/yy/<oid>). A rescue sends the objects
// its commits point to with them (to the LFS server of the remote of enter, into the artifact); a restore puts
// the artifact's objects into the store of the repository it restores into and writes the files' real bytes.
// Every object is checked against its name (a SHA-256 of its bytes) before it is sent or stored: the store is the
// agent's to write. git-lfs runs only to upload, from a git dir of this step's own (a sealed view) that holds the
// checked copies, to the endpoint the repository had at enter: no lfs.url, .lfsconfig or transfer agent planted
// after enter takes part.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Git, GitResult } from '../git/git-command-manager.js'
import type { View } from '../git/sealed-git.js'
import { IDENTITY } from '../record/names.js'
import { kindOf, openRegular } from '../os/untrusted-files.js'

/** One LFS object: its SHA-256 and size, as a pointer names them. */
export interface LfsObject {
  oid: string
  size: number
}

/** The objects a rescue's commits point to that the repository's LFS store holds, and where that store is. */
export interface LfsObjects {
  store: string
  objects: LfsObject[]
}

/** A pointer is a small text file (git-lfs reads no larger blob as one). */
const MAX_POINTER_BYTES = 1024
const POINTER = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\n(?:ext-[^\n]*\n)*oid sha256:([0-9a-f]{64})\nsize (\d+)\n/

/** Where git-lfs keeps a repository's objects. */
export function lfsStore(commonDir: string): string {
  return path.join(commonDir, 'lfs', 'objects')
}

/** An object's path below a store (or below an artifact's lfs/objects). */
export function objectPath(store: string, oid: string): string {
  return path.join(store, oid.slice(0, 2), oid.slice(2, 4), oid)
}

/** The object a blob's bytes point to, when the blob is an LFS pointer. */
export function pointerOf(content: Buffer): LfsObject | undefined {
  if (content.length >= MAX_POINTER_BYTES) return undefined
  const match = POINTER.exec(content.toString('latin1'))
  return match ? { oid: match[1], size: Number(match[2]) } : undefined
}

/**
 * The LFS objects the blobs of `revisions` (git's --stdin form) point to and the store holds, each once. No git
 * call where the repository has no LFS store: a repository without LFS pays nothing.
 */
export async function pointedTo(git: Git, commonDir: string, revisions: string): Promise<LfsObjects | undefined> {
  const store = lfsStore(commonDir)
  if (kindOf(store) !== 'directory') return undefined
  const small = (await git.exec(['rev-list', '--objects', '--no-object-names', `--filter=blob:limit=${MAX_POINTER_BYTES}`, '--stdin'], { input: revisions }))
    .split('\n')
    .filter(Boolean)
  if (!small.length) return undefined
  const checked = (await git.exec(['cat-file', '--batch-check=%(objectname) %(objecttype) %(objectsize)'], { input: `${small.join('\n')}\n` })).split('\n')
  const blobs = checked.filter(line => / blob \d+$/.test(line)).map(line => ({ blob: line.split(' ')[0], size: Number(line.split(' ')[2]) }))
  // Only what the store holds, at the pointer's size: an object it never had is not this repository's to send.
  const pointers = await storedPointers(git, commonDir, blobs)
  const objects = new Map([...pointers.values()].map(pointer => [pointer.oid, pointer]))
  return objects.size ? { store, objects: [...objects.values()] } : undefined
}

/**
 * The objects that the blobs among `blobs` that are LFS pointers name, where the store holds them, by blob id. No
 * git call without a store, or without a blob of a pointer's size.
 */
export async function storedPointers(git: Git, commonDir: string, blobs: { blob: string; size: number }[]): Promise<Map<string, LfsObject>> {
  const store = lfsStore(commonDir)
  if (kindOf(store) !== 'directory') return new Map()
  const pointers = await pointersAmong(git, blobs)
  for (const [blob, pointer] of pointers) if (!inStore(store, pointer)) pointers.delete(blob)
  return pointers
}

/** The objects that the blobs among `blobs` that are LFS pointers name, by blob id; no git call without a blob of a pointer's size. */
export async function pointersAmong(git: Git, blobs: { blob: string; size: number }[]): Promise<Map<string, LfsObject>> {
  // A pointer is at least its three lines long.
  const small = blobs.filter(b => b.size >= 100 && b.size < MAX_POINTER_BYTES)
  const found = new Map<string, LfsObject>()
  if (!small.length) return found
  const contents = await blobContents(
    git,
    small.map(b => b.blob)
  )
  small.forEach((b, i) => {
    const pointer = pointerOf(contents[i])
    if (pointer) found.set(b.blob, pointer)
  })
  return found
}

/** The store holds the object, at its size (its bytes are checked where they are sent or stored). */
export function inStore(store: string, object: LfsObject): boolean {
  return fs.lstatSync(objectPath(store, object.oid), { throwIfNoEntry: false })?.size === object.size
}

/** The bytes of each blob, in one git call ("<id> blob <size>", the bytes, a newline). */
export async function blobContents(git: Git, ids: string[]): Promise<Buffer[]> {
  const out = Buffer.from(await git.exec(['cat-file', '--batch'], { input: `${ids.join('\n')}\n`, encoding: 'latin1' }), 'latin1')
  const found: Buffer[] = []
  let at = 0
  for (let i = 0; i < ids.length; i++) {
    const end = out.indexOf(10, at)
    const size = Number(/ blob (\d+)$/.exec(out.subarray(at, end).toString('latin1'))?.[1] ?? -1)
    found.push(size < 0 ? Buffer.alloc(0) : out.subarray(end + 1, end + 1 + size))
    at = size < 0 ? end + 1 : end + 2 + size
  }
  return found
}

/**
 * Copies each object into `into` (as a store: xx/yy/<oid>), a regular file opened without following a link, and
 * keeps only the copies whose bytes hash to their name. Returns the objects that could not be copied so.
 */
export function copyChecked(objects: LfsObjects, into: string): LfsObject[] {
  const failed: LfsObject[] = []
  for (const object of objects.objects) {
    const to = objectPath(into, object.oid)
    fs.mkdirSync(path.dirname(to), { recursive: true })
    if (!copyHashed(objectPath(objects.store, object.oid), to, object)) failed.push(object)
  }
  return failed
}

/** Copies the object from the store to a new file `to`; true when its bytes are what its name says (else no copy is left). */
export function copyObject(store: string, object: LfsObject, to: fs.PathLike): boolean {
  return copyHashed(objectPath(store, object.oid), to, object)
}

/** Copies a regular file to a new file `to` while hashing it; true when its bytes are the object's (else no copy is left). */
function copyHashed(from: string, to: fs.PathLike, object: LfsObject): boolean {
  const fd = openRegular(from)
  if (fd === undefined) return false
  let out: number | undefined
  try {
    out = fs.openSync(to, 'wx', 0o600)
    const hash = createHash('sha256')
    const buffer = Buffer.alloc(1024 * 1024)
    let size = 0
    for (let read; (read = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; size += read) {
      hash.update(buffer.subarray(0, read))
      fs.writeSync(out, buffer, 0, read)
    }
    if (size === object.size && hash.digest('hex') === object.oid) return true
  } catch {
    // not copied
  } finally {
    fs.closeSync(fd)
    if (out !== undefined) fs.closeSync(out)
  }
  // Only a copy of our own is taken away: a file that was there already stays.
  if (out !== undefined) fs.rmSync(to, { force: true })
  return false
}

/** A remote URL as git-lfs takes it in place of a remote's name: a local path becomes a file:// URL. */
export function lfsRemote(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/\\]+:/.test(url) ? url : `file://${path.resolve(url)}`
}

/**
 * Uploads the objects of `view`'s own store (<view>/lfs/objects, checked copies) with git-lfs, started by git
 * from the view: its config is the view's (no lfs.url or transfer agent of the repository's), it has no HEAD or
 * index whose .lfsconfig git-lfs would read, and the endpoint is the one of enter: `endpoint` when the repository
 * named one, else what git-lfs derives from the remote's URL of enter.
 */
export async function uploadObjects(
  view: Git,
  target: { url: string; endpoint?: string },
  oids: string[],
  options: { env: Record<string, string>; stallMs: number; deadline: number }
): Promise<GitResult> {
  // The endpoint in place of a remote's name too: git-lfs's file transfer agent goes where that names.
  const remote = lfsRemote(target.endpoint ?? target.url)
  const endpoint: [string, string][] = target.endpoint ? [['lfs.url', remote]] : []
  return view.run(['lfs', 'push', '--object-id', remote, '--stdin'], {
    input: `${oids.join('\n')}\n`,
    config: [...endpoint, ['lfs.locksverify', 'false']],
    ...options,
    interruptible: true,
    remote: true,
    lfs: true
  })
}

/**
 * Puts the checked objects of an artifact's lfs/objects (`from`) into the repository's store, each one whose bytes
 * hash to its name and that the store lacks; never through a link on the way. Returns how many it stored.
 */
export function storeObjects(from: string, commonDir: string, names: string[]): number {
  let stored = 0
  for (const oid of names) {
    const to = objectPath(lfsStore(commonDir), oid)
    if (!plainFolders(commonDir, ['lfs', 'objects', oid.slice(0, 2), oid.slice(2, 4)]) || kindOf(to) !== 'missing') continue
    const size = fs.lstatSync(objectPath(from, oid), { throwIfNoEntry: false })?.size ?? -1
    const partial = `${to}.${process.pid}.part`
    if (copyHashed(objectPath(from, oid), partial, { oid, size })) {
      fs.renameSync(partial, to)
      stored++
    }
  }
  return stored
}

/** Makes the folders of `segments` below `base`, one by one; false when one on the way is not a plain folder (a link). */
function plainFolders(base: string, segments: string[]): boolean {
  let dir = base
  for (const segment of segments) {
    dir = path.join(dir, segment)
    const kind = kindOf(dir)
    if (kind === 'missing') fs.mkdirSync(dir)
    else if (kind !== 'directory') return false
  }
  return true
}

/** The settings that name an LFS endpoint, as the record keeps them: the remote's own by their last part. */
const ENDPOINT_KEYS = ['lfs.pushurl', 'lfs.url', 'lfspushurl', 'lfsurl'] as const

/** The settings git-lfs takes its endpoint from, in its order, for an upload and for a download. */
const ORDER = { upload: ENDPOINT_KEYS, download: ['lfs.url', 'lfsurl'] } as const

/**
 * The LFS endpoint of enter, as git-lfs picks it: for an upload lfs.pushurl, lfs.url, then the remote's lfspushurl
 * and lfsurl (a download takes the url ones), each from the repository's config of enter before the base's
 * .lfsconfig (a commit the step's record vouches for: its bytes are what they were at enter). None: git-lfs derives
 * it from the remote's URL. Unpinned when the base holds a .lfsconfig that git cannot read.
 */
export async function lfsEndpoint(
  git: Git,
  target: { remote: string; lfs?: Record<string, string> },
  base: string | undefined,
  operation: keyof typeof ORDER = 'upload'
): Promise<string | undefined | { unpinned: string }> {
  const values = new Map<string, string>()
  if (base) {
    const read = await git.run(['config', '--blob', `${base}:.lfsconfig`, '--no-includes', '-z', '--list'])
    if (read.exitCode === 0) {
      for (const entry of read.stdout.split('\0')) {
        const [key, value] = [entry.slice(0, entry.indexOf('\n')), entry.slice(entry.indexOf('\n') + 1)]
        const own = `remote.${target.remote}.`
        const name = key.startsWith(own) ? key.slice(own.length) : key
        if (entry.includes('\n') && (ENDPOINT_KEYS as readonly string[]).includes(name) && (name.startsWith('lfs.') || key.startsWith(own)))
          values.set(name, value)
      }
    } else if ((await git.run(['cat-file', '-e', `${base}:.lfsconfig`])).exitCode === 0) {
      return {
        unpinned: `the base's .lfsconfig, which may name the LFS server, cannot be read (${read.stderr.trim().split('\n')[0]}): the LFS endpoint of enter is unknown`
      }
    }
  }
  for (const [key, value] of Object.entries(target.lfs ?? {})) values.set(key, value)
  for (const key of ORDER[operation]) if (values.get(key)) return values.get(key)
  return undefined
}

/**
 * Downloads the objects `pointers` (blob ids of LFS pointers) name into `view`'s own store, with git-lfs started by
 * git from the view, from the endpoint of enter (uploadObjects): git lfs fetch takes a commit, so the pointers go
 * into a tree and commit of their own. What git-lfs said, when it failed.
 */
export async function downloadObjects(
  view: View,
  target: { url: string; endpoint?: string },
  pointers: string[],
  options: { env: Record<string, string>; stallMs: number }
): Promise<GitResult> {
  const entries = pointers.map((blob, i) => `100644 blob ${blob}\t${i}\0`).join('')
  const tree = (await view.git.exec(['mktree', '-z'], { input: entries })).trim()
  const commit = (await view.git.exec(['commit-tree', tree, '-m', 'Git LFS objects to fetch'], { env: IDENTITY })).trim()
  const remote = lfsRemote(target.endpoint ?? target.url)
  return view.git.run(['lfs', 'fetch', remote, commit], {
    config: target.endpoint ? [['lfs.url', remote]] : [],
    ...options,
    interruptible: true,
    remote: true,
    lfs: true
  })
}
