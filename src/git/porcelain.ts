// Parsers for git's machine-readable output.

export interface WorktreeEntry {
  path: string
  head?: string
  /** Full ref name (refs/heads/x), absent when detached. */
  branch?: string
  detached: boolean
  bare: boolean
  /** Lock reason ('' when locked without one); absent when not locked. */
  locked?: string
  /** Why git would prune it ('' without a reason); absent when not prunable. */
  prunable?: string
}

/** Parses `git worktree list --porcelain`: one block per worktree, the main one first. */
export function parseWorktreeList(text: string): WorktreeEntry[] {
  const entries: WorktreeEntry[] = []
  let current: WorktreeEntry | undefined
  for (const line of text.split('\n')) {
    if (line === '') {
      current = undefined
      continue
    }
    const space = line.indexOf(' ')
    const key = space === -1 ? line : line.slice(0, space)
    const value = space === -1 ? '' : line.slice(space + 1)
    if (key === 'worktree') {
      current = { path: value, detached: false, bare: false }
      entries.push(current)
      continue
    }
    if (!current) continue
    if (key === 'HEAD') current.head = value
    else if (key === 'branch') current.branch = value
    else if (key === 'detached') current.detached = true
    else if (key === 'bare') current.bare = true
    else if (key === 'locked') current.locked = value
    else if (key === 'prunable') current.prunable = value
  }
  return entries
}

export interface StatusEntry {
  /** The two-letter XY code: '??' untracked, '!!' ignored, ' M' modified, 'A ' staged new file, ... */
  code: string
  path: string
  /** Submodule state from porcelain v2 ('N...' for a plain file). */
  sub?: string
  /** File modes in HEAD, the index and the worktree, and object names in HEAD and the index (porcelain v2). */
  modes?: [string, string, string]
  hashes?: [string, string]
}

/** Parses `git status --porcelain=v1 -z`. A rename or copy is one entry, under its new path. */
export function parseStatus(text: string): StatusEntry[] {
  const fields = text.split('\0')
  const entries: StatusEntry[] = []
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]
    if (field.length < 4) continue
    const code = field.slice(0, 2)
    entries.push({ code, path: field.slice(3) })
    // The original path of a rename or copy follows as its own field.
    if (code[0] === 'R' || code[0] === 'C') i++
  }
  return entries
}

/**
 * Parses `git status --porcelain=v2 --branch -z`: the HEAD commit ('' before the first commit) and the
 * entries, in v1's two-letter codes ('??' untracked, '!!' ignored), with modes and object names.
 */
export function parseStatusV2(text: string): { head: string; entries: StatusEntry[] } {
  const fields = text.split('\0')
  let head = ''
  const entries: StatusEntry[] = []
  // Fields before the path: 8 for a change, 9 for a rename or copy, 10 for an unmerged path.
  const before: Record<string, number> = { '1': 8, '2': 9, u: 10 }
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i]
    if (field.startsWith('# branch.oid ')) {
      const oid = field.slice('# branch.oid '.length)
      head = oid === '(initial)' ? '' : oid
    } else if (field.startsWith('? ') || field.startsWith('! ')) {
      entries.push({ code: field[0] === '?' ? '??' : '!!', path: field.slice(2) })
    } else if (field[0] in before && field[1] === ' ') {
      const parts = field.split(' ')
      const entry: StatusEntry = { code: parts[1].replace(/\./g, ' '), path: parts.slice(before[field[0]]).join(' '), sub: parts[2] }
      if (field[0] !== 'u') {
        entry.modes = [parts[3], parts[4], parts[5]]
        entry.hashes = [parts[6], parts[7]]
      }
      entries.push(entry)
      if (field[0] === '2') i++ // the original path follows as its own field
    }
  }
  return { head, entries }
}
