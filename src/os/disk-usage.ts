// What a folder holds on disk, walked without following a link and without leaving its file system: for the
// reclaim of a kept worktree's folders, and the sweep's list of kept worktrees by size.
import * as fs from 'node:fs'
import * as path from 'node:path'

export interface Usage {
  /** The bytes deleting it frees: a file with another hard link (a package manager's store) frees none. */
  bytes: number
  files: number
  /** Folders that could not be read: what they hold is not counted. */
  unreadable: number
}

/**
 * The disk use of `dir`; undefined when `stop` says so of a folder's names on the way (a repository inside a
 * folder to reclaim). Another file system mounted inside is not entered.
 */
export function diskUsage(dir: string, stop?: (names: Set<string>) => boolean): Usage | undefined {
  const usage: Usage = { bytes: 0, files: 0, unreadable: 0 }
  const root = fs.lstatSync(dir, { throwIfNoEntry: false })
  if (!root?.isDirectory()) return usage
  const stack = [dir]
  while (stack.length) {
    const at = stack.pop()!
    let names: string[]
    try {
      names = fs.readdirSync(at)
    } catch {
      usage.unreadable++
      continue
    }
    if (stop?.(new Set(names))) return undefined
    for (const name of names) {
      const full = path.join(at, name)
      const stat = fs.lstatSync(full, { throwIfNoEntry: false })
      if (!stat || stat.dev !== root.dev) continue
      if (stat.isDirectory()) stack.push(full)
      else usage.files++
      if (stat.isDirectory() || stat.nlink <= 1) usage.bytes += stat.blocks === undefined ? stat.size : stat.blocks * 512
    }
  }
  return usage
}
