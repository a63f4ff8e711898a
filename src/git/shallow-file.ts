// A repository's shallow file (<git dir>/shallow) tells git where history stops: any file there, an empty one too,
// makes it shallow, and the commits it names parentless, to every later git, our gate's walks included. It lies in a
// folder the agent writes, and has no form that changes nothing (stand-ins.ts): so the main step notes what it was
// when the agent got the worktree, and an exit that finds it otherwise believes no walk of history there.
import { createHash } from 'node:crypto'
import * as path from 'node:path'
import { kindOf, readBytes } from '../os/untrusted-files.js'

/** What the shallow file of `gitDir` is: '' when there is none, its bytes' sha256, or what else stands there. */
export function shallowIdentity(gitDir: string): string {
  const file = path.join(gitDir, 'shallow')
  const kind = kindOf(file)
  if (kind === 'missing') return ''
  const bytes = kind === 'file' ? readBytes(file, 64 * 1024 * 1024) : undefined
  return bytes ? createHash('sha256').update(bytes).digest('hex') : kind
}
