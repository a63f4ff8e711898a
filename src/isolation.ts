// Did the agent stay in its worktree? A snapshot of the original checkout at enter, compared at exit.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Git } from './git-command-manager.js'
import { parseStatusV2 } from './porcelain.js'

export interface CheckoutSnapshot {
  head: string
  /** Each changed or untracked path, with its status code and size/mtime, so further edits show too. */
  files: Record<string, string>
}

export async function snapshotCheckout(toplevel: string): Promise<CheckoutSnapshot> {
  // One git call tells both HEAD and the changes.
  const status = parseStatusV2(
    await new Git(toplevel).exec(['--no-optional-locks', 'status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal', '--ignore-submodules=dirty'])
  )
  const files: Record<string, string> = {}
  for (const entry of status.entries) {
    let signature = 'missing'
    try {
      const stat = fs.lstatSync(path.join(toplevel, entry.path))
      signature = `${stat.size}:${stat.mtimeMs}`
    } catch {
      // deleted
    }
    files[entry.path] = `${entry.code} ${signature}`
  }
  return { head: status.head, files }
}

/**
 * Kept in a file in the runner's temp folder, not in the step's state: a checkout with thousands of
 * changed files would make the state too big to reach the post step. Returns the file's path.
 */
export function writeSnapshotFile(snapshot: CheckoutSnapshot, token: string, env: NodeJS.ProcessEnv = process.env): string {
  const file = path.join(env.RUNNER_TEMP || os.tmpdir(), `agent-worktree-${token}-original.json`)
  fs.writeFileSync(file, JSON.stringify(snapshot))
  return file
}

/** The snapshot, or undefined when the file is gone or unreadable (the report is then skipped). */
export function readSnapshotFile(file: string): CheckoutSnapshot | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as CheckoutSnapshot
  } catch {
    return undefined
  }
}

function label(code: string): string {
  if (code === '??') return 'added'
  return code.includes('D') ? 'deleted' : 'modified'
}

/** What changed between two snapshots, one line each; empty when nothing did. */
export function compareSnapshots(before: CheckoutSnapshot, after: CheckoutSnapshot): string[] {
  const changes: string[] = []
  if (before.head !== after.head) changes.push(`HEAD moved from ${before.head.slice(0, 12) || '(none)'} to ${after.head.slice(0, 12) || '(none)'}`)
  for (const file of new Set([...Object.keys(before.files), ...Object.keys(after.files)])) {
    const was = before.files[file]
    const now = after.files[file]
    if (was === now) continue
    const kind = now === undefined ? 'reverted' : was === undefined ? label(now.slice(0, 2)) : now.slice(0, 2).includes('D') ? 'deleted' : 'modified'
    changes.push(`${file} (${kind})`)
  }
  return changes
}
