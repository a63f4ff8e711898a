// The one place that decides whether removing a worktree could lose work. It reads the worktree through
// a copy of its index with every bit that hides an edit cleared, so that what git is told to skip
// (skip-worktree, assume-unchanged, an fsmonitor) is seen, and counts every commit the worktree's git
// dir remembers, not only the one its branch points to.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import type { OnExit } from '../record/settings.js'
import { isInside } from '../os/paths.js'
import { parseStatus, parseStatusV2, type StatusEntry } from '../git/porcelain.js'
import { adminDirs } from '../git/repository.js'
import { openView } from '../git/sealed-git.js'
import type { FilterDriver } from '../record/state-helper.js'
import { identityOf, identitySize, isSpecial, kindOf, readSmall, reachedWithoutLinks, sameBytes, type FileKind } from '../os/untrusted-files.js'
import { deleteRef, gitDirCommits, refReflogCommits } from '../git/worktree-refs.js'
import { quoted } from '../os/quote.js'
import type { OnRemote } from '../remote/tips.js'

/** A file git counts as uncommitted: its status code as `git status --porcelain` gives it (`??` untracked), and its path. */
export interface Uncommitted {
  code: string
  path: string
}

/** A commit that nothing outliving the worktree has: abbreviated, its subject, and the submodule it is in, if not the worktree's own. */
export interface UnsavedCommit {
  commit: string
  subject: string
  submodule?: string
}

/** A repository inside the worktree's folder with work of its own, and what that work is. */
export type NestedWork = { path: string } & Nested

/** What a nested repository is, and what work it holds. */
export type Nested = { what: 'repository' | 'worktree' | 'bare repository' | 'submodule' } & (
  { state: 'unreadable' | 'too-deep' | 'locked' | 'commits' } | { state: 'uncommitted'; files: number } | { state: 'holding'; inside: NestedWork[] }
)

/** A tracked path the agent replaced by something that is not a file. */
export interface SpecialFile {
  path: string
  kind: FileKind
}

/** What the gate found, as data: the report alone turns it into words. */
export interface Findings {
  /** Modified, staged, deleted, and untracked files that are not ignored. */
  uncommitted: Uncommitted[]
  /** Commits the worktree remembers that neither the base nor a ref that outlives the removal has. */
  unsavedCommits: UnsavedCommit[]
  /** Repositories or worktrees inside the worktree's folder that hold work of their own. */
  nested: NestedWork[]
  /** The commits at the tips of the unsaved ones: what a rescue must keep reachable. */
  tips: string[]
  /** The worktree's HEAD commit, when it could be read. */
  head?: string
  /** Where each branch that goes with the worktree pointed when the gate looked. */
  branchTips?: Record<string, string>
  /** Every commit that counted as a tip, as the gate saw them: unchanged, the answer is the same. */
  sources?: string
  /** Tracked paths the agent replaced by a named pipe, a socket or a device: work, never read. */
  special?: SpecialFile[]
  /**
   * Untracked paths no .gitignore ignores that are not work: clean nested repositories, the action's own links.
   * Cleaning ignored files (the pool) would leave them behind.
   */
  loose?: string[]
  /** Files the job brought in (include-file) that the agent changed: work, but never rescued (they may hold secrets). */
  broughtChanged?: string[]
  /** Why the remote could not be asked whether it has the commits: then they count as unsaved. */
  remoteUnasked?: string
  /** Why no remote of enter could say it has the commits of a submodule, by its path: then they count as unsaved. */
  submoduleUnasked?: Record<string, string>
  /** Set when the state could not be determined: then nothing may be removed. */
  error?: string
}

export interface GateInput {
  /** Git in the repository the worktree belongs to. */
  repository: Git
  commonDir: string
  /** The worktree's own git dir (<common dir>/worktrees/<id>). */
  gitDir: string
  /** The worktree's folder; undefined when it is gone. */
  folder?: string
  /** core.fileMode as it was at enter, and the other settings pinned then. */
  fileMode: boolean
  pinned?: string[]
  /** The filter drivers configured at enter (git-lfs): the only programs the gate lets git run. */
  filters?: Record<string, FilterDriver>
  /** The ignore rules of enter (info/exclude, core.excludesFile): they hide what they hid then; rules added later hide nothing. */
  excludes?: string
  /** What the job brought in (include-file), by what it is: unchanged, not the agent's work. */
  included?: Record<string, string>
  /** Untracked files a restore put back (latin1 names): work while they are there, whatever ignores them. */
  restored?: string[]
  /** A created worktree's base: its commits are not the agent's. */
  baseSha?: string
  /** Branches that go with the worktree: their commits and reflogs count. */
  branchesToDelete: string[]
  /** Asked only when a commit is not saved otherwise; once per exit. */
  onRemote: () => Promise<OnRemote>
  /**
   * The remote a submodule had at enter, by its path, asked only when a commit there is not saved otherwise; once
   * per remote and exit. Undefined (or none given) where no remote of enter is known for it: then only what the
   * base pins saves a commit there.
   */
  onSubmoduleRemote?: (submodule: string) => Promise<OnRemote> | undefined
  /** The machine outlives the job (self-hosted): the shared stash and notes outlive the removal. */
  machineStays: boolean
  /**
   * Local branches and tags outlive the removal and the next job's actions/checkout: on a machine that stays, in a
   * repository that checkout does not prepare (it deletes every local branch, and with fetch-depth: 0 every tag
   * the remote lacks).
   */
  localRefsSurvive: boolean
  /** Only reflog entries from this time count (ms): a worktree from the pool remembers earlier jobs. */
  since?: number
  /** Links this action made (symlink-dirs): git sees them as untracked, but they are not work. */
  ownLinks: string[]
  /** False when the main step provably never finished its checkout: then no index is expected. */
  expectIndex: boolean
  /** A sparse worktree: files outside its cone are absent on purpose. */
  sparse: boolean
  /** Ignored files count too (the pool hands out only empty-handed worktrees). */
  countIgnored?: boolean
  /** Finishing a removal that was cut short: files already deleted are not work. */
  tolerateDeletions?: boolean
  /** The findings of a moment ago, for a check again just before a removal. */
  previous?: Findings
  /**
   * A clone of the agent's own (gitDir and commonDir are its .git): every ref of it goes with it and counts, but
   * its remote-tracking branches, which a push moves; `borrowed` reaches what it borrowed from the original.
   */
  clone?: { borrowed?: string }
}

/** Files compared byte for byte with what checkout would write, at most (CRLF files under a text attribute). */
const MAX_RECHECKED = 2000

/** Git that reads a worktree's refs through its git dir: for HEAD and commits, never for its files. */
function refsGit(input: GateInput): Git {
  return new Git(input.folder ?? input.gitDir, [`--git-dir=${input.gitDir}`])
}

/** The settings that decide what counts as a change, as they were at enter, for a sealed view. */
function viewSettings(input: Pick<GateInput, 'fileMode' | 'pinned'>): string[] {
  return [`core.fileMode=${input.fileMode}`, ...(input.pinned ?? [])]
}

export async function inspect(input: GateInput): Promise<Findings> {
  const findings: Findings = { uncommitted: [], unsavedCommits: [], nested: [], tips: [] }
  const head = await refsGit(input).run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { interruptible: true })
  // A branch without a commit yet (git switch --orphan) is a state like any other: its files are judged.
  if (head.exitCode !== 0 && !(await unborn(refsGit(input)))) return { ...findings, error: 'the worktree has no HEAD commit that can be read' }
  findings.head = head.exitCode === 0 ? head.stdout.trim() : undefined
  const results = await Promise.allSettled([uncommitted(input, findings.head), unsavedCommits(refsGit(input), input, findings.head)])
  const [files, commits] = results
  if (files.status === 'fulfilled') Object.assign(findings, files.value)
  if (commits.status === 'fulfilled') {
    Object.assign(findings, {
      ...commits.value,
      unsavedCommits: [...commits.value.unsavedCommits, ...(files.status === 'fulfilled' ? files.value.submoduleCommits : [])]
    })
  }
  const failed = results.find(r => r.status === 'rejected')
  if (failed) findings.error = (failed.reason as Error).message
  return findings
}

/** HEAD names a branch that has no commit yet. */
async function unborn(git: Git): Promise<boolean> {
  const branch = await git.run(['symbolic-ref', '--quiet', 'HEAD'], { interruptible: true })
  if (branch.exitCode !== 0 || !branch.stdout.startsWith('refs/heads/')) return false
  return (await git.run(['show-ref', '--verify', '--quiet', branch.stdout.trim()], { interruptible: true })).exitCode === 1
}

class Unknown extends Error {}

/**
 * A git call whose answer the gate needs. `seeAll`: a listing of what may be work, which must have seen
 * every folder (git warns past one it cannot open, deeper than PATH_MAX or unreadable, and goes on).
 */
async function must(git: Git, args: string[], input?: string | Buffer, seeAll = false): Promise<string> {
  const result = await git.run(args, { input, interruptible: true })
  if (result.exitCode !== 0) throw new Unknown(result.stderr.trim() || `git ${args[0]} exited with code ${result.exitCode}`)
  const unseen = seeAll && /^warning: could not open directory .*$/m.exec(result.stderr)
  if (unseen) throw new Unknown(unseen[0].slice('warning: '.length))
  return result.stdout
}

type Files = Pick<Findings, 'uncommitted' | 'nested' | 'special' | 'loose' | 'submoduleUnasked'> & { submoduleCommits: UnsavedCommit[] }

async function uncommitted(input: GateInput, head: string | undefined): Promise<Files> {
  const none: Files = { uncommitted: [], nested: [], submoduleCommits: [] }
  if (!input.folder) return none
  const folder = input.folder
  const index = path.join(input.gitDir, 'index')
  if (!fs.existsSync(index)) {
    if (!input.expectIndex) return none
    throw new Unknown('the worktree has no index (deleted?), so its files cannot be compared with its HEAD')
  }
  const view = openView({
    objects: path.join(input.commonDir, 'objects'),
    head,
    index,
    workTree: folder,
    settings: viewSettings(input),
    filters: input.filters,
    excludes: input.excludes
  })
  try {
    const staged = await dropIndexHints(view.git, folder, input.sparse)
    // A removal cut short may have deleted .gitignore files: put them back (the folder goes anyway), so
    // that what is ignored stays ignored.
    if (input.tolerateDeletions) {
      const ignores = (await must(view.git, ['ls-files', '-z', '--', ':(glob)**/.gitignore'])).split('\0').filter(p => p && reachedWithoutLinks(folder, p))
      if (ignores.length) await view.git.run(['checkout-index', '-z', '--stdin'], { input: ignores.join('\0') })
    }
    // Untracked work is what the worktree's .gitignore files do not ignore: a pattern the agent added to
    // .git/info/exclude or a global excludes file hides nothing. Every untracked path, ignored or not,
    // shows where nested repositories are.
    const [status, untracked, others] = await Promise.all([
      must(view.git, ['status', '--porcelain=v2', '-z', '--untracked-files=no', '--ignore-submodules=dirty']),
      input.countIgnored ? Promise.resolve('') : must(view.git, ['ls-files', '-z', '--others', '--exclude-standard'], undefined, true),
      must(view.git, ['ls-files', '-z', '--others'])
    ])
    const loose = untracked.split('\0').filter(p => p.endsWith('/') || input.ownLinks.includes(p))
    const { broughtIn, broughtChanged } = brought(folder, untracked, input.included)
    const newFiles = (input.countIgnored ? others : untracked).split('\0').filter(p => p && !input.ownLinks.includes(p) && !broughtIn.has(p))
    newFiles.push(...restoredStill(input.restored, others, newFiles))
    let entries = [...parseStatusV2(status).entries, ...newFiles.map(p => ({ code: '??', path: p }))]
    if (input.tolerateDeletions) entries = entries.filter(e => e.code !== ' D')
    const special = specialFiles(folder, entries)
    const [unchanged, nested, hiding, submodules] = await Promise.all([
      sameAsCheckout(
        view.git,
        view.dir,
        folder,
        entries.filter(e => !special.has(e.path))
      ),
      nestedWork(folder, others, input),
      selfHidingIgnores(view.git, others, new Set(newFiles)),
      submoduleWork(folder, staged.submodules, { git: view.git, commit: input.baseSha }, input, 0)
    ])
    const files = entries.filter(e => !unchanged.has(e.path) && !(e.code === '??' && e.path.endsWith('/')))
    files.push(...hiding.map(p => ({ code: '??', path: p })))
    // A submodule with work in its files shows as git shows it with --ignore-submodules=none: modified.
    for (const dirty of submodules.dirty) if (!files.some(e => e.path === dirty)) files.push({ code: ' M', path: dirty })
    return {
      uncommitted: files.map(({ code, path }) => ({ code, path })),
      nested: [...nested, ...submodules.nested],
      submoduleCommits: submodules.commits,
      ...(Object.keys(submodules.unasked).length ? { submoduleUnasked: submodules.unasked } : {}),
      loose,
      ...(broughtChanged.length ? { broughtChanged } : {}),
      ...(special.size ? { special: [...special].map(([path, kind]) => ({ path, kind })) } : {})
    }
  } finally {
    view.dispose()
  }
}

/** The untracked files a restore put back that are still there and that an ignore rule hides: work all the same. */
function restoredStill(restored: string[] = [], others: string, listed: string[]): string[] {
  if (!restored.length) return []
  const names = new Set(restored.map(file => Buffer.from(file, 'latin1').toString('utf8')))
  const seen = new Set(listed)
  return others.split('\0').filter(p => names.has(p) && !seen.has(p))
}

/**
 * The untracked files the job brought in (include-file): unchanged, they are not work; changed by the agent,
 * they count, and are named (a rescue never carries them: they may hold secrets).
 */
function brought(folder: string, untracked: string, included: Record<string, string> = {}): { broughtIn: Set<string>; broughtChanged: string[] } {
  const broughtIn = new Set<string>()
  const broughtChanged: string[] = []
  for (const file of untracked.split('\0')) {
    if (!Object.hasOwn(included, file)) continue
    if (identityOf(folder, file, identitySize(included[file])) === included[file]) broughtIn.add(file)
    else broughtChanged.push(file)
  }
  return { broughtIn, broughtChanged }
}

/**
 * Tracked paths the agent replaced by a named pipe, a socket or a device: git calls them modified; they are
 * work, never read (a read of a pipe would wait for ever).
 */
function specialFiles(folder: string, entries: StatusEntry[]): Map<string, FileKind> {
  const found = new Map<string, FileKind>()
  for (const entry of entries) {
    if (entry.code === '??' || !reachedWithoutLinks(folder, entry.path)) continue
    const kind = kindOf(path.join(folder, entry.path))
    if (isSpecial(kind)) found.set(entry.path, kind)
  }
  return found
}

/**
 * The index of a view, its entries kept and all else it says of the files dropped: the assume-unchanged and
 * skip-worktree bits, and each entry's stat data (a file's size and times when git last looked at it). The agent
 * writes the index as it likes: an entry can claim the size and times of a file whose bytes it no longer holds,
 * and git, trusting them, would call the file unchanged. Without them git compares every file's bytes. In a
 * sparse worktree a skip-worktree entry whose file is absent keeps its bit: it is not there to hide anything.
 * Returns the paths of the submodules (gitlinks) the index records.
 */
export async function dropIndexHints(git: Git, folder: string, sparse: boolean): Promise<{ submodules: string[] }> {
  const entries: string[] = []
  const submodules: string[] = []
  // latin1: every byte of a name that is not UTF-8 goes back as it came.
  const listed = await git.run(['ls-files', '-v', '-s', '-z'], { interruptible: true, encoding: 'latin1' })
  if (listed.exitCode !== 0) throw new Unknown(listed.stderr.trim() || `git ls-files exited with code ${listed.exitCode}`)
  for (const field of listed.stdout.split('\0')) {
    // "<tag> <mode> <object> <stage>\t<path>"
    const match = /^(\S) ((\d+) [0-9a-f]+ \d\t(.*))$/s.exec(field)
    if (!match) continue
    const [, tag, entry, mode, file] = match
    if (mode === '160000') submodules.push(Buffer.from(file, 'latin1').toString())
    if (tag.toUpperCase() === 'S' && sparse && !fs.lstatSync(Buffer.from(path.join(folder, file), 'latin1'), { throwIfNoEntry: false })) continue
    entries.push(entry)
  }
  // Written again from the listing, an entry has no stat data, and neither bit.
  if (entries.length) await must(git, ['update-index', '-z', '--index-info'], Buffer.from(`${entries.join('\0')}\0`, 'latin1'))
  return { submodules }
}

/**
 * Files git calls modified whose bytes and mode are exactly what a checkout of HEAD writes: a file
 * committed with CRLF before a `text` attribute looks changed to git right after checkout, though
 * nobody touched it. Only regular files whose index matches HEAD, and a bounded number of them, are
 * compared, a chunk at a time, and only where no link leads out of the folder.
 */
async function sameAsCheckout(git: Git, temp: string, folder: string, entries: StatusEntry[]): Promise<Set<string>> {
  const candidates = entries
    .filter(
      e =>
        e.code === ' M' &&
        e.sub === 'N...' &&
        e.modes?.[0] === e.modes?.[2] &&
        (e.modes?.[2] === '100644' || e.modes?.[2] === '100755') &&
        !e.path.includes('\n') &&
        reachedWithoutLinks(folder, e.path)
    )
    .slice(0, MAX_RECHECKED)
  const same = new Set<string>()
  if (!candidates.length) return same
  const prefix = path.join(temp, 'checkout') + path.sep
  const result = await git.run(['checkout-index', '-z', '--stdin', `--prefix=${prefix}`], {
    input: candidates.map(e => e.path).join('\0'),
    interruptible: true
  })
  if (result.exitCode !== 0) return same
  for (const entry of candidates) if (sameBytes(path.join(prefix, entry.path), path.join(folder, entry.path))) same.add(entry.path)
  return same
}

/**
 * Untracked .gitignore files, in folders that no other rule ignores, that ignore what is around them (and
 * themselves): a folder of new work behind one looks empty to git. Such a file is work, and so is the
 * folder it would hide.
 */
async function selfHidingIgnores(git: Git, others: string, listed: Set<string>): Promise<string[]> {
  const hidden = others.split('\0').filter(p => (p === '.gitignore' || p.endsWith('/.gitignore')) && !listed.has(p))
  if (!hidden.length) return []
  const folders = hidden.map(p => path.posix.dirname(p))
  const check = await git.run(['check-ignore', '-z', '--stdin'], { input: folders.join('\0'), interruptible: true })
  const ignored = new Set(check.stdout.split('\0'))
  // The top folder is never ignored: a new .gitignore there that hides itself hides the whole worktree.
  return hidden.filter((_, i) => folders[i] === '.' || !ignored.has(folders[i]))
}

/** Nested repositories are looked into this deep at most; deeper ones count as work unseen. */
const NESTED_DEPTH = 4

/** What judging a nested repository takes from the worktree's gate: what outlives the removal. */
type Outliving = Pick<GateInput, 'localRefsSurvive' | 'onRemote' | 'baseSha'>

/**
 * Repositories and worktrees inside the folder (git lists them as `dir/` and never looks inside; a bare
 * one shows as its files), ignored folders included: removing the folder would take their files, and a
 * clone's commits, with it. One is harmless only when it is provably clean, unlocked, holds no commit that
 * lives nowhere else, and holds no such repository itself.
 */
async function nestedWork(folder: string, others: string, outliving: Outliving, depth = 0): Promise<NestedWork[]> {
  const listed = others.split('\0').filter(Boolean)
  const repos = listed.filter(p => p.endsWith('/'))
  // A bare repository (HEAD, objects and refs) is all history: it goes with the folder.
  const bare = [...new Set(listed.filter(p => p === 'HEAD' || p.endsWith('/HEAD')).map(p => path.posix.dirname(p)))].filter(dir =>
    ['objects', 'refs'].every(part => fs.existsSync(path.join(folder, dir, part)))
  )
  const found: NestedWork[] = []
  for (const dir of bare) {
    const refs = await new Git(folder, [`--git-dir=${path.join(folder, dir)}`]).run(['for-each-ref', '--count=1'], { interruptible: true })
    if (refs.exitCode !== 0 || refs.stdout.trim()) found.push({ path: dir, what: 'bare repository', state: refs.exitCode === 0 ? 'commits' : 'unreadable' })
  }
  for (const dir of repos) {
    const where = dir.replace(/\/$/, '')
    const work: Nested | undefined =
      depth >= NESTED_DEPTH ? { what: 'repository', state: 'too-deep' } : await nestedProblem(path.join(folder, dir), folder, outliving, depth)
    if (work) found.push({ path: where, ...work })
  }
  return found
}

/** Where a repository inside the folder keeps its git dir and objects, read from its .git; undefined when unreadable. */
function layoutOf(dir: string): { gitDir: string; objects: string; kind: 'file' | 'directory' } | undefined {
  const dotGit = path.join(dir, '.git')
  const kind = kindOf(dotGit)
  let gitDir: string | undefined
  if (kind === 'directory') gitDir = dotGit
  else if (kind === 'file') {
    const pointer = /^gitdir: (.*)$/m.exec(readSmall(dotGit) ?? '')?.[1]?.trim()
    gitDir = pointer ? path.resolve(dir, pointer) : undefined
  }
  if (!gitDir || (kind !== 'file' && kind !== 'directory')) return undefined
  // A linked worktree's git dir names its repository's common dir, which holds the objects.
  const common = readSmall(path.join(gitDir, 'commondir'))?.trim()
  return { gitDir, objects: path.join(common ? path.resolve(gitDir, common) : gitDir, 'objects'), kind }
}

/** A nested repository's own files, through a sealed view: what is uncommitted there, as git status lines. */
async function nestedFiles(dir: string, layout: { gitDir: string; objects: string }, head: string | undefined): Promise<{ files: string[]; others: string }> {
  const index = path.join(layout.gitDir, 'index')
  const view = openView({ objects: layout.objects, head, index: fs.existsSync(index) ? index : undefined, workTree: dir })
  try {
    await dropIndexHints(view.git, dir, false)
    const [status, untracked, others] = await Promise.all([
      must(view.git, ['status', '--porcelain', '-z', '--untracked-files=no', '--ignore-submodules=dirty']),
      must(view.git, ['ls-files', '-z', '--others', '--exclude-per-directory=.gitignore']),
      must(view.git, ['ls-files', '-z', '--others'])
    ])
    const files = [...parseStatus(status).map(e => e.path), ...untracked.split('\0').filter(p => p && !p.endsWith('/'))]
    return { files, others }
  } finally {
    view.dispose()
  }
}

/**
 * What a repository inside the folder holds. Its remote-tracking refs and remotes are its own, which the agent
 * writes: only the base (which the repository keeps) and the remote of enter, by its word, save a commit there,
 * the remote asked only when the repository is clean and has a commit the base does not save (a clone of the
 * origin, untouched, is saved so).
 */
async function nestedProblem(dir: string, outer: string, outliving: Outliving, depth: number): Promise<Nested | undefined> {
  const layout = layoutOf(dir)
  if (!layout) return { what: 'repository', state: 'unreadable' }
  // A .git file names a git dir elsewhere: a worktree of another repository, whose commits stay there,
  // unless that git dir lies inside the folder too (a --separate-git-dir clone).
  let kind: 'worktree' | 'repository' = 'repository'
  if (layout.kind === 'file') {
    if (fs.existsSync(path.join(layout.gitDir, 'locked'))) return { what: 'worktree', state: 'locked' }
    if (!isInside(layout.gitDir, outer)) kind = 'worktree'
  }
  const git = new Git(dir, [`--git-dir=${layout.gitDir}`])
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { interruptible: true })
  // A worktree's commits stay in its repository, but for its HEAD: that, unless a branch or tag that outlives it has it.
  const unsavedBeyond = (remote: string[]) =>
    git.run(
      kind === 'worktree'
        ? ['rev-list', '-1', '--ignore-missing', 'HEAD', '--stdin', '--not', ...(outliving.localRefsSurvive ? ['--branches', '--tags'] : [])]
        : ['rev-list', '-1', '--ignore-missing', '--all', '--reflog', '--stdin'],
      { input: [...(outliving.baseSha ? [outliving.baseSha] : []), ...remote].map(tip => `^${tip}\n`).join(''), interruptible: true }
    )
  try {
    const [files, unsaved] = await Promise.all([nestedFiles(dir, layout, head.exitCode === 0 ? head.stdout.trim() : undefined), unsavedBeyond([])])
    if (unsaved.exitCode !== 0) return { what: kind, state: 'unreadable' }
    if (files.files.length) return { what: kind, state: 'uncommitted', files: files.files.length }
    const remote = unsaved.stdout.trim() ? await outliving.onRemote() : undefined
    const tips = remote?.advertised ?? remote?.tips ?? []
    const commits = tips.length ? await unsavedBeyond(tips) : unsaved
    if (commits.exitCode !== 0) return { what: kind, state: 'unreadable' }
    if (commits.stdout.trim()) return { what: kind, state: 'commits' }
    const deeper = await nestedWork(dir, files.others, outliving, depth + 1)
    if (deeper.length) return { what: kind, state: 'holding', inside: deeper }
    return undefined
  } catch {
    return { what: kind, state: 'unreadable' }
  }
}

/**
 * The worktree's submodules and nested repositories recorded as gitlinks (with a checkout), at any depth, each
 * judged like the worktree itself: files with work make it show as modified; commits its HEAD, reflog, branches
 * or stash hold are unsaved (`path: sha subject`) unless they are what the base pins there or the remote that
 * submodule had at enter says it has them (`ask`; its own remote-tracking refs and remotes are the agent's to
 * write); repositories in its folders are judged as those in the worktree's. Its git dir, tags included, lies
 * in the worktree's git dir or inside the folder: it goes with the worktree. `pinning` is the commit whose tree pins them: the base, then what the base pins one level up.
 */
async function submoduleWork(
  folder: string,
  submodules: string[],
  pinning: { git: Git; commit?: string },
  judging: Outliving & Pick<GateInput, 'onSubmoduleRemote'>,
  depth: number,
  prefix = ''
): Promise<{ dirty: string[]; commits: UnsavedCommit[]; nested: NestedWork[]; unasked: Record<string, string> }> {
  const result = { dirty: [] as string[], commits: [] as UnsavedCommit[], nested: [] as NestedWork[], unasked: {} as Record<string, string> }
  const pins = await pinsOf(pinning.git, pinning.commit, submodules)
  for (const submodule of submodules) {
    const dir = path.join(folder, submodule)
    const shown = `${prefix}${submodule}`
    const layout = kindOf(path.join(dir, '.git')) === 'missing' ? undefined : layoutOf(dir)
    if (!layout) {
      if (kindOf(path.join(dir, '.git')) !== 'missing') result.nested.push({ path: shown, what: 'submodule', state: 'unreadable' })
      continue
    }
    if (depth >= NESTED_DEPTH) {
      result.nested.push({ path: shown, what: 'submodule', state: 'too-deep' })
      continue
    }
    const git = new Git(dir, [`--git-dir=${layout.gitDir}`])
    const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { interruptible: true })
    if (head.exitCode !== 0) {
      result.nested.push({ path: shown, what: 'submodule', state: 'unreadable' })
      continue
    }
    const pin = pins.get(submodule)
    const index = path.join(layout.gitDir, 'index')
    const view = openView({ objects: layout.objects, head: head.stdout.trim(), index: fs.existsSync(index) ? index : undefined, workTree: dir })
    // A pin its objects lack keeps nothing (--ignore-missing): then every commit there counts; so do tips of the remote it lacks.
    const unsavedBeyond = (remote: string[]): Promise<string> =>
      must(
        git,
        [
          'log',
          '--no-color',
          '--format=%h %s',
          '--ignore-missing',
          'HEAD',
          '--branches',
          '--reflog',
          '--glob=refs/stash',
          '--stdin',
          '--not',
          ...(pin ? [pin] : []),
          '--'
        ],
        remote.map(tip => `^${tip}\n`).join('')
      )
    try {
      const staged = await dropIndexHints(view.git, dir, false)
      const [status, untracked, others, unsaved] = await Promise.all([
        must(view.git, ['status', '--porcelain', '-z', '--untracked-files=no', '--ignore-submodules=dirty']),
        must(view.git, ['ls-files', '-z', '--others', '--exclude-per-directory=.gitignore']),
        must(view.git, ['ls-files', '-z', '--others']),
        unsavedBeyond([])
      ])
      let log = unsaved
      if (log.trim()) {
        const remote = (await judging.onSubmoduleRemote?.(shown)) ?? { tips: [], unasked: `no remote of enter is known for ${quoted(shown)}` }
        if (remote.tips.length) log = await unsavedBeyond(remote.tips)
        if (log.trim() && remote.unasked) result.unasked[shown] = remote.unasked
      }
      const deeper = await submoduleWork(dir, staged.submodules, { git: view.git, commit: pin }, judging, depth + 1, `${shown}/`)
      // Repositories in its folders, ignored ones too: they go with the worktree like those of the worktree's own.
      const inside = await nestedWork(dir, others, judging, depth + 1)
      if (parseStatus(status).length || untracked.split('\0').some(Boolean) || deeper.dirty.length) result.dirty.push(submodule)
      result.commits.push(
        ...log
          .split('\n')
          .filter(Boolean)
          .map(line => ({ ...commitOf(line), submodule: shown })),
        ...deeper.commits
      )
      result.nested.push(...inside.map(found => ({ ...found, path: `${shown}/${found.path}` })), ...deeper.nested)
      Object.assign(result.unasked, deeper.unasked)
    } finally {
      view.dispose()
    }
  }
  return result
}

/**
 * What `commit` pins at each gitlink path, read through `git` (a view of the objects that hold it); none without
 * a commit (a worktree entered by path, a hint) or where its objects lack it.
 */
async function pinsOf(git: Git, commit: string | undefined, paths: string[]): Promise<Map<string, string>> {
  const pins = new Map<string, string>()
  if (!commit || !paths.length) return pins
  const listed = await git.run(['ls-tree', '-z', commit, '--', ...paths.map(p => `:(literal)${p}`)], { interruptible: true })
  for (const entry of listed.exitCode === 0 ? listed.stdout.split('\0') : []) {
    // "160000 commit <sha>\t<path>"
    const match = /^160000 commit ([0-9a-f]+)\t(.*)$/s.exec(entry)
    if (match) pins.set(match[2], match[1])
  }
  return pins
}

async function unsavedCommits(
  git: Git,
  input: GateInput,
  head: string | undefined
): Promise<Pick<Findings, 'unsavedCommits' | 'tips' | 'branchTips' | 'sources' | 'remoteUnasked'>> {
  const branchTips: Record<string, string> = {}
  for (const branch of input.branchesToDelete) {
    const sha = await git.resolveCommit(`refs/heads/${branch}`)
    if (sha) branchTips[branch] = sha
  }
  // Where the machine goes with the job, the shared stash and notes go too: they are the agent's then.
  const shared = input.machineStays
    ? []
    : [
        ...(await must(git, ['for-each-ref', '--format=%(objectname)', 'refs/stash', 'refs/notes/'])).split('\n').filter(Boolean),
        ...refReflogCommits(input.commonDir, 'refs/stash')
      ]
  // A clone's refs are all its own, and go with it: branches, tags, the stash, notes.
  const ownRefs = input.clone
    ? (await must(git, ['for-each-ref', '--format=%(objectname) %(refname)']))
        .split('\n')
        .filter(line => line && !line.includes(' refs/remotes/'))
        .map(line => line.slice(0, line.indexOf(' ')))
    : []
  const tips = [
    ...new Set([
      ...(head ? [head] : []),
      ...ownRefs,
      ...gitDirCommits(input.gitDir, input.since),
      ...Object.values(branchTips),
      ...input.branchesToDelete.flatMap(b => refReflogCommits(input.commonDir, `refs/heads/${b}`, input.since)),
      ...shared
    ])
  ]
  // Checked again just before a removal: when nothing that names a commit changed, neither did the answer.
  const sources = [...tips].sort().join(' ')
  const previous = input.previous
  if (previous?.sources === sources)
    return { branchTips, sources, unsavedCommits: previous.unsavedCommits, tips: previous.tips, remoteUnasked: previous.remoteUnasked }
  // What outlives the removal, and so keeps a commit: the base, what the remote has, and where the machine
  // stays and no actions/checkout prepares the repository, the other local branches and tags.
  const saved = [
    ...(input.baseSha ? [input.baseSha] : []),
    ...(input.clone?.borrowed ? [input.clone.borrowed] : []),
    ...(input.localRefsSurvive ? [...input.branchesToDelete.map(b => `--exclude=${b}`), '--branches', '--tags'] : [])
  ]
  const unsavedBeyond = async (remote: string[]): Promise<string[]> => {
    const revisions = [...tips, ...remote.map(tip => `^${tip}`)]
    const log = await must(git, ['log', '--no-color', '--format=%H %s', '--ignore-missing', '--stdin', '--not', ...saved, '--'], `${revisions.join('\n')}\n`)
    return log.split('\n').filter(Boolean)
  }
  let lines = await unsavedBeyond([])
  // The remote is asked only about commits nothing here saves.
  const remote = lines.length ? await input.onRemote() : undefined
  if (remote?.tips.length) lines = await unsavedBeyond(remote.tips)
  const unsaved = new Set(lines.map(line => line.slice(0, line.indexOf(' '))))
  return {
    branchTips,
    sources,
    unsavedCommits: lines.map(line => commitOf(line, 12)),
    tips: tips.filter(tip => unsaved.has(tip)),
    ...(lines.length && remote?.unasked ? { remoteUnasked: remote.unasked } : {})
  }
}

/** A line `<id> <subject>` of git log, its id abbreviated to `length` when given. */
function commitOf(line: string, length?: number): UnsavedCommit {
  const space = line.indexOf(' ')
  return { commit: line.slice(0, length ?? space), subject: line.slice(space + 1) }
}

export function hasUnsavedWork(findings: Findings): boolean {
  return findings.uncommitted.length > 0 || findings.unsavedCommits.length > 0 || findings.nested.length > 0
}

/**
 * The proof a parked worktree needs to be handed out or expired: since it was parked nothing at all appeared
 * (the gate looked with ignored files counted) and HEAD is where parking left it.
 */
export function provenUntouched(findings: Findings, parkedHead: string | undefined): boolean {
  return findings.error === undefined && !hasUnsavedWork(findings) && findings.head !== undefined && findings.head === parkedHead
}

/** What became of a branch that was to go with its worktree. */
export type BranchDeletion =
  { branch: string; deleted: true } | { branch: string; deleted: false; why: 'unseen' | 'moved' | 'checked-out' | 'unsaved' | 'missing'; detail?: string }

/**
 * Deletes a branch only on proof that nothing is lost: `seen`, the tip at which the gate counted its commits
 * (a commit that lands afterwards keeps it); or `savedBeyond`, a base beyond which the branch has no commit
 * (a branch whose worktree never got a gate: an add cut short). Never a
 * branch that a worktree, the main one included, has checked out.
 */
export async function deleteBranch(
  repo: { git: Git; commonDir: string },
  branch: string,
  proof: { seen: string | undefined } | { savedBeyond: string }
): Promise<BranchDeletion> {
  const ref = `refs/heads/${branch}`
  const heads = [repo.commonDir, ...adminDirs(repo.commonDir)].map(dir => readSmall(path.join(dir, 'HEAD'))?.trim())
  if (heads.includes(`ref: ${ref}`)) return { branch, deleted: false, why: 'checked-out' }
  let tip: string | undefined
  if ('seen' in proof) {
    tip = proof.seen
    if (!tip) return { branch, deleted: false, why: 'unseen' }
  } else {
    tip = await repo.git.resolveCommit(ref)
    if (!tip) return { branch, deleted: false, why: 'missing' }
    // Only its base saves a commit of a branch that no gate saw: a remote-tracking ref proves nothing.
    const unsaved = await repo.git.run(['log', '--format=%h', '-1', ref, '--not', proof.savedBeyond, '--'])
    if (unsaved.exitCode !== 0 || unsaved.stdout.trim() !== '') return { branch, deleted: false, why: 'unsaved' }
  }
  const deletion = await deleteRef(repo.git, ref, { log: repo.commonDir, from: tip })
  return deletion.exitCode === 0 ? { branch, deleted: true } : { branch, deleted: false, why: 'moved', detail: deletion.stderr.trim() }
}

export type Verdict = 'keep-asked' | 'keep-unsaved' | 'keep-unknown' | 'remove-clean' | 'remove-discard'

/** Remove only what is proven clean, or what the workflow said to discard; unknown state is always kept. */
export function decide(onExit: OnExit, discardChanges: boolean, findings: Findings): Verdict {
  if (onExit === 'keep') return 'keep-asked'
  if (findings.error !== undefined) return 'keep-unknown'
  if (!hasUnsavedWork(findings)) return 'remove-clean'
  return discardChanges ? 'remove-discard' : 'keep-unsaved'
}

/** Whether `later` found nothing that `earlier` did not: a removal goes ahead only on what was decided. */
export function nothingNew(earlier: Findings, later: Findings): boolean {
  if (later.error !== undefined || later.head !== earlier.head) return false
  const items = (f: Findings): string[] => [...f.uncommitted, ...f.unsavedCommits, ...f.nested].map(item => JSON.stringify(item))
  const known = new Set(items(earlier))
  return items(later).every(item => known.has(item))
}
