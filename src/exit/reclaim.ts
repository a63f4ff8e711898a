// Reclaim: a kept worktree gives back the ignored folders the reclaim input names, and those a CACHEDIR.TAG marks
// as caches, so that kept worktrees do not fill a machine that stays. It deletes, so it deletes only what a
// removal would have deleted too: what git ignores by the rules of enter (read through a sealed view), never a
// tracked file or one the gate counted as work, never a folder that holds a repository (its commits are work) or
// a mount point, never through a link: a link that matches is unlinked, what it points to left alone.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { CancelledError } from '../git/git-command-manager.js'
import { openView, type View } from '../git/sealed-git.js'
import { must } from '../gate/git-answers.js'
import type { Reclaim } from '../record/settings.js'
import { kindOf, reachedWithoutLinks, readBytes } from '../os/untrusted-files.js'
import { diskUsage } from '../os/disk-usage.js'
import { deleteTree, mountsInside } from './remove-worktree.js'

/** The worktree as the gate read it, and what the gate counted as work there. */
export interface ReclaimFacts {
  folder: string
  /** The git dir whose objects the view reads, and the worktree's own (its index). */
  commonDir: string
  gitDir: string
  head?: string
  /** The settings of enter that decide what git ignores (core.ignoreCase), as key=value. */
  settings: string[]
  /** The ignore rules of enter (info/exclude, core.excludesFile). */
  excludes?: string
  /** Links this action made (symlink-dirs): one a pattern names is unlinked. */
  ownLinks: string[]
  /** Paths the gate counted as work (uncommitted files, nested repositories): a folder holding one stays. */
  work: string[]
}

/** A folder given back: its path in the worktree, and what went (only the link, for a link). */
export interface ReclaimedFolder {
  path: string
  bytes: number
  files: number
  link?: boolean
}

/** Why a folder that matched stays. */
export type Spared = 'work' | 'repository' | 'mount' | 'unreadable' | 'undeleted'

export interface Reclaimed {
  folders: ReclaimedFolder[]
  spared: { path: string; why: Spared }[]
  /** Why it stopped: what git or the disk said. What went before it stopped is in folders. */
  error?: string
}

/** The Cache Directory Tagging specification's tag file, and the 43 bytes it begins with. */
const TAG = 'CACHEDIR.TAG'
const SIGNATURE = Buffer.from('Signature: 8a477f597d28d172789f06886806bc55')

/** Deletes the folders `rule` names in the kept worktree `facts.folder`; says what went and what stayed. */
export async function reclaim(rule: Reclaim, facts: ReclaimFacts): Promise<Reclaimed> {
  const done: Reclaimed = { folders: [], spared: [] }
  if (!rule.patterns.length && !rule.tagged) return done
  const index = path.join(facts.gitDir, 'index')
  let view: View | undefined
  try {
    view = openView({
      objects: path.join(facts.commonDir, 'objects'),
      head: facts.head,
      index: fs.existsSync(index) ? index : undefined,
      workTree: facts.folder,
      settings: facts.settings,
      excludes: facts.excludes
    })
    for (const candidate of outermost(await candidates(view, rule, facts))) {
      const found = reclaimOne(facts.folder, candidate, facts)
      if (!found) continue
      if ('why' in found) done.spared.push(found)
      else if (await deleted(facts.folder, found)) done.folders.push(found)
      else done.spared.push({ path: candidate, why: 'undeleted' })
    }
    return done
  } catch (error) {
    // A kept worktree stays kept, and said so, whatever went wrong here; but a cancelled step stops.
    if (error instanceof CancelledError) throw error
    return { ...done, error: (error as Error).message }
  } finally {
    view?.dispose()
  }
}

/** The folders (and links) that match the rule and that git ignores by the rules of enter, as paths in the worktree. */
async function candidates(view: View, rule: Reclaim, facts: ReclaimFacts): Promise<string[]> {
  const rules = path.join(view.dir, 'reclaim')
  fs.writeFileSync(rules, `${rule.patterns.join('\n')}\n`)
  const [listed, tags] = await Promise.all([
    // Untracked paths the patterns match, whole folders where they hold nothing tracked.
    rule.patterns.length ? must(view.git, ['ls-files', '-z', '--others', '--ignored', '--directory', `--exclude-from=${rules}`]) : '',
    rule.tagged ? must(view.git, ['ls-files', '-z', '--others', '--ignored', `--exclude=${TAG}`]) : ''
  ])
  // ls-files also lists the folders on the way that hold only what matched: each is asked again, as a folder.
  const named = [
    ...listed.split('\0').filter(Boolean),
    ...facts.ownLinks.filter(link => rule.patterns.length && kindOf(path.join(facts.folder, link)) === 'link')
  ]
  const matched = await matching(view, rules, named)
  const tagged = tags
    .split('\0')
    .filter(p => path.posix.basename(p) === TAG && p !== TAG && reachedWithoutLinks(facts.folder, p))
    .filter(p => readBytes(path.join(facts.folder, p), 4096)?.subarray(0, SIGNATURE.length).equals(SIGNATURE))
    .map(p => path.posix.dirname(p))
  // Only what the rules of enter ignore (a folder, or one inside an ignored folder); the action's own links are not work either.
  const ownLinks = new Set(facts.ownLinks)
  const wanted = [...new Set([...matched, ...tagged])]
  const ignored = await ignoredOfEnter(
    view,
    wanted.filter(p => !ownLinks.has(p))
  )
  return wanted.filter(p => ownLinks.has(p) || ignored.has(p))
}

/** Those of `paths` (a folder's ends with "/") that the patterns alone match, as a folder each, without the slash. */
async function matching(view: View, rules: string, paths: string[]): Promise<string[]> {
  if (!paths.length) return []
  const folders = paths.map(p => (p.endsWith('/') ? p : `${p}/`))
  // A folder of its own, empty: no .gitignore of the worktree's takes part, and every path is taken as named.
  const empty = path.join(view.dir, 'empty')
  fs.mkdirSync(empty, { recursive: true })
  const checked = await view.git.run(['-c', `core.excludesFile=${rules}`, `--work-tree=${empty}`, 'check-ignore', '--no-index', '-z', '--stdin'], {
    input: folders.join('\0'),
    interruptible: true
  })
  if (checked.exitCode > 1) throw new Error(checked.stderr.trim())
  return checked.stdout
    .split('\0')
    .filter(Boolean)
    .map(p => p.replace(/\/$/, ''))
}

/** Those of `paths` that git ignores in the worktree by the rules of enter: never one it tracks. */
async function ignoredOfEnter(view: View, paths: string[]): Promise<Set<string>> {
  if (!paths.length) return new Set()
  const checked = await view.git.run(['check-ignore', '-z', '--stdin'], { input: paths.join('\0'), interruptible: true })
  if (checked.exitCode > 1) throw new Error(checked.stderr.trim())
  return new Set(checked.stdout.split('\0').filter(Boolean))
}

/** The paths not inside another of them, the worktree itself never among them. */
function outermost(paths: string[]): string[] {
  const sorted = [...new Set(paths)].filter(p => p && p !== '.').sort()
  return sorted.filter(p => !sorted.some(other => other !== p && p.startsWith(`${other}/`)))
}

/** What one candidate is: a link to unlink, a folder to delete with what it holds, or why it stays; undefined: nothing to do. */
function reclaimOne(folder: string, candidate: string, facts: ReclaimFacts): ReclaimedFolder | { path: string; why: Spared } | undefined {
  if (!reachedWithoutLinks(folder, candidate)) return undefined
  const full = path.join(folder, candidate)
  const kind = kindOf(full)
  if (kind === 'link') return { path: candidate, bytes: 0, files: 0, link: true }
  if (kind !== 'directory') return undefined
  if (facts.work.some(p => p === candidate || p.startsWith(`${candidate}/`))) return { path: candidate, why: 'work' }
  if (mountsInside(full).length) return { path: candidate, why: 'mount' }
  // A folder that cannot be read may hold anything.
  const held = diskUsage(full, holdsRepository)
  if (!held) return { path: candidate, why: 'repository' }
  if (held.unreadable) return { path: candidate, why: 'unreadable' }
  return { path: candidate, bytes: held.bytes, files: held.files }
}

/** Deletes what `found` is (unlinks a link); false when it could not go. */
async function deleted(folder: string, found: ReclaimedFolder): Promise<boolean> {
  // Checked again just before: no folder on the way became a link meanwhile.
  if (!reachedWithoutLinks(folder, found.path)) return false
  const full = path.join(folder, found.path)
  if (!found.link) return (await deleteTree(full)) === undefined
  fs.unlinkSync(full)
  return true
}

/** A repository among a folder's names: a .git, or a bare one's HEAD, objects and refs. Its commits are work. */
function holdsRepository(names: Set<string>): boolean {
  return names.has('.git') || (names.has('HEAD') && names.has('objects') && names.has('refs'))
}
