// The snapshot of a kept worktree: one commit that holds all its unsaved work, made without touching the
// worktree (its files, index, HEAD and branch stay as they are), kept alive by a ref of its own. It is what a
// rescue copies off the machine and what a restore puts back: the files as the agent left them, the index as
// it was staged, where HEAD was, and every other unsaved commit, named in the commit's trailers.
import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Git } from '../git/git-command-manager.js'
import type { Repository } from '../git/repository.js'
import { dropIndexHints } from '../gate/git-answers.js'
import type { Findings } from '../gate/findings.js'
import { openView } from '../git/sealed-git.js'
import {
  copyOpen,
  identityBlobs,
  identityOf,
  identitySize,
  inside,
  isSpecial,
  kindOf,
  linesOf,
  openBeneath,
  plainPath,
  readSmall
} from '../os/untrusted-files.js'
import { deleteRef, writeRef } from '../git/worktree-refs.js'
import { keptRef } from '../record/refs.js'
import { pointedTo, storedPointers, type LfsObjects } from '../remote/lfs.js'
import { INDEX_SUBJECT, snapshotMessage } from './snapshot-message.js'
import { IDENTITY } from '../record/names.js'
import type { BroughtIn, WorktreeRecord } from '../record/state-helper.js'
import { quoted } from '../os/quote.js'

/** The trailers of a snapshot commit: what a restore needs to put the worktree back as it was. */
export interface LeftOut {
  file: string
  why: string
}

export const OVER_LIMIT = 'over the size limit'

export interface Snapshot {
  /** One commit that holds it all: the files as the agent left them; parents HEAD, the index, and every other unsaved commit. */
  commit: string
  /** The local ref that keeps it alive while the worktree is kept. */
  ref: string
  /** Changed files not in the commit, and why (over the size limit, a named pipe, brought in by the job...). */
  leftOut: LeftOut[]
  /** What a patch is made against: the worktree's base, or HEAD. */
  base: string
  /** HEAD when it was made; none when HEAD had no commit yet (an orphan branch). */
  head?: string
  /** What it would send off the machine, in bytes (commits included), when that is over rescue-max-size. */
  oversize?: number
  /** A commit or the index it would send holds the bytes of `file`, which the job brought in. */
  holdsBrought?: string
  /** The Git LFS objects its commits and index point to that the repository's LFS store holds: sent with them. */
  lfs?: LfsObjects
}

interface Made {
  git: Git
  /** The view's own folder, for copies. */
  dir: string
  head?: string
  headTree: string
  /** The blob ids of the files the job brought in (include-file), by the file each is: never sent. */
  brought: Map<string, string>
  /** The filter drivers of enter, and the base whose attributes name them for a file. */
  filters?: SnapshotFacts['filters']
  base?: string
}

export const BROUGHT_IN = 'the bytes of a file include-file brought in: it may hold secrets'

/** What a snapshot needs of the worktree it copies: who it is, the settings of enter, what the job brought in. */
export type SnapshotFacts = Pick<WorktreeRecord, 'token' | 'name' | 'path' | 'owner' | 'links' | 'fileMode' | 'pinned' | 'rescueMaxBytes' | 'filters'> & {
  /** The commit a created worktree started from, when the step's own record vouches for it. */
  base?: string
  brought?: BroughtIn
  /** The commits the remote of enter has (remote/tips.ts OnRemote): what a rescue need not send. */
  onRemote: string[]
}

/**
 * Builds the snapshot commit. The files go through the view's index: tracked files as on disk, deletions,
 * modes, links, and untracked files that neither the worktree's .gitignore files nor the ignore rules of
 * enter hide. Left out, and named: the largest changed files (staged ones included) beyond rescue-max-size,
 * named pipes and the like, and the files the job brought in (include-file), which may hold secrets.
 */
export async function keepSnapshot(input: {
  repo: Repository
  facts: SnapshotFacts
  gitDir: string
  /** Where the worktree's lock and record are, which names its kept ref: its git dir, unless it is a clone. */
  entry?: string
  folder?: string
  findings: Findings
}): Promise<Snapshot | string> {
  const { repo, facts, gitDir, folder, findings } = input
  const index = path.join(gitDir, 'index')
  const hasIndex = folder !== undefined && fs.existsSync(index)
  const view = (() => {
    try {
      return openView({
        objects: path.join(repo.commonDir, 'objects'),
        head: findings.head,
        index: hasIndex ? index : undefined,
        workTree: folder,
        settings: [`core.fileMode=${facts.fileMode}`, ...(facts.pinned ?? [])],
        filters: facts.filters,
        excludes: facts.brought?.excludes
      })
    } catch (error) {
      return (error as Error).message
    }
  })()
  if (typeof view === 'string') return view
  try {
    const git = view.git
    const headTree = findings.head ? (await git.exec(['rev-parse', `${findings.head}^{tree}`])).trim() : (await git.exec(['mktree'], { input: '' })).trim()
    const made: Made = { git, dir: view.dir, head: findings.head, headTree, brought: broughtBlobs(facts), filters: facts.filters, base: facts.base }
    if (hasIndex) await dropIndexHints(view, folder, fs.existsSync(path.join(gitDir, 'info', 'sparse-checkout')))
    else if (findings.head) await git.exec(['read-tree', findings.head])
    else await git.exec(['read-tree', '--empty'])
    const leftOut: LeftOut[] = ownRepositories(findings)
    const changed = folder ? await changedFiles(made, facts, folder, findings, leftOut) : []
    const staged = await stagedBlobs(made, repo.commonDir)
    const over = overLimit(folder, changed, staged, facts.rescueMaxBytes)
    leftOut.push(...over.map(file => ({ file: display(file), why: OVER_LIMIT })))
    const secret = staged.filter(s => made.brought.has(s.blob)).map(s => s.file)
    leftOut.push(...secret.map(file => ({ file: display(file), why: BROUGHT_IN })))
    // A conflict has no tree: its entry goes back to HEAD's in the index parent; the file goes in as on disk.
    await unstage(made, [...over.filter(file => staged.some(s => s.file === file)), ...secret, ...(await unmerged(made))])
    const indexTree = (await git.exec(['write-tree'])).trim()
    if (folder)
      leftOut.push(
        ...(await stageAsOnDisk(
          made,
          folder,
          changed.filter(file => !over.includes(file)),
          facts.fileMode
        ))
      )
    const tree = (await git.exec(['write-tree'])).trim()
    const commit = await commitSnapshot(made, repo, facts, gitDir, findings, { tree, indexTree, leftOut })
    const ref = keptRef(input.entry ?? gitDir, facts.token)
    await writeRef(repo.git, ref, commit, { log: repo.commonDir, message: 'agent-worktree: kept', required: true })
    const base = facts.base ?? findings.head ?? commit
    const lfs = await pointedTo(repo.git, repo.commonDir, sent(commit, facts.onRemote))
    const size = (await sendSize(repo.git, commit, facts.onRemote)) + (lfs?.objects.reduce((sum, o) => sum + o.size, 0) ?? 0)
    const holdsBrought = await broughtInSent(made, repo.git, commit, facts.onRemote)
    return { commit, ref, leftOut, base, head: findings.head, oversize: size > facts.rescueMaxBytes ? size : undefined, holdsBrought, lfs }
  } catch (error) {
    return (error as Error).message
  } finally {
    view.dispose()
  }
}

/** A path as git gave it (latin1, every byte a character), as it reads: a name that is not UTF-8 keeps its bytes escaped. */
function display(file: string): string {
  const bytes = Buffer.from(file, 'latin1')
  const text = bytes.toString('utf8')
  return Buffer.from(text).equals(bytes) ? text : [...bytes].map(b => (b < 0x80 ? String.fromCharCode(b) : `\\${b.toString(8)}`)).join('')
}

/**
 * What differs on disk from the view's index, and what is untracked and not ignored, as latin1 names (every
 * byte of a name that is not UTF-8 kept). Listed here, not taken from the findings: with no index they list
 * nothing, and a folder behind a .gitignore that hides itself shows there only as that .gitignore. The job's
 * own links are not the agent's; files the job brought in stay out, those the agent changed named.
 */
async function changedFiles(made: Made, facts: SnapshotFacts, folder: string, findings: Findings, leftOut: LeftOut[]): Promise<string[]> {
  const list = async (args: string[]): Promise<string[]> => (await made.git.exec(args, { encoding: 'latin1' })).split('\0').filter(Boolean)
  // Submodules as the index records them: git would otherwise run in each, with its configuration.
  const tracked = await list(['diff-files', '-z', '--name-only', '--ignore-submodules=dirty'])
  const changed = new Set([...tracked, ...(await untrackedWork(made, facts, list, findings, tracked, leftOut))])
  for (const link of facts.links ?? []) if (kindOf(path.join(folder, link)) === 'link') changed.delete(Buffer.from(link).toString('latin1'))
  const included = facts.brought?.included ?? {}
  for (const file of [...changed]) {
    const name = Buffer.from(file, 'latin1').toString('utf8')
    if (!Object.hasOwn(included, name)) continue
    changed.delete(file)
    if (identityOf(folder, name, identitySize(included[name])) !== included[name])
      leftOut.push({ file: name, why: 'brought in by include-file and changed since: it may hold secrets' })
  }
  return [...changed]
}

type List = (args: string[]) => Promise<string[]>

/**
 * Untracked files that are work: those no .gitignore of the worktree (nor the ignore rules of enter) ignores,
 * and those only a rule the agent wrote hides: a new .gitignore that hides its own folder, or a .gitignore
 * it added or changed. A named pipe in place of a .gitignore stops git's listing: then untracked files are
 * named as left out, and the rest is rescued.
 */
async function untrackedWork(made: Made, facts: SnapshotFacts, list: List, findings: Findings, tracked: string[], leftOut: LeftOut[]): Promise<string[]> {
  let all: Promise<string[]> | undefined
  const everything = (): Promise<string[]> => (all ??= list(['ls-files', '-z', '--others']))
  try {
    const untracked = await list(['ls-files', '-z', '--others', '--exclude-standard'])
    const rules = [...tracked, ...untracked].filter(isIgnoreFile)
    const restored = new Set(facts.brought?.restored ?? [])
    return [
      ...untracked,
      ...(await hiddenBySelfHiding(everything, findings)),
      ...(rules.length ? await hiddenByChangedRules(made, list, everything) : []),
      ...(restored.size ? (await everything()).filter(file => restored.has(file)) : [])
    ]
  } catch (error) {
    if (!/named pipe/.test((error as Error).message)) throw error
    leftOut.push({ file: 'untracked files', why: `git could not list them: ${(error as Error).message.split('\n')[0]}` })
    return []
  }
}

function isIgnoreFile(file: string): boolean {
  return file === '.gitignore' || file.endsWith('/.gitignore')
}

/**
 * Untracked files that git ignores now but would not under the .gitignore files the index has: hidden by a
 * rule the agent added, changed or deleted. git answers for each, in a folder of the view's own that holds
 * only the index's .gitignore files (and the folders of what is asked about).
 */
async function hiddenByChangedRules(made: Made, list: List, everything: () => Promise<string[]>): Promise<string[]> {
  const rules = path.join(made.dir, 'rules')
  fs.mkdirSync(rules)
  const files = (await made.git.exec(['ls-files', '-z', '-s', '--', '.gitignore', ':(glob)**/.gitignore'], { encoding: 'latin1' })).split('\0').filter(Boolean)
  for (const line of files) {
    const [, blob] = line.split(' ')
    const file = line.slice(line.indexOf('\t') + 1)
    // The index is the agent's to forge: a path that climbs out of the folder is not written.
    if (!plainPath(file)) continue
    const content = await made.git.exec(['cat-file', 'blob', blob], { encoding: 'latin1' })
    fs.mkdirSync(inside(rules, path.posix.dirname(file), 'latin1'), { recursive: true })
    fs.writeFileSync(inside(rules, file, 'latin1'), Buffer.from(content, 'latin1'))
  }
  // Ignored now, whole folders as one entry.
  const ignored = await list(['ls-files', '-z', '--others', '--ignored', '--exclude-standard', '--directory'])
  for (const entry of ignored) fs.mkdirSync(inside(rules, entry.endsWith('/') ? entry : path.posix.dirname(entry), 'latin1'), { recursive: true })
  const checked = await made.git.with(`--work-tree=${rules}`).run(['check-ignore', '-z', '--stdin', '--no-index', '--verbose', '--non-matching'], {
    input: Buffer.from(ignored.map(e => `${e}\0`).join(''), 'latin1'),
    encoding: 'latin1'
  })
  if (checked.exitCode > 1) throw new Error(`git check-ignore failed: ${checked.stderr.trim()}`)
  const fields = checked.stdout.split('\0')
  const freed: string[] = []
  // <source> <line> <pattern> <path>, four fields a path: no source, or a negation, is not ignored then.
  for (let i = 0; i + 3 < fields.length; i += 4) if (!fields[i] || fields[i + 2].startsWith('!')) freed.push(fields[i + 3])
  if (!freed.length) return []
  const untracked = await everything()
  return untracked.filter(file => freed.some(entry => (entry.endsWith('/') ? file.startsWith(entry) : file === entry)))
}

/**
 * The untracked files of each folder whose new .gitignore hides the folder and itself, which the gate counted
 * as work. The gate's names are text: they are matched against git's own bytes (a name that is not UTF-8
 * cannot be a pathspec on a command line).
 */
async function hiddenBySelfHiding(everything: () => Promise<string[]>, findings: Findings): Promise<string[]> {
  const counted = new Set(findings.uncommitted.filter(e => e.code === '??' && (e.path === '.gitignore' || e.path.endsWith('/.gitignore'))).map(e => e.path))
  if (!counted.size) return []
  const untracked = await everything()
  const folders = untracked
    .filter(file => (file === '.gitignore' || file.endsWith('/.gitignore')) && counted.has(Buffer.from(file, 'latin1').toString('utf8')))
    .map(file => file.slice(0, -'.gitignore'.length))
  return untracked.filter(file => folders.some(folder => file.startsWith(folder)))
}

/** Submodules and repositories nested in the folder that hold work of their own: a rescue does not hold it. */
function ownRepositories(findings: Findings): LeftOut[] {
  const paths = new Set([...findings.nested.map(n => n.path), ...findings.unsavedCommits.flatMap(c => (c.submodule ? [c.submodule] : []))])
  return [...paths].map(file => ({ file, why: 'a repository of its own: the work in it is not in the rescue' }))
}

/** The blob ids of what include-file copied, by the file each is. */
function broughtBlobs(facts: SnapshotFacts): Map<string, string> {
  const blobs = new Map<string, string>()
  for (const [file, identity] of Object.entries(facts.brought?.included ?? {})) for (const blob of identityBlobs(identity)) blobs.set(blob, file)
  return blobs
}

/**
 * The first object the rescue would send that holds the bytes of a file the job brought in, under any name
 * (a copy, a rename, a hard link, a backup an editor left), in any commit, the index or a stash.
 */
async function broughtInSent(made: Made, git: Git, commit: string, onRemote: string[]): Promise<string | undefined> {
  if (!made.brought.size) return undefined
  const objects = await git.exec(['rev-list', '--objects', '--no-object-names', '--stdin'], { input: sent(commit, onRemote) })
  const found = objects.split('\n').find(id => made.brought.has(id))
  return found && made.brought.get(found)
}

interface Staged {
  file: string
  blob: string
  size: number
}

/**
 * Index entries whose content differs from HEAD (new blobs), with their sizes: the staged work. A staged LFS file
 * weighs what its object does, where the store has it: that is what a rescue sends of it.
 */
async function stagedBlobs(made: Made, commonDir: string): Promise<Staged[]> {
  const raw = await made.git.exec(['diff-index', '--cached', '-z', '--raw', '--no-renames', '--ignore-submodules=all', made.headTree], { encoding: 'latin1' })
  const fields = raw.split('\0')
  const entries: { file: string; blob: string }[] = []
  for (let i = 0; i + 1 < fields.length; i += 2) {
    // ":<old mode> <new mode> <old sha> <new sha> <status>" then the path
    const [, newMode, , blob, status] = fields[i].split(' ')
    if (status !== 'D' && /^10/.test(newMode ?? '')) entries.push({ file: fields[i + 1], blob })
  }
  if (!entries.length) return []
  const sizes = (await made.git.exec(['cat-file', '--batch-check=%(objectsize)'], { input: `${entries.map(e => e.blob).join('\n')}\n` })).split('\n')
  const staged = entries.map((e, i) => ({ ...e, size: Number(sizes[i]) || 0 }))
  const pointers = await storedPointers(made.git, commonDir, staged)
  return staged.map(s => ({ ...s, size: pointers.get(s.blob)?.size ?? s.size }))
}

/** The largest changed files, on disk and staged, left out until the rest fit in `limit` bytes. */
function overLimit(folder: string | undefined, changed: string[], staged: Staged[], limit: number): string[] {
  const sizes = [
    ...changed.map(file => ({ file, size: folder ? sizeOnDisk(inside(folder, file, 'latin1')) : 0 })),
    ...staged.map(s => ({ file: s.file, size: s.size }))
  ].sort((a, b) => b.size - a.size)
  let total = sizes.reduce((sum, s) => sum + s.size, 0)
  const out = new Set<string>()
  for (const { file, size } of sizes) {
    if (total <= limit) break
    out.add(file)
    total -= size
  }
  return [...out]
}

/** A file's size, 0 for what is not there (gone, or a folder on the way replaced by a file). */
function sizeOnDisk(p: Buffer): number {
  try {
    return fs.lstatSync(p, { throwIfNoEntry: false })?.size ?? 0
  } catch {
    return 0
  }
}

/** Paths the index holds in conflict (a merge or rebase left in progress), as latin1 names. */
async function unmerged(made: Made): Promise<string[]> {
  const raw = await made.git.exec(['ls-files', '-z', '--unmerged'], { encoding: 'latin1' })
  return [
    ...new Set(
      raw
        .split('\0')
        .filter(Boolean)
        .map(line => line.slice(line.indexOf('\t') + 1))
    )
  ]
}

/** Index entries put back to HEAD's (or taken out of the index, when HEAD has none). */
async function unstage(made: Made, files: string[]): Promise<void> {
  if (!files.length) return
  const paths = files.map(file => Buffer.from(`${file}\0`, 'latin1'))
  await made.git.exec(['--literal-pathspecs', 'reset', '-q', '--no-refresh', made.head ?? made.headTree, '--pathspec-from-file=-', '--pathspec-file-nul'], {
    input: Buffer.concat(paths)
  })
}

/**
 * Puts the files into the view's index exactly as they are on disk: no clean filter (LFS, line endings)
 * changes a byte, so a restore gets back what the agent left. Links are stored as links, a missing file as
 * a deletion. Each regular file is copied aside first, opened without following a link and without waiting
 * on a pipe, so that git reads only our copy; a named pipe, socket or device, or a path reached through a
 * link, is left out and named.
 */
async function stageAsOnDisk(made: Made, folder: string, files: string[], fileMode: boolean): Promise<LeftOut[]> {
  const entries: Buffer[] = []
  const leftOut: LeftOut[] = []
  const copies: { file: string; mode: string; copy: string }[] = []
  const copiesDir = path.join(made.dir, 'copies')
  fs.mkdirSync(copiesDir)
  const entry = (mode: string, id: string, file: string): Buffer =>
    Buffer.concat([Buffer.from(`${mode} ${id}\t`), Buffer.from(file, 'latin1'), Buffer.from('\0')])
  for (const file of files) {
    // A nested repository (listed with a trailing slash) is named from the findings.
    if (file.endsWith('/')) continue
    const found = openBeneath(folder, file, 'latin1')
    if (!found.reached) {
      leftOut.push({ file: display(file), why: 'reached through a symbolic link' })
    } else if (found.kind === 'link') {
      const id = (await made.git.exec(['hash-object', '-w', '--stdin'], { input: found.target })).trim()
      entries.push(entry('120000', id, file))
    } else if (found.fd !== undefined) {
      const copy = path.join(copiesDir, String(copies.length))
      const mode = fileMode && found.mode! & 0o111 ? '100755' : '100644'
      try {
        copyOpen(found.fd, copy)
        copies.push({ file, mode, copy })
      } catch {
        leftOut.push({ file: display(file), why: 'it could not be read' })
      } finally {
        fs.closeSync(found.fd)
      }
    } else if (found.kind === 'directory') {
      // A submodule or a nested repository: its entry stays as the index has it (its own work is named).
    } else if (isSpecial(found.kind)) {
      leftOut.push({ file: display(file), why: found.kind === 'fifo' ? 'a named pipe' : found.kind === 'socket' ? 'a socket' : 'a device' })
    } else {
      entries.push(entry('0', '0'.repeat(made.headTree.length), file))
    }
  }
  // A file under a clean filter of enter goes as that filter stores it (ciphertext); the rest as its bytes.
  const filtered = await cleanFilters(
    made,
    copies.map(c => c.file)
  )
  const plain = copies.filter(c => !filtered.has(c.file))
  // The copies have names of our own: one git reads them all, a line each.
  const ids = new Map<string, string>()
  const hashed = plain.length
    ? (await made.git.exec(['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: `${plain.map(c => c.copy).join('\n')}\n` })).split('\n')
    : []
  plain.forEach((c, i) => ids.set(c.file, hashed[i]))
  for (const c of copies.filter(c => filtered.has(c.file))) {
    const id = await storedAs(made, c.file, c.copy, filtered.get(c.file)!)
    if (id) ids.set(c.file, id)
    else
      leftOut.push({
        file: display(c.file),
        why: `its clean filter ${quoted(filtered.get(c.file)!)} could not store it, and it is never sent as it is on disk`
      })
  }
  for (const c of copies.filter(c => ids.has(c.file))) {
    // The bytes of a file the job brought in, under whatever name: left as the index has it.
    if (made.brought.has(ids.get(c.file)!)) leftOut.push({ file: display(c.file), why: BROUGHT_IN })
    else entries.push(entry(c.mode, ids.get(c.file)!, c.file))
  }
  if (entries.length) await made.git.exec(['update-index', '-z', '--index-info'], { input: Buffer.concat(entries) })
  return leftOut
}

/**
 * The clean filter of enter each file goes through, by the file: a driver the repository had at enter, with a clean
 * or process command, that the attributes name for it, the base's or the worktree's now (an agent that takes the
 * attribute away sends no plaintext). Git LFS is not among them: a file on disk goes as its bytes (the pointers of
 * commits and the index go with their objects, lfs.ts).
 */
async function cleanFilters(made: Made, files: string[]): Promise<Map<string, string>> {
  const drivers = Object.entries(made.filters ?? {}).filter(([, d]) => (d.clean || d.process) && !/\bgit[- ]lfs\b/.test(`${d.clean ?? ''} ${d.process ?? ''}`))
  const found = new Map<string, string>()
  if (!drivers.length || !files.length) return found
  const input = Buffer.from(files.map(f => `${f}\0`).join(''), 'latin1')
  const read = (out: string): void => {
    const fields = out.split('\0')
    // <path> NUL filter NUL <value> NUL
    for (let i = 0; i + 2 < fields.length; i += 3) if (drivers.some(([name]) => name === fields[i + 2])) found.set(fields[i], fields[i + 2])
  }
  read(await made.git.exec(['check-attr', '-z', '--stdin', 'filter'], { input, encoding: 'latin1' }))
  if (made.base) {
    const index = path.join(made.dir, 'base-index')
    await made.git.exec(['read-tree', `--index-output=${index}`, made.base])
    read(await made.git.exec(['check-attr', '-z', '--stdin', '--cached', 'filter'], { input, encoding: 'latin1', env: { GIT_INDEX_FILE: index } }))
  }
  return found
}

/**
 * The blob of `copy` as the clean filter `driver` of enter stores the file: git cleans it through a work tree of
 * this step's own whose one attribute names that driver for the file's path. None when git cannot (the filter
 * failed; a name that is not UTF-8 cannot be given).
 */
async function storedAs(made: Made, file: string, copy: string, driver: string): Promise<string | undefined> {
  const name = Buffer.from(file, 'latin1').toString('utf8')
  if (Buffer.from(name).toString('latin1') !== file) return undefined
  const attrs = path.join(made.dir, `attrs-${driver.replace(/[^A-Za-z0-9]/g, '_')}`)
  fs.mkdirSync(attrs, { recursive: true })
  // The path as a quoted pattern: glob characters escaped, then C-quoted (gitattributes takes "…" patterns).
  const pattern = `/${name}`.replace(/[*?[\\]/g, '\\$&')
  // eslint-disable-next-line no-control-regex
  const quotedPattern = pattern.replace(/["\\]/g, '\\$&').replace(/[\u0000-\u001f\u007f]/g, c => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`)
  fs.writeFileSync(path.join(attrs, '.gitattributes'), `"${quotedPattern}" filter=${driver}\n`)
  // The path inside that work tree (git's folder is elsewhere): a relative one would be looked up outside it.
  const hashed = await made.git.with(`--work-tree=${attrs}`).run(['hash-object', '-w', `--path=${path.join(attrs, name)}`, '--', copy])
  return hashed.exitCode === 0 ? hashed.stdout.trim() : undefined
}

/** The snapshot commit: its parents HEAD, the index (when it differs), every other unsaved tip; its trailers. */
async function commitSnapshot(
  made: Made,
  repo: Repository,
  facts: SnapshotFacts,
  gitDir: string,
  findings: Findings,
  built: { tree: string; indexTree: string; leftOut: LeftOut[] }
): Promise<string> {
  const { git, head, headTree } = made
  const parents: string[] = head ? [head] : []
  const notes = head ? [`Parent 1: HEAD (${head.slice(0, 12)}), where the agent was.`] : ['HEAD had no commit yet (an orphan branch): no parent stands for it.']
  if (built.indexTree !== headTree && built.indexTree !== built.tree) {
    const args = ['commit-tree', built.indexTree, ...(head ? ['-p', head] : []), '-m', INDEX_SUBJECT]
    parents.push((await git.exec(args, { env: IDENTITY })).trim())
    notes.push(`Parent ${parents.length}: the index, with the staged changes.`)
  }
  const others = findings.tips.filter(tip => tip !== head)
  if (others.length) {
    const independent = (await repo.git.exec(['merge-base', '--independent', ...(head ? [head] : []), ...others]))
      .split('\n')
      .filter(tip => tip && tip !== head)
    for (const tip of independent) {
      parents.push(tip)
      notes.push(`Parent ${parents.length}: ${tip.slice(0, 12)}, commits HEAD does not reach.`)
    }
  }
  const branch = readSmall(path.join(gitDir, 'HEAD'))
    ?.trim()
    .replace(/^ref: /, '')
  const lines = [
    `The files of ${facts.path} as they were left: tracked files as on disk, and untracked files that git does not ignore.`,
    ...notes,
    ...(built.leftOut.length ? [`Left out: ${built.leftOut.map(l => `${l.file} (${l.why})`).join(', ')}`] : []),
    `Job: run ${facts.owner.run || '-'}, job ${facts.owner.job || '-'}, runner ${facts.owner.runner || '-'}.`
  ]
  const message = snapshotMessage(facts.name, lines, {
    head,
    branch: branch && branch.startsWith('refs/heads/') ? branch : undefined,
    index: built.indexTree,
    base: facts.base ?? head
  })
  return (await git.exec(['commit-tree', built.tree, ...parents.flatMap(p => ['-p', p]), '-F', '-'], { env: IDENTITY, input: message })).trim()
}

/** What a rescue of `commit` sends, about, in bytes on disk (compressed): everything that no remote-tracking ref has (its LFS objects aside). */
async function sendSize(git: Git, commit: string, onRemote: string[]): Promise<number> {
  const measured = await git.run(['rev-list', '--objects', '--disk-usage', '--stdin'], { input: sent(commit, onRemote) })
  return measured.exitCode === 0 ? Number(measured.stdout.trim()) || 0 : 0
}

/** The revisions of what a rescue of `commit` sends, for git's --stdin: all of it that the remote does not have. */
export function sent(commit: string, onRemote: string[]): string {
  return [commit, ...onRemote.map(tip => `^${tip}`)].join('\n') + '\n'
}

/** Deletes a kept ref, when there is one (a loose file, or a line of packed-refs): no git call otherwise. */
export async function dropKeptRef(git: Git, commonDir: string, ref: string): Promise<void> {
  const packed = fs.existsSync(path.join(commonDir, 'packed-refs')) && [...linesOf(path.join(commonDir, 'packed-refs'))].some(line => line.endsWith(` ${ref}`))
  if (packed || fs.existsSync(path.join(commonDir, ...ref.split('/')))) {
    await deleteRef(git, ref, { log: commonDir })
  }
}
