// The words for what the gate found and for what changed in what every worktree shares, in the exit's report,
// the enter's lines and the job summary alike. Every sentence people and agents read is written in report/, from
// the data the logic returns. Every name from the repository, the agent or a record file is shown quoted
// (os/quote.ts), every line goes out as one line: nothing in a name ends a block, forms Markdown, or starts a
// workflow command.
import { quoted } from '../../os/quote.js'
import type { Findings, Nested, NestedWork, SpecialFile, Uncommitted, UnsavedCommit } from '../../gate/findings.js'
import type { Origin, SharedChange } from '../../shared/shared-state.js'
import type { Reclaimed, Spared } from '../../exit/reclaim.js'

/** Items a line lists at most: the rest are counted or elided. */
export const LISTED = 10

/** The first LISTED items, and an ellipsis for the rest. */
export function listed(items: string[]): string {
  return items.slice(0, LISTED).join(', ') + (items.length > LISTED ? ', …' : '')
}

export function plural(n: number, word: string): string {
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

/** `XY path`, as git status --porcelain shows it. */
export function describeUncommitted(file: Uncommitted): string {
  return `${file.code} ${quoted(file.path)}`
}

/** `<id> <subject>`, after the submodule's path when it is in one. */
export function describeCommit(commit: UnsavedCommit): string {
  return `${commit.submodule ? `${quoted(commit.submodule)}: ` : ''}${commit.commit} ${quoted(commit.subject)}`
}

/** `path: what it is and holds`. */
export function describeNested(nested: NestedWork): string {
  return `${quoted(nested.path)}: ${describeNestedWork(nested)}`
}

function describeNestedWork(nested: Nested): string {
  switch (nested.state) {
    case 'unreadable':
      return `a ${nested.what} whose state could not be read`
    case 'too-deep':
      return `a ${nested.what === 'submodule' ? 'submodule' : 'repository'} nested too deep to look into`
    case 'locked':
      return 'a locked worktree'
    case 'commits':
      return nested.what === 'bare repository' ? 'a bare repository with commits' : `a ${nested.what} with commits that no remote has`
    case 'uncommitted':
      return `a ${nested.what} with ${plural(nested.files, 'uncommitted file')}`
    case 'holding':
      return `a ${nested.what} holding ${nested.inside.map(describeNested).join('; ')}`
  }
}

/** `path (a named pipe)`. */
export function describeSpecial(special: SpecialFile): string {
  return `${quoted(special.path)} (${special.kind === 'fifo' ? 'a named pipe' : special.kind === 'socket' ? 'a socket' : 'a device'})`
}

/** One change to what every worktree shares, and where it belongs as far as can be told. */
export function describeShared(change: SharedChange): string {
  // An object id, short; a symbolic ref's target ("ref:refs/remotes/origin/main") whole, a name.
  const id = (value: string | undefined): string => (value && /^[0-9a-f]+$/.test(value) ? value.slice(0, 12) : quoted(value ?? ''))
  const what = change.kind === 'ref' ? quoted(change.name) : `${change.kind} ${quoted(change.name)}`
  // null: one of a folder of many loose refs, recorded by name, and no reflog kept its id.
  const was = change.from === null ? 'an id not recorded at enter' : id(change.from)
  const done =
    change.change === 'moved'
      ? `moved from ${was} to ${id(change.to)}`
      : change.change === 'created'
        ? `created at ${id(change.to)}`
        : change.change === 'deleted'
          ? `deleted (it was at ${was})`
          : change.change
  return `${what} ${done}${originText(change.origin)}`
}

function originText(origin: Origin | undefined): string {
  const holder = origin?.holder
  const who = !holder
    ? undefined
    : holder.whose === 'this-job'
      ? "this job's worktree"
      : holder.whose === 'other-job'
        ? `the worktree ${quoted(holder.folder)}, which another job holds (${holder.job})`
        : holder.whose === 'same-job'
          ? `the worktree ${quoted(holder.folder)}, which this job entered too`
          : `the worktree ${quoted(holder.folder)}`
  const parts = [
    origin?.entry && (origin.entry === 'there' ? 'its worktree is still there' : 'its worktree is gone'),
    origin?.remote && 'as the remote has it',
    origin?.reflog && `reflog: ${quoted(origin.reflog.slice(0, 80))}`,
    who && (origin?.how === 'branch' ? `the branch of ${who}` : `made in ${who}`)
  ]
  return parts.some(Boolean) ? ` (${parts.filter(Boolean).join('; ')})` : ''
}

/** 1.2 GB, 340.0 MB, 12.0 KB, 512 bytes: powers of 1024, as rescue-max-size reads them. */
export function describeBytes(bytes: number): string {
  const units = ['KB', 'MB', 'GB', 'TB']
  let value = bytes
  let unit = -1
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return unit < 0 ? plural(bytes, 'byte') : `${value.toFixed(1)} ${units[unit]}`
}

/** 3 days, 5 hours, 20 minutes: the largest unit that fits. */
export function describeAge(ms: number): string {
  const minutes = Math.max(0, Math.floor(ms / 60_000))
  if (minutes < 60) return plural(minutes, 'minute')
  if (minutes < 48 * 60) return plural(Math.floor(minutes / 60), 'hour')
  return plural(Math.floor(minutes / 60 / 24), 'day')
}

const SPARED: Record<Spared, string> = {
  work: 'it holds work the gate counts',
  repository: 'it holds a repository, whose commits are work',
  mount: 'another file system is mounted in it',
  unreadable: 'a folder in it cannot be read',
  undeleted: 'it could not be deleted'
}

/**
 * What the reclaim input gave back of a kept worktree, in one sentence, and the folders it matched but left;
 * undefined when it matched nothing.
 */
export function describeReclaimed(reclaimed: Reclaimed | undefined, where: string): string | undefined {
  if (!reclaimed || (!reclaimed.folders.length && !reclaimed.spared.length && !reclaimed.error)) return undefined
  const bytes = reclaimed.folders.reduce((sum, f) => sum + f.bytes, 0)
  const files = reclaimed.folders.reduce((sum, f) => sum + f.files, 0)
  const gone = reclaimed.folders.map(f => `${quoted(f.path)}${f.link ? ' (a link: unlinked, what it points to left alone)' : ` (${describeBytes(f.bytes)})`}`)
  const said = reclaimed.folders.length
    ? `Reclaimed ${describeBytes(bytes)} (${plural(files, 'file')}) of ignored folders in the kept ${quoted(where)}: ${listed(gone)}.`
    : `Reclaimed nothing of the ignored folders in the kept ${quoted(where)}.`
  const left = reclaimed.spared.map(s => `${quoted(s.path)} (${SPARED[s.why]})`)
  const stopped = reclaimed.error ? ` Reclaiming stopped: ${reclaimed.error}` : ''
  return `${said}${left.length ? ` Left, though they matched: ${listed(left)}.` : ''}${stopped}`
}
