// Repositories inside the worktree's folder, and its submodules: removing the folder takes their files and
// commits with it, so each is judged as the worktree itself is, down to a bounded depth.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Git, type GitResult } from '../git/git-command-manager.js'
import { isInside } from '../os/paths.js'
import { parseStatus } from '../git/porcelain.js'
import { openView } from '../git/sealed-git.js'
import { kindOf, readSmall } from '../os/untrusted-files.js'
import { quoted } from '../os/quote.js'
import type { OnRemote } from '../remote/tips.js'
import type { Nested, NestedWork, UnsavedCommit } from './findings.js'
import { commitOf, dropIndexHints, must } from './git-answers.js'

/** Nested repositories are looked into this deep at most; deeper ones count as work unseen. */
const NESTED_DEPTH = 4

/** What judging a nested repository takes from the worktree's gate: what outlives the removal. */
export interface Outliving {
  /** A created worktree's base: its commits are not the agent's. */
  baseSha?: string
  /** Asked only when a commit is not saved otherwise; once per exit. */
  onRemote: () => Promise<OnRemote>
  /**
   * The remote a submodule had at enter, by its path, asked only when a commit there is not saved otherwise; once
   * per remote and exit. Undefined (or none given) where no remote of enter is known for it: then only what the
   * base pins saves a commit there.
   */
  onSubmoduleRemote?: (submodule: string) => Promise<OnRemote> | undefined
  /**
   * Local branches and tags outlive the removal and the next job's actions/checkout: on a machine that stays, in a
   * repository that checkout does not prepare (it deletes every local branch, and with fetch-depth: 0 every tag
   * the remote lacks).
   */
  localRefsSurvive: boolean
}

/**
 * Repositories and worktrees inside the folder (git lists them as `dir/` and never looks inside; a bare
 * one shows as its files), ignored folders included: removing the folder would take their files, and a
 * clone's commits, with it. One is harmless only when it is provably clean, unlocked, holds no commit that
 * lives nowhere else, and holds no such repository itself.
 */
export async function nestedWork(folder: string, others: string, outliving: Outliving, depth = 0): Promise<NestedWork[]> {
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
    await dropIndexHints(view, dir, false)
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
/** What the remote of enter leaves unsaved of `unsaved`: past its branches and tags, then past its pull requests' heads. */
async function beyondRemote(unsaved: GitResult, outliving: Outliving, unsavedBeyond: (remote: string[]) => Promise<GitResult>): Promise<GitResult> {
  const remote = await outliving.onRemote()
  const tips = remote.advertised ?? remote.tips
  const commits = tips.length ? await unsavedBeyond(tips) : unsaved
  // Its pull requests' heads too, asked only about what its branches and tags leave unsaved.
  const heads = commits.exitCode === 0 && commits.stdout.trim() && remote.pullHeads ? (await remote.pullHeads()).heads : []
  return heads.length ? unsavedBeyond([...tips, ...heads]) : commits
}

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
    const commits = unsaved.stdout.trim() ? await beyondRemote(unsaved, outliving, unsavedBeyond) : unsaved
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
/** What a submodule's remote of enter leaves unsaved of `log`; where it could not be asked, why, in `unasked`. */
async function submoduleBeyondRemote(
  log: string,
  shown: string,
  judging: Outliving,
  unsavedBeyond: (remote: string[]) => Promise<string>,
  unasked: Record<string, string>
): Promise<string> {
  const remote = (await judging.onSubmoduleRemote?.(shown)) ?? { tips: [], unasked: `no remote of enter is known for ${quoted(shown)}` }
  let left = remote.tips.length ? await unsavedBeyond(remote.tips) : log
  const pulls = left.trim() && remote.pullHeads ? await remote.pullHeads() : undefined
  if (pulls?.heads.length) left = await unsavedBeyond([...remote.tips, ...pulls.heads])
  const why = remote.unasked ?? pulls?.unasked
  if (left.trim() && why) unasked[shown] = why
  return left
}

/** A folder with anything in it, or one that cannot be listed (then it may hold anything). Not a link, nor a file. */
function holdsAnything(dir: string): boolean {
  if (kindOf(dir) !== 'directory') return false
  try {
    return fs.readdirSync(dir).length > 0
  } catch {
    return true
  }
}

export async function submoduleWork(
  folder: string,
  submodules: string[],
  pinning: { git: Git; commit?: string },
  judging: Outliving,
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
      // A submodule never set up is an empty folder, and git lists nothing inside it: whatever is there is work.
      else if (holdsAnything(dir)) result.dirty.push(submodule)
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
      const staged = await dropIndexHints(view, dir, false)
      const [status, untracked, others, unsaved] = await Promise.all([
        must(view.git, ['status', '--porcelain', '-z', '--untracked-files=no', '--ignore-submodules=dirty']),
        must(view.git, ['ls-files', '-z', '--others', '--exclude-per-directory=.gitignore']),
        must(view.git, ['ls-files', '-z', '--others']),
        unsavedBeyond([])
      ])
      const log = unsaved.trim() ? await submoduleBeyondRemote(unsaved, shown, judging, unsavedBeyond, result.unasked) : unsaved
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
