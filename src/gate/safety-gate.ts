// The one place that decides whether removing a worktree could lose work. It reads the worktree through
// a copy of its index with every bit that hides an edit cleared, so that what git is told to skip
// (skip-worktree, assume-unchanged, an fsmonitor) is seen, and counts every commit the worktree's git
// dir remembers, not only the one its branch points to.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import { parseStatusV2, type StatusEntry } from '../git/porcelain.js'
import { openView, type View } from '../git/sealed-git.js'
import type { FilterDriver } from '../record/state-helper.js'
import { identityOf, identitySize, isSpecial, kindOf, reachedWithoutLinks, sameBytes, type FileKind } from '../os/untrusted-files.js'
import { gitDirCommits, refReflogCommits } from '../git/worktree-refs.js'
import type { Findings, UnsavedCommit } from './findings.js'
import { commitOf, dropIndexHints, must, resolveCommits, Unknown, type ListedIndex } from './git-answers.js'
import type { IndexEntry } from '../git/index-file.js'
import type { ParkedFiles } from '../git/parked-files.js'
import { nestedWork, submoduleWork, type Outliving } from './nested-repositories.js'

/** What the gate reads of a worktree; what outlives the removal (Outliving) is what nested repositories are judged by too. */
export interface GateInput extends Outliving {
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
  /** Branches that go with the worktree: their commits and reflogs count. */
  branchesToDelete: string[]
  /** The machine outlives the job (self-hosted): the shared stash and notes outlive the removal. */
  machineStays: boolean
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
  /** One object for both passes of an exit (the check again gets it too): the index of the first, its hints dropped. */
  indexMemo?: IndexMemo
  /** A take's: what the park proved of each file (parked-files.ts), whose bytes git then reads only where changed. */
  parkedFiles?: ParkedFiles
  /**
   * Given, it gets the index entries the files were compared with (what a park keeps), unless rules of the agent's
   * governed the comparison: an untracked .gitattributes (one that is ignored) over a tracked file.
   */
  compared?: { entries?: IndexEntry[] }
  /**
   * A clone of the agent's own (gitDir and commonDir are its .git): every ref of it goes with it and counts, but
   * its remote-tracking branches, which a push moves; `borrowed` reaches what it borrowed from the original.
   */
  clone?: { borrowed?: string }
}

/**
 * The index as the first pass copied it (its hash) and as it was once its hints were dropped, with its entries and
 * submodules. The same bytes give the same answer: where the check again copies an index of that hash, git is not asked
 * again. Not for a sparse worktree, whose answer depends on which files are there too, nor for a large index.
 */
export interface IndexMemo {
  hash?: string
  dropped?: Buffer
  listed?: ListedIndex
}

const MEMO_MAX_BYTES = 64 * 1024 ** 2

/** Files compared byte for byte with what checkout would write, at most (CRLF files under a text attribute). */
const MAX_RECHECKED = 2000

/** Git that reads a worktree's refs through its git dir: for HEAD and commits, never for its files. */
function refsGit(input: GateInput): Git {
  return new Git(input.folder ?? input.gitDir, [`--git-dir=${input.gitDir}`])
}

/** The settings that decide what counts as a change, as they were at enter, for a sealed view. */
export function viewSettings(input: Pick<GateInput, 'fileMode' | 'pinned'>): string[] {
  return [`core.fileMode=${input.fileMode}`, ...(input.pinned ?? [])]
}

export async function inspect(input: GateInput): Promise<Findings> {
  const findings: Findings = { uncommitted: [], unsavedCommits: [], nested: [], tips: [] }
  // HEAD and the tips of the branches that go with the worktree, in one call; the index is read meanwhile (HEAD
  // takes no part in that), and the files once HEAD is known.
  const reading = resolveCommits(refsGit(input), ['HEAD', ...input.branchesToDelete.map(branch => `refs/heads/${branch}`)])
  const filesRead = uncommitted(
    input,
    reading.then(([head]) => head)
  )
  // Awaited on every path below; a failure of HEAD's reading is said there, not twice.
  filesRead.catch(() => undefined)
  const [head, ...tips] = await reading
  // A branch without a commit yet (git switch --orphan) is a state like any other: its files are judged.
  if (head === undefined && !(await unborn(refsGit(input)))) {
    await Promise.allSettled([filesRead])
    return { ...findings, error: 'the worktree has no HEAD commit that can be read' }
  }
  findings.head = head
  const branchTips: Record<string, string> = {}
  input.branchesToDelete.forEach((branch, i) => {
    if (tips[i]) branchTips[branch] = tips[i]
  })
  const results = await Promise.allSettled([filesRead, unsavedCommits(refsGit(input), input, findings.head, branchTips)])
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

type Files = Pick<Findings, 'uncommitted' | 'nested' | 'special' | 'loose' | 'submoduleUnasked'> & { submoduleCommits: UnsavedCommit[] }

async function uncommitted(input: GateInput, headOf: Promise<string | undefined>): Promise<Files> {
  const none: Files = { uncommitted: [], nested: [], submoduleCommits: [] }
  if (!input.folder) return none
  const folder = input.folder
  const index = path.join(input.gitDir, 'index')
  if (!fs.existsSync(index)) {
    if (!input.expectIndex) return none
    throw new Unknown('the worktree has no index (deleted?), so its files cannot be compared with its HEAD')
  }
  // git reads the index in the repository's object format: known from the base, else from HEAD, read first then.
  const view = openView({
    objects: path.join(input.commonDir, 'objects'),
    commit: input.baseSha ?? (await headOf),
    index,
    workTree: folder,
    settings: viewSettings(input),
    filters: input.filters,
    excludes: input.excludes
  })
  try {
    const staged = await withoutHints(view, folder, input)
    view.setHead(await headOf)
    // A removal cut short may have deleted .gitignore files: put them back (the folder goes anyway), so
    // that what is ignored stays ignored.
    if (input.tolerateDeletions) {
      const ignores = (await must(view.git, ['ls-files', '-z', '--', ':(glob)**/.gitignore'])).split('\0').filter(p => p && reachedWithoutLinks(folder, p))
      if (ignores.length) await view.git.run(['checkout-index', '-z', '--stdin'], { input: ignores.join('\0') })
    }
    // Untracked work is what the worktree's .gitignore files do not ignore: a pattern the agent added to
    // .git/info/exclude or a global excludes file hides nothing. Status lists it beside the tracked changes, each
    // file (-uall), as `ls-files --others --exclude-standard` would. Every untracked path, ignored or not, shows
    // where nested repositories are.
    const [status, others] = await Promise.all([
      must(
        view.git,
        ['status', '--porcelain=v2', '-z', `--untracked-files=${input.countIgnored ? 'no' : 'all'}`, '--ignore-submodules=dirty'],
        undefined,
        !input.countIgnored
      ),
      must(view.git, ['ls-files', '-z', '--others'])
    ])
    if (input.compared) input.compared.entries = untrackedAttributes(others, staged.entries) ? undefined : staged.entries
    const listed = parseStatusV2(status).entries
    const untracked = listed.flatMap(e => (e.code === '??' ? [e.path] : [])).join('\0')
    const loose = untracked.split('\0').filter(p => p.endsWith('/') || input.ownLinks.includes(p))
    const { broughtIn, broughtChanged } = brought(folder, untracked, input.included)
    const newFiles = (input.countIgnored ? others : untracked).split('\0').filter(p => p && !input.ownLinks.includes(p) && !broughtIn.has(p))
    newFiles.push(...restoredStill(input.restored, others, newFiles))
    let entries = [...listed.filter(e => e.code !== '??'), ...newFiles.map(p => ({ code: '??', path: p }))]
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

/** The view's index without its hints (dropIndexHints), or as the first pass left it when it copied the same bytes. */
async function withoutHints(view: View, folder: string, input: GateInput): Promise<ListedIndex> {
  const memo = input.sparse ? undefined : input.indexMemo
  const small = memo && view.index && fs.statSync(view.index).size <= MEMO_MAX_BYTES
  const hash = small ? createHash('sha256').update(fs.readFileSync(view.index!)).digest('hex') : undefined
  if (hash && memo?.hash === hash && memo.dropped && memo.listed) {
    fs.writeFileSync(view.index!, memo.dropped)
    return memo.listed
  }
  const staged = await dropIndexHints(view, folder, input.sparse, input.parkedFiles)
  if (memo && hash) Object.assign(memo, { hash, dropped: fs.readFileSync(view.index!), listed: staged })
  return staged
}

/**
 * Whether an untracked .gitattributes (an ignored one: the pool's cleaning deletes it) lies in a folder that holds a
 * tracked file: its rules (eol, ident) then decided that the file's bytes are its object's, which without them they
 * may not be.
 */
function untrackedAttributes(others: string, entries: readonly IndexEntry[]): boolean {
  const folders = new Set(
    others
      .split('\0')
      .filter(p => p === '.gitattributes' || p.endsWith('/.gitattributes'))
      .map(p => p.slice(0, -'.gitattributes'.length))
  )
  if (!folders.size || folders.has('')) return folders.size > 0
  for (const { name } of entries) {
    const file = name.toString()
    for (let slash = file.indexOf('/'); slash !== -1; slash = file.indexOf('/', slash + 1)) if (folders.has(file.slice(0, slash + 1))) return true
  }
  return false
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

async function unsavedCommits(
  git: Git,
  input: GateInput,
  head: string | undefined,
  branchTips: Record<string, string>
): Promise<Pick<Findings, 'unsavedCommits' | 'tips' | 'branchTips' | 'sources' | 'remoteUnasked'>> {
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
  const { lines, unasked } = await beyondRemote(input, await unsavedBeyond([]), unsavedBeyond)
  const unsaved = idsOf(lines)
  return {
    branchTips,
    sources,
    unsavedCommits: lines.map(line => commitOf(line, 12)),
    tips: tips.filter(tip => unsaved.has(tip)),
    ...(unasked ? { remoteUnasked: unasked } : {})
  }
}

/**
 * What the remote of enter leaves unsaved of `lines` (`<id> <subject>`), asked only when there are any; its pull
 * requests' heads only about those its branches and tags leave (a branch deleted after a squash merge). A head
 * counts when it is one of those commits, which this repository has: asking git about each head instead costs a
 * search of the packs per head it lacks (0.4 s for 10,000 here), and most heads are of other people's work.
 */
async function beyondRemote(
  input: Pick<GateInput, 'onRemote'>,
  lines: string[],
  unsavedBeyond: (remote: string[]) => Promise<string[]>
): Promise<{ lines: string[]; unasked?: string }> {
  if (!lines.length) return { lines }
  const remote = await input.onRemote()
  if (remote.tips.length) lines = await unsavedBeyond(remote.tips)
  const pulls = lines.length && remote.pullHeads ? await remote.pullHeads() : undefined
  const found = idsOf(lines)
  const heads = pulls?.heads.filter(head => found.has(head)) ?? []
  if (heads.length) lines = await unsavedBeyond([...remote.tips, ...heads])
  return { lines, unasked: lines.length ? (remote.unasked ?? pulls?.unasked) : undefined }
}

/** The commits of `git log --format='%H %s'` lines. */
function idsOf(lines: string[]): Set<string> {
  return new Set(lines.map(line => line.slice(0, line.indexOf(' '))))
}
