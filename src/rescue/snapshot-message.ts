// The snapshot commit's message, written and read here alone: its subject names it a rescue, its trailers say
// where the agent was (HEAD, branch, index, base). A restore believes a commit only in this shape.

/** The subject of the commit that holds the index (staged changes) as a parent of the snapshot. */
export const INDEX_SUBJECT = 'agent-worktree: the index (staged changes)'

const SUBJECT = 'agent-worktree: rescue of '

export const TRAILERS = { head: 'Agent-Worktree-Head', branch: 'Agent-Worktree-Branch', index: 'Agent-Worktree-Index', base: 'Agent-Worktree-Base' }

/** Where the agent was, as the trailers record it: undefined head for an unborn branch, undefined branch for a detached HEAD. */
export interface Trailers {
  head?: string
  branch?: string
  index: string
  base?: string
}

export function snapshotMessage(name: string, lines: string[], trailers: Trailers): string {
  return [
    `${SUBJECT}${name}`,
    '',
    ...lines,
    '',
    `${TRAILERS.head}: ${trailers.head ?? 'unborn'}`,
    `${TRAILERS.branch}: ${trailers.branch ?? 'detached'}`,
    `${TRAILERS.index}: ${trailers.index}`,
    `${TRAILERS.base}: ${trailers.base ?? 'none'}`
  ].join('\n')
}

const OBJECT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/** The trailers of a snapshot's message, when it has a rescue's subject and every trailer is well formed. */
export function parseSnapshotMessage(message: string): Trailers | undefined {
  const lines = message.trimEnd().split('\n')
  const trailer = (key: string): string => lines.find(line => line.startsWith(`${key}: `))?.slice(key.length + 2) ?? ''
  const [head, branch, index, base] = [trailer(TRAILERS.head), trailer(TRAILERS.branch), trailer(TRAILERS.index), trailer(TRAILERS.base)]
  const valid =
    lines[0].startsWith(SUBJECT) &&
    (head === 'unborn' || OBJECT_ID.test(head)) &&
    (branch === 'detached' || /^refs\/heads\/\S+$/.test(branch)) &&
    OBJECT_ID.test(index) &&
    (base === 'none' || OBJECT_ID.test(base))
  if (!valid) return undefined
  return {
    head: head === 'unborn' ? undefined : head,
    branch: branch === 'detached' ? undefined : branch,
    index,
    base: base === 'none' ? undefined : base
  }
}
