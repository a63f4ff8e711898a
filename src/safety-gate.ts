// The one place that decides whether removing a worktree could lose work. It reads the worktree through
// a copy of its index with every bit that hides an edit cleared, so that what git is told to skip
// (skip-worktree, assume-unchanged, an fsmonitor) is seen, and counts every commit the worktree's git
// dir remembers, not only the one its branch points to.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Git } from './git-command-manager.js'
import type { OnExit } from './input-helper.js'
import { isInside } from './paths.js'
import { parseStatus, parseStatusV2, type StatusEntry } from './porcelain.js'
import { gitDirCommits, refReflogCommits } from './worktree-refs.js'

export interface Findings {
  /** Uncommitted changes as `XY path`: modified, staged, deleted, and untracked files that are not ignored. */
  uncommitted: string[]
  /** Commits (`sha subject`) the worktree remembers that neither the base nor a ref that outlives the removal has. */
  unsavedCommits: string[]
  /** Repositories or worktrees inside the worktree's folder that hold work of their own (`path: why`). */
  nested: string[]
  /** The commits at the tips of the unsaved ones: what a rescue must keep reachable. */
  tips: string[]
  /** The worktree's HEAD commit, when it could be read. */
  head?: string
  /** Where each branch that goes with the worktree pointed when the gate looked. */
  branchTips?: Record<string, string>
  /** Every commit that counted as a tip, as the gate saw them: unchanged, the answer is the same. */
  sources?: string
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
  /** A created worktree's base: its commits are not the agent's. */
  baseSha?: string
  /** Branches that go with the worktree: their commits and reflogs count. */
  branchesToDelete: string[]
  /** Local branches and tags outlive the removal on a machine that stays; on a hosted runner nothing local does. */
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
}

/** Files compared byte for byte with what checkout would write, at most (CRLF files under a text attribute). */
const MAX_RECHECKED = 2000

/**
 * Git pinned to a worktree's git dir (and folder, while there is one), with the settings that decide
 * what counts as a change (core.fileMode, core.ignoreCase, core.autocrlf, core.symlinks) as they were at enter.
 */
export function pinnedGit(gitDir: string, folder: string | undefined, fileMode: boolean, pinned: string[] = []): Git {
  return new Git(folder ?? gitDir, [
    `--git-dir=${gitDir}`,
    ...(folder ? [`--work-tree=${folder}`] : []),
    ...[`core.fileMode=${fileMode}`, ...pinned].flatMap(setting => ['-c', setting])
  ])
}

export async function inspect(input: GateInput): Promise<Findings> {
  const git = pinnedGit(input.gitDir, input.folder, input.fileMode, input.pinned)
  const findings: Findings = { uncommitted: [], unsavedCommits: [], nested: [], tips: [] }
  const head = await git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { interruptible: true })
  if (head.exitCode !== 0) return { ...findings, error: 'the worktree has no HEAD commit that can be read' }
  findings.head = head.stdout.trim()
  const results = await Promise.allSettled([uncommitted(git, input), unsavedCommits(git, input, findings.head)])
  const [files, commits] = results
  if (files.status === 'fulfilled') Object.assign(findings, files.value)
  if (commits.status === 'fulfilled') Object.assign(findings, commits.value)
  const failed = results.find(r => r.status === 'rejected')
  if (failed) findings.error = (failed.reason as Error).message
  return findings
}

class Unknown extends Error {}

async function must(git: Git, args: string[], env?: Record<string, string>, input?: string): Promise<string> {
  const result = await git.run(args, { env, input, interruptible: true })
  if (result.exitCode !== 0) throw new Unknown(result.stderr.trim() || `git ${args[0]} exited with code ${result.exitCode}`)
  return result.stdout
}

async function uncommitted(git: Git, input: GateInput): Promise<Pick<Findings, 'uncommitted' | 'nested'>> {
  if (!input.folder) return { uncommitted: [], nested: [] }
  const index = path.join(input.gitDir, 'index')
  if (!fs.existsSync(index)) {
    if (!input.expectIndex) return { uncommitted: [], nested: [] }
    throw new Unknown('the worktree has no index (deleted?), so its files cannot be compared with its HEAD')
  }
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-'))
  try {
    const env = await indexCopy(git, input.gitDir, input.folder, input.sparse, temp)
    // A removal cut short may have deleted .gitignore files: put them back (the folder goes anyway), so
    // that what is ignored stays ignored.
    if (input.tolerateDeletions) {
      const ignores = await must(git, ['ls-files', '-z', '--', ':(glob)**/.gitignore'], env)
      if (ignores) await git.run(['checkout-index', '-z', '--stdin'], { env, input: ignores })
    }
    // Untracked work is what the worktree's .gitignore files do not ignore: a pattern the agent added to
    // .git/info/exclude or a global excludes file hides nothing. Every untracked path, ignored or not,
    // shows where nested repositories are.
    const [status, untracked, others] = await Promise.all([
      must(git, ['status', '--porcelain=v2', '-z', '--untracked-files=no', '--ignore-submodules=none'], env),
      input.countIgnored ? Promise.resolve('') : must(git, ['ls-files', '-z', '--others', '--exclude-per-directory=.gitignore'], env),
      must(git, ['ls-files', '-z', '--others'], env)
    ])
    const newFiles = (input.countIgnored ? others : untracked).split('\0').filter(p => p && !input.ownLinks.includes(p))
    let entries = [...parseStatusV2(status).entries, ...newFiles.map(p => ({ code: '??', path: p }))]
    if (input.tolerateDeletions) entries = entries.filter(e => e.code !== ' D')
    const [unchanged, nested, hiding] = await Promise.all([
      sameAsCheckout(git, env, input.folder, entries, temp),
      nestedWork(input.folder, others, input.localRefsSurvive),
      selfHidingIgnores(git, env, others, new Set(newFiles))
    ])
    const files = entries.filter(e => !unchanged.has(e.path) && !(e.code === '??' && e.path.endsWith('/')))
    files.push(...hiding.map(p => ({ code: '??', path: p })))
    return { uncommitted: files.map(e => `${e.code} ${e.path}`), nested }
  } finally {
    fs.rmSync(temp, { recursive: true, force: true })
  }
}

/**
 * A copy of the worktree's index in `temp`, with the bits that make git skip a file cleared: the
 * environment that points git at it. Nothing of the worktree's own index changes. The copy keeps the
 * index's time: git compares it with the files' times to spot edits made in the second it was written.
 */
export async function indexCopy(git: Git, gitDir: string, folder: string, sparse: boolean, temp: string): Promise<Record<string, string>> {
  const copy = path.join(temp, 'index')
  const index = path.join(gitDir, 'index')
  fs.copyFileSync(index, copy)
  const { atime, mtime } = fs.statSync(index)
  fs.utimesSync(copy, atime, mtime)
  const env = { GIT_INDEX_FILE: copy }
  await clearHidingBits(git, env, folder, sparse)
  return env
}

/**
 * Clears, in the copy, the index bits that make git skip a file: assume-unchanged always, skip-worktree
 * except for files a sparse worktree leaves out on purpose (absent from its folder).
 */
async function clearHidingBits(git: Git, env: Record<string, string>, folder: string, sparse: boolean): Promise<void> {
  const assumed: string[] = []
  const skipped: string[] = []
  for (const field of (await must(git, ['ls-files', '-v', '-z'], env)).split('\0')) {
    if (field.length < 3) continue
    const [tag, file] = [field[0], field.slice(2)]
    if (tag !== tag.toUpperCase()) assumed.push(file)
    if (tag.toUpperCase() === 'S' && !(sparse && !fs.lstatSync(path.join(folder, file), { throwIfNoEntry: false }))) skipped.push(file)
  }
  // One bit per call: update-index applies only the first mark to each path it reads.
  if (assumed.length) await must(git, ['update-index', '--no-assume-unchanged', '-z', '--stdin'], env, assumed.join('\0'))
  if (skipped.length) await must(git, ['update-index', '--no-skip-worktree', '-z', '--stdin'], env, skipped.join('\0'))
}

/**
 * Files git calls modified whose bytes and mode are exactly what a checkout of HEAD writes: a file
 * committed with CRLF before a `text` attribute looks changed to git right after checkout, though
 * nobody touched it. Only files whose index matches HEAD, and a bounded number of them, are compared.
 */
async function sameAsCheckout(git: Git, env: Record<string, string>, folder: string, entries: StatusEntry[], temp: string): Promise<Set<string>> {
  // Regular files only: a link compared by content would be followed to whatever it points at.
  const candidates = entries
    .filter(
      e =>
        e.code === ' M' &&
        e.sub === 'N...' &&
        e.modes?.[0] === e.modes?.[2] &&
        (e.modes?.[2] === '100644' || e.modes?.[2] === '100755') &&
        !e.path.includes('\n')
    )
    .slice(0, MAX_RECHECKED)
  const same = new Set<string>()
  if (!candidates.length) return same
  const prefix = path.join(temp, 'checkout') + path.sep
  const result = await git.run(['checkout-index', '-z', '--stdin', `--prefix=${prefix}`], {
    env,
    input: candidates.map(e => e.path).join('\0'),
    interruptible: true
  })
  if (result.exitCode !== 0) return same
  for (const entry of candidates) {
    try {
      if (fs.readFileSync(path.join(prefix, entry.path)).equals(fs.readFileSync(path.join(folder, entry.path)))) same.add(entry.path)
    } catch {
      // not comparable: it stays modified
    }
  }
  return same
}

/**
 * Untracked .gitignore files, in folders that no other rule ignores, that ignore what is around them (and
 * themselves): a folder of new work behind one looks empty to git. Such a file is work, and so is the
 * folder it would hide.
 */
async function selfHidingIgnores(git: Git, env: Record<string, string>, others: string, listed: Set<string>): Promise<string[]> {
  const hidden = others.split('\0').filter(p => (p === '.gitignore' || p.endsWith('/.gitignore')) && !listed.has(p))
  if (!hidden.length) return []
  const folders = hidden.map(p => path.posix.dirname(p))
  const check = await git.run(['check-ignore', '-z', '--stdin'], { env, input: folders.join('\0'), interruptible: true })
  const ignored = new Set(check.stdout.split('\0'))
  // The top folder is never ignored: a new .gitignore there that hides itself hides the whole worktree.
  return hidden.filter((_, i) => folders[i] === '.' || !ignored.has(folders[i]))
}

/** Nested repositories are looked into this deep at most; deeper ones count as work unseen. */
const NESTED_DEPTH = 4

/**
 * Repositories and worktrees inside the folder (git lists them as `dir/` and never looks inside; a bare
 * one shows as its files), ignored folders included: removing the folder would take their files, and a
 * clone's commits, with it. One is harmless only when it is provably clean, unlocked, holds no commit that
 * lives nowhere else, and holds no such repository itself.
 */
async function nestedWork(folder: string, others: string, localRefsSurvive: boolean, depth = 0): Promise<string[]> {
  const listed = others.split('\0').filter(Boolean)
  const repos = listed.filter(p => p.endsWith('/'))
  // A bare repository (HEAD, objects and refs) is all history: it goes with the folder.
  const bare = [...new Set(listed.filter(p => p === 'HEAD' || p.endsWith('/HEAD')).map(p => path.posix.dirname(p)))].filter(dir =>
    ['objects', 'refs'].every(part => fs.existsSync(path.join(folder, dir, part)))
  )
  const found: string[] = []
  for (const dir of bare) {
    const refs = await new Git(folder, [`--git-dir=${path.join(folder, dir)}`]).run(['for-each-ref', '--count=1'], { interruptible: true })
    if (refs.exitCode !== 0 || refs.stdout.trim())
      found.push(`${dir}: a bare repository${refs.exitCode === 0 ? ' with commits' : ' whose state could not be read'}`)
  }
  for (const dir of repos) {
    const why =
      depth >= NESTED_DEPTH ? 'a repository nested too deep to look into' : await nestedProblem(path.join(folder, dir), folder, localRefsSurvive, depth)
    if (why) found.push(`${dir.replace(/\/$/, '')}: ${why}`)
  }
  return found
}

async function nestedProblem(dir: string, outer: string, localRefsSurvive: boolean, depth: number): Promise<string | undefined> {
  const dotGit = path.join(dir, '.git')
  const stat = fs.lstatSync(dotGit, { throwIfNoEntry: false })
  if (!stat) return 'a repository whose state could not be read'
  const git = new Git(dir)
  // A .git file names a git dir elsewhere: a worktree of another repository, whose commits stay there,
  // unless that git dir lies inside the folder too (a --separate-git-dir clone).
  let kind: 'worktree' | 'repository' = 'repository'
  if (stat.isFile()) {
    const pointer = /^gitdir: (.*)$/m.exec(fs.readFileSync(dotGit, 'utf8'))?.[1]?.trim()
    const gitDir = pointer ? path.resolve(dir, pointer) : undefined
    if (!gitDir) return 'a repository whose state could not be read'
    if (fs.existsSync(path.join(gitDir, 'locked'))) return 'a locked worktree'
    if (!isInside(gitDir, outer)) kind = 'worktree'
  }
  const [status, commits, inner] = await Promise.all([
    git.run(['status', '--porcelain', '-z', '--untracked-files=all', '--ignore-submodules=none'], { interruptible: true }),
    git.run(
      kind === 'worktree'
        ? ['rev-list', '-1', 'HEAD', '--not', '--remotes', ...(localRefsSurvive ? ['--branches', '--tags'] : [])]
        : ['rev-list', '-1', '--all', '--reflog', '--not', '--remotes'],
      { interruptible: true }
    ),
    git.run(['ls-files', '-z', '--others'], { interruptible: true })
  ])
  if (status.exitCode !== 0 || commits.exitCode !== 0 || inner.exitCode !== 0) return `a ${kind} whose state could not be read`
  const files = parseStatus(status.stdout).length
  if (files) return `a ${kind} with ${plural(files, 'uncommitted file')}`
  if (commits.stdout.trim()) return `a ${kind} with commits that no remote has`
  const deeper = await nestedWork(dir, inner.stdout, localRefsSurvive, depth + 1)
  if (deeper.length) return `a ${kind} holding ${deeper.join('; ')}`
  return undefined
}

async function unsavedCommits(git: Git, input: GateInput, head: string): Promise<Pick<Findings, 'unsavedCommits' | 'tips' | 'branchTips' | 'sources'>> {
  const branchTips: Record<string, string> = {}
  for (const branch of input.branchesToDelete) {
    const sha = await git.resolveCommit(`refs/heads/${branch}`)
    if (sha) branchTips[branch] = sha
  }
  // Where the machine goes with the job, the shared stash and notes go too: they are the agent's then.
  const shared = input.localRefsSurvive
    ? []
    : [
        ...(await must(git, ['for-each-ref', '--format=%(objectname)', 'refs/stash', 'refs/notes/'])).split('\n').filter(Boolean),
        ...refReflogCommits(input.commonDir, 'refs/stash')
      ]
  const tips = [
    ...new Set([
      head,
      ...gitDirCommits(input.gitDir, input.since),
      ...Object.values(branchTips),
      ...input.branchesToDelete.flatMap(b => refReflogCommits(input.commonDir, `refs/heads/${b}`, input.since)),
      ...shared
    ])
  ]
  // Checked again just before a removal: when nothing that names a commit changed, neither did the answer.
  const sources = [...tips].sort().join(' ')
  const previous = input.previous
  if (previous?.sources === sources) return { branchTips, sources, unsavedCommits: previous.unsavedCommits, tips: previous.tips }
  // What outlives the removal, and so keeps a commit: the base, remote-tracking refs, and where the
  // machine stays, the other local branches and tags.
  const saved = [
    ...(input.baseSha ? [input.baseSha] : []),
    '--remotes',
    ...(input.localRefsSurvive ? [...input.branchesToDelete.map(b => `--exclude=${b}`), '--branches', '--tags'] : [])
  ]
  const [log, submodules] = await Promise.all([
    must(git, ['log', '--no-color', '--format=%H %s', '--ignore-missing', '--stdin', '--not', ...saved, '--'], undefined, `${tips.join('\n')}\n`),
    // A submodule's refs live in the worktree's git dir and go with it; the commit the superproject
    // records ($sha1) can be fetched again, so it is not the agent's.
    input.folder && fs.existsSync(path.join(input.gitDir, 'modules'))
      ? must(git, [
          'submodule',
          'foreach',
          '--quiet',
          '--recursive',
          'git log --no-color --format="$displaypath: %h %s" HEAD --branches --reflog --glob=refs/stash --not --remotes --tags $sha1 --'
        ])
      : ''
  ])
  const lines = log.split('\n').filter(Boolean)
  const unsaved = new Set(lines.map(line => line.slice(0, line.indexOf(' '))))
  return {
    branchTips,
    sources,
    unsavedCommits: [...lines.map(line => `${line.slice(0, 12)}${line.slice(line.indexOf(' '))}`), ...submodules.split('\n').filter(Boolean)],
    tips: tips.filter(tip => unsaved.has(tip))
  }
}

export function hasUnsavedWork(findings: Findings): boolean {
  return findings.uncommitted.length > 0 || findings.unsavedCommits.length > 0 || findings.nested.length > 0
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
  const known = new Set([...earlier.uncommitted, ...earlier.unsavedCommits, ...earlier.nested])
  return [...later.uncommitted, ...later.unsavedCommits, ...later.nested].every(item => known.has(item))
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`
}

/** "2 uncommitted files and 1 unsaved commit", or "nothing unsaved". */
export function describeFindings(findings: Findings): string {
  const parts: string[] = []
  if (findings.uncommitted.length) parts.push(plural(findings.uncommitted.length, 'uncommitted file'))
  if (findings.unsavedCommits.length) parts.push(plural(findings.unsavedCommits.length, 'unsaved commit'))
  if (findings.nested.length)
    parts.push(findings.nested.length === 1 ? '1 nested repository with work' : `${findings.nested.length} nested repositories with work`)
  return parts.length ? parts.join(' and ') : 'nothing unsaved'
}
