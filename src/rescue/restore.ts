// Restore: a new worktree picks up where a rescue left off. Once the worktree is checked out at its base, the
// rescue findRescue found is put back as the snapshot records it: HEAD where the agent had it, the index as it was
// staged, the files as they were left, and every other unsaved commit kept by a ref of the worktree. The files it
// holds are written as bytes, and no program sees them but the filters the repository had at enter.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { STALL_MS, type Git } from '../git/git-command-manager.js'
import type { RescueTarget } from '../record/settings.js'
import { worktreeGit } from '../git/repository.js'
import { openView, REMOTE_PROTOCOLS } from '../git/sealed-git.js'
import { restoredRef } from '../record/refs.js'
import type { WorktreeRecord } from '../record/state-helper.js'
import { inside, kindOf, plainPath, reachedWithoutLinks } from '../os/untrusted-files.js'
import { deleteRef, writeRef } from '../git/worktree-refs.js'
import { quoted } from '../os/quote.js'
import { blobContents, copyObject, downloadObjects, inStore, lfsEndpoint, lfsStore, pointersAmong, storeObjects, type LfsObject } from '../remote/lfs.js'
import { lastWords, lfsEntries, type Found, type SnapshotCommit } from './find-rescue.js'

/** What a restore did to the new worktree. */
export interface Restored {
  kind: RescueTarget
  name: string
  /** Where HEAD is now; undefined on a branch without a commit yet. */
  head?: string
  /** The worktree's own branch holds HEAD; false when the rescue was made on a detached HEAD. */
  onBranch: boolean
  /** The branch the rescue was made on. */
  wasOn?: string
  /** Refs of the worktree that keep the commits HEAD does not reach. */
  kept: string[]
  /** The rescue's base, when it is not the worktree's. */
  otherBase?: string
  /** Files that could not be put back, and why. */
  notRestored: { file: string; why: string }[]
  /** The files put back untracked, as git names them (latin1). */
  untracked: string[]
}

/**
 * Puts the new worktree, checked out at its base, back as the snapshot records it. Each step leaves what a
 * post can judge: restored files and commits are unsaved work until the agent saves them.
 */
export async function restoreInto(found: Found, record: WorktreeRecord, gitDir: string, commonDir: string, env?: Record<string, string>): Promise<Restored> {
  const { snapshot } = found
  const git = worktreeGit(gitDir, record.path)
  // The index as staged, checked out with no filter program at all: the rescued .gitattributes are anyone's, and
  // would pick any driver of the configuration (one an earlier agent planted; git-lfs told by a rescued
  // .lfsconfig where to send the repository's credentials)...
  const quiet = (await filterDrivers(git)).flatMap((name): [string, string][] => [
    [`filter.${name}.smudge`, ''],
    [`filter.${name}.process`, ''],
    [`filter.${name}.required`, 'false']
  ])
  await git.exec(['read-tree', '-m', '-u', record.baseSha, snapshot.index], {
    env: { ...env, GIT_LFS_SKIP_SMUDGE: '1' },
    config: quiet,
    interruptible: true,
    remote: true
  })
  // ...LFS files as their objects' bytes, where the store has them (a checkout of the workflow's would smudge them)...
  const pointers = await smudgeLfs(git, record, commonDir, snapshot.index)
  // ...then every file that differs from it, as the bytes the agent left.
  const { notRestored, untracked } = await writeAsLeft(git, record.path, snapshot)
  notRestored.push(...pointers)
  const message = `agent-worktree: restored ${found.name}`
  const branch = `refs/heads/${record.branch}`
  const change = { log: commonDir, head: gitDir, message, required: true }
  if (!snapshot.head) await deleteRef(git, branch, { ...change, from: record.baseSha })
  else if (!snapshot.branch) await writeRef(git, 'HEAD', snapshot.head, { log: gitDir, message, noDeref: true, required: true })
  else await writeRef(git, branch, snapshot.head, { ...change, from: record.baseSha })
  const kept: string[] = []
  for (const tip of snapshot.others) {
    kept.push(restoredRef(kept.length + 1))
    await writeRef(git, kept.at(-1)!, tip, { log: commonDir, message, required: true })
  }
  return {
    kind: found.kind,
    name: found.name,
    head: snapshot.head,
    onBranch: !snapshot.head || !!snapshot.branch,
    wasOn: snapshot.branch?.slice('refs/heads/'.length),
    kept,
    otherBase: snapshot.base && snapshot.base !== record.baseSha ? snapshot.base : undefined,
    notRestored,
    untracked
  }
}

/**
 * The files of the index that differ from the base and hold an LFS pointer, in a repository whose filters of enter
 * include git-lfs, where the attributes name git-lfs's driver for them: written as the object's bytes, as the
 * workflow's checkout writes them. The objects come from the repository's LFS store (an artifact's were put there,
 * checked by their names), else from the LFS server of enter (a branch's went there). No program of the rescue's
 * runs: its attributes only say which pointers a checkout would smudge. Returns the files left as pointers, and why.
 */
async function smudgeLfs(git: Git, record: WorktreeRecord, commonDir: string, index: string): Promise<Restored['notRestored']> {
  const driver = Object.entries(record.filters ?? {}).find(([, d]) => /\bgit[- ]lfs\b/.test(`${d.process ?? ''} ${d.smudge ?? ''}`))?.[0]
  if (!driver) return []
  const fields = (await git.exec(['diff-tree', '-r', '-z', '--no-renames', '--diff-filter=AM', record.baseSha, index], { encoding: 'latin1' })).split('\0')
  const entries: Entry[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [, mode, , blob] = fields[i].split(' ')
    if (/^(100644|100755)$/.test(mode)) entries.push({ mode, blob, file: fields[i + 1] })
  }
  if (!entries.length) return []
  const sizes = (await git.exec(['cat-file', '--batch-check=%(objectsize)'], { input: `${entries.map(e => e.blob).join('\n')}\n` })).split('\n').map(Number)
  const found = await pointersAmong(
    git,
    entries.map((e, i) => ({ blob: e.blob, size: sizes[i] }))
  )
  const pointers = entries.flatMap(e => (found.has(e.blob) ? [{ ...e, object: found.get(e.blob)! }] : []))
  if (!pointers.length) return []
  const input = Buffer.from(pointers.map(p => `${p.file}\0`).join(''), 'latin1')
  const attrs = (await git.exec(['check-attr', '-z', '--cached', '--stdin', 'filter'], { input, encoding: 'latin1' })).split('\0')
  const smudged = new Set<string>()
  for (let i = 0; i + 2 < attrs.length; i += 3) if (attrs[i + 2] === driver) smudged.add(attrs[i])
  const store = lfsStore(commonDir)
  const lfsFiles = pointers.filter(p => smudged.has(p.file))
  // A clone's store: an artifact's objects went into the original's.
  if (commonDir !== record.commonDir)
    storeObjects(
      lfsStore(record.commonDir),
      commonDir,
      lfsFiles.filter(p => !inStore(store, p.object)).map(p => p.object.oid)
    )
  const missing = lfsFiles.filter(p => !inStore(store, p.object))
  const unfetched = missing.length ? await fetchObjects(commonDir, record, missing) : undefined
  const written = lfsFiles.filter(p => inStore(store, p.object) && writeObject(record.path, p, store))
  // The index's entries again, without the sizes of the pointers the checkout wrote: git compares the files through
  // the filter then, instead of calling a file of another size changed.
  if (written.length)
    await git.exec(['update-index', '-z', '--index-info'], {
      input: Buffer.concat(written.map(e => Buffer.concat([Buffer.from(`${e.mode} ${e.blob}\t`), Buffer.from(e.file, 'latin1'), Buffer.from('\0')])))
    })
  return lfsFiles
    .filter(p => !written.includes(p))
    .map(p => ({
      file: Buffer.from(p.file, 'latin1').toString('utf8'),
      why: `its Git LFS object ${p.object.oid.slice(0, 12)} is not here${unfetched ? ` (${unfetched})` : ''}: the file holds its pointer`
    }))
}

/**
 * Fetches the objects of `pointers` from the LFS server of enter into a view's own store, then those that hash to
 * their names into the repository's. Why it could not, when it could not.
 */
async function fetchObjects(commonDir: string, record: WorktreeRecord, pointers: { blob: string }[]): Promise<string | undefined> {
  if (!record.push) return 'the repository had no remote when the step entered'
  const view = openView({ objects: path.join(commonDir, 'objects') })
  try {
    const endpoint = await lfsEndpoint(view.git, record.push, record.baseSha, 'download')
    if (typeof endpoint === 'object') return endpoint.unpinned
    const fetched = await downloadObjects(
      view,
      { url: record.push.url, endpoint },
      pointers.map(p => p.blob),
      { env: { GIT_ALLOW_PROTOCOL: REMOTE_PROTOCOLS }, stallMs: STALL_MS }
    )
    storeObjects(lfsStore(view.dir), commonDir, lfsEntries(view.dir))
    return fetched.exitCode === 0 ? undefined : `git lfs fetch ${quoted(record.push.remote)} failed: ${lastWords(fetched.stderr)}`
  } finally {
    view.dispose()
  }
}

/**
 * Replaces the pointer a checkout wrote with the object's bytes, copied from the store (without following a link)
 * and checked against its name on the way; whether it did.
 */
function writeObject(folder: string, entry: Entry & { object: LfsObject }, store: string): boolean {
  const full = inside(folder, entry.file, 'latin1')
  if (!reachedWithoutLinks(folder, entry.file, 'latin1') || kindOf(full) !== 'file') return false
  const copy = Buffer.concat([full, Buffer.from('.agent-worktree-lfs')])
  try {
    if (!copyObject(store, entry.object, copy)) return false
    fs.chmodSync(copy, (entry.mode === '100755' ? 0o777 : 0o666) & ~process.umask())
    fs.renameSync(copy, full)
    return true
  } catch {
    fs.rmSync(copy, { force: true })
    return false
  }
}

/** The filter drivers any configuration git reads names. */
async function filterDrivers(git: Git): Promise<string[]> {
  const listed = await git.run(['config', '-z', '--name-only', '--get-regexp', '^filter\\..*\\.(clean|smudge|process|required)$'])
  const names = listed.stdout.split('\0').map(key => /^filter\.(.+)\.[^.]+$/s.exec(key)?.[1])
  return [...new Set(names.filter((name): name is string => !!name))]
}

interface Entry {
  mode: string
  blob: string
  file: string
  /** Not in the index: an untracked file. */
  added?: boolean
}

/**
 * Writes each file of the snapshot's tree that differs from its index tree as its blob's bytes: no filter,
 * attribute or line-ending rule changes one (the rescue took them from disk as they were). Deletions go first,
 * so that no folder on the way is a link; a file whose path leads through a link or a file is not written.
 */
async function writeAsLeft(git: Git, folder: string, snapshot: SnapshotCommit): Promise<Pick<Restored, 'notRestored' | 'untracked'>> {
  const fields = (await git.exec(['diff-tree', '-r', '-z', '--no-renames', snapshot.index, snapshot.tree], { encoding: 'latin1' })).split('\0')
  const gone: string[] = []
  const written: Entry[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    // ":<old mode> <new mode> <old id> <new id> <status>", then the path
    const [, mode, , blob, status] = fields[i].split(' ')
    if (status === 'D') gone.push(fields[i + 1])
    else if (/^(100644|100755|120000)$/.test(mode)) written.push({ mode, blob, file: fields[i + 1], added: status === 'A' })
  }
  const notRestored: { file: string; why: string }[] = []
  for (const file of gone) {
    try {
      if (reachedWithoutLinks(folder, file, 'latin1') && kindOf(inside(folder, file, 'latin1')) !== 'directory')
        fs.rmSync(inside(folder, file, 'latin1'), { force: true })
    } catch (error) {
      notRestored.push({ file: Buffer.from(file, 'latin1').toString('utf8'), why: (error as NodeJS.ErrnoException).code ?? 'it could not be deleted' })
    }
  }
  for (const batch of await batches(git, written)) {
    // A blob larger than a batch is more than one string can hold: git writes it into its file itself.
    const contents =
      batch.length === 1 && batch[0].size > BATCH_BYTES
        ? undefined
        : await blobContents(
            git,
            batch.map(entry => entry.blob)
          )
    for (const [i, entry] of batch.entries()) {
      const why = contents ? writeEntry(folder, entry, contents[i]) : await writeLarge(git, folder, entry)
      if (why) notRestored.push({ file: Buffer.from(entry.file, 'latin1').toString('utf8'), why })
    }
  }
  const untracked = written
    .filter(entry => entry.added && !notRestored.some(n => n.file === Buffer.from(entry.file, 'latin1').toString('utf8')))
    .map(e => e.file)
  return { notRestored, untracked }
}

/** What one git call reads at most: a string of git's output cannot be larger than some 512 MB. */
const BATCH_BYTES = 64 * 1024 * 1024

/** The entries in groups whose blobs together are at most BATCH_BYTES (or one larger blob alone). */
async function batches(git: Git, entries: Entry[]): Promise<(Entry & { size: number })[][]> {
  if (!entries.length) return []
  const sizes = (await git.exec(['cat-file', '--batch-check=%(objectsize)'], { input: `${entries.map(e => e.blob).join('\n')}\n` })).split('\n').map(Number)
  const groups: (Entry & { size: number })[][] = [[]]
  let bytes = 0
  entries.forEach((entry, i) => {
    const size = sizes[i] || 0
    if (bytes + size > BATCH_BYTES && groups[groups.length - 1].length) {
      groups.push([])
      bytes = 0
    }
    groups[groups.length - 1].push({ ...entry, size })
    bytes += size
  })
  return groups
}

/** Writes one file of the snapshot where it was, replacing what the checkout put there; why not, when it cannot. */
function writeEntry(folder: string, entry: Entry, content: Buffer): string | undefined {
  try {
    const blocked = makeParents(folder, entry.file)
    if (blocked) return blocked
    const full = inside(folder, entry.file, 'latin1')
    const kind = kindOf(full)
    // A folder the checkout left where a file goes is empty, or the file is not written.
    if (kind === 'directory') fs.rmdirSync(full)
    else if (kind !== 'missing') fs.rmSync(full)
    if (entry.mode === '120000') fs.symlinkSync(content, full)
    else fs.writeFileSync(full, content, { mode: entry.mode === '100755' ? 0o777 : 0o666, flag: 'wx' })
    return undefined
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'it could not be written'
  }
}

/** Writes one file larger than a batch, as writeEntry does, with git writing the blob's bytes into it. */
async function writeLarge(git: Git, folder: string, entry: Entry): Promise<string | undefined> {
  let fd: number | undefined
  try {
    const written = writeEntry(folder, entry, Buffer.alloc(0))
    if (written) return written
    fd = fs.openSync(inside(folder, entry.file, 'latin1'), fs.constants.O_WRONLY | fs.constants.O_TRUNC | fs.constants.O_NOFOLLOW)
    await git.exec(['cat-file', 'blob', entry.blob], { stdout: fd, interruptible: true })
    return undefined
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'it could not be written'
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Makes the folders above `file`, refusing one on the way that is not a plain folder (a link, a file). */
function makeParents(folder: string, file: string): string | undefined {
  if (!plainPath(file)) return 'it is not a plain path'
  const segments = file.split('/')
  for (let i = 1; i < segments.length; i++) {
    const dir = inside(folder, segments.slice(0, i).join('/'), 'latin1')
    const kind = kindOf(dir)
    if (kind === 'missing') fs.mkdirSync(dir)
    else if (kind !== 'directory') return 'a folder on its way is a link or a file'
  }
  return undefined
}
