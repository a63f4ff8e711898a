// Which folder a clone's entry of ours stands for, when nothing of this job vouches for it. The entry
// (<common dir>/agent-worktree-clones/<id>) lies in the original's common dir, which an agent under a sandbox
// that does not list it can write: its gitdir is never read, and its record, another job's, is a hint. A hint
// sends the sweep and the pool only to a folder such as a main step makes for a clone: one of its own in the
// worktrees folder, whose .git is a folder that borrows this repository's objects, and which holds no common
// dir of the repository (the original checkout, say).
import * as path from 'node:path'
import { isInside, realPath, samePath } from '../os/paths.js'
import { kindOf, readSmall } from '../os/untrusted-files.js'

/**
 * Whether `folder` (a record's path) is a clone a main step made in `worktreesDir` for the repository of
 * `commonDir`. A folder already gone counts, at its place: nothing is left of it to delete but our entry.
 */
export function madeClone(folder: unknown, commonDir: string, worktreesDir: string): folder is string {
  if (typeof folder !== 'string' || !path.isAbsolute(folder) || !samePath(path.dirname(folder), worktreesDir)) return false
  const name = path.basename(folder)
  if (name === '.' || name === '..' || name === '') return false
  const kind = kindOf(folder)
  if (kind === 'missing') return true
  if (kind !== 'directory' || kindOf(path.join(folder, '.git')) !== 'directory') return false
  if (isInside(realPath(commonDir), realPath(folder))) return false
  const alternates = readSmall(path.join(folder, '.git', 'objects', 'info', 'alternates'))?.split('\n') ?? []
  return alternates.some(line => line.trim() !== '' && samePath(line.trim(), path.join(commonDir, 'objects')))
}
