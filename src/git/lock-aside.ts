// What lies at the path of the repository lock, of a draft of it or of a stealer's guard, and is no file of ours:
// the common dir is the agent's to write, and a folder, a named pipe, a link or a file no step can read there would
// stop every step of every job on the repository. It is moved aside within the common dir, never read, followed or
// deleted (it may be anyone's), and the step goes on.
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { kindOf, readSmall } from '../os/untrusted-files.js'

/** Where what was moved aside goes, in the common dir: `<name>.<random>`. */
export const ASIDE_PREFIX = 'agent-worktree-aside.'

/** Whether the file at `file` can be one of ours: a regular file a step can read, as small as a lock's record. */
export function mayBeOurs(file: string): boolean {
  return kindOf(file) === 'file' && readSmall(file, 64 * 1024) !== undefined
}

/**
 * Moves what is at `file` aside when it is no file of ours: true when nothing of another kind is left there. One that
 * cannot be moved (a mount point) stays: false.
 */
export function moveAsideUnlessOurs(file: string): boolean {
  if (kindOf(file) === 'missing' || mayBeOurs(file)) return true
  try {
    fs.renameSync(file, path.join(path.dirname(file), `${ASIDE_PREFIX}${path.basename(file)}.${randomBytes(6).toString('hex')}`))
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
  }
}
