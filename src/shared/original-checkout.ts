// Did the agent stay in its worktree? A snapshot of the original checkout at enter, compared at exit.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Git } from '../git/git-command-manager.js'
import { parseStatusV2 } from '../git/porcelain.js'
import { openView } from '../git/sealed-git.js'
import type { FilterDriver } from '../record/state-helper.js'
import { readSmall } from '../os/untrusted-files.js'
import { headFromFiles } from './shared-refs.js'
import { quoted } from '../os/quote.js'

export interface CheckoutSnapshot {
  head: string
  /** Each changed or untracked path, with its status code and size/mtime, so further edits show too. */
  files: Record<string, string>
  /** The checkout's git dir, where its index is. */
  gitDir?: string
}

const STATUS = ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal', '--ignore-submodules=dirty']

/** At enter, before any agent ran: one git call tells both HEAD and the changes. */
export async function snapshotCheckout(toplevel: string, gitDir?: string): Promise<CheckoutSnapshot> {
  return { ...signatures(toplevel, await new Git(toplevel).exec(STATUS)), gitDir }
}

/**
 * At exit, after the agent ran: the same, through a sealed view (the repository's configuration and
 * attributes of its git dir may name programs now), with its exclude rules and the filter drivers of enter.
 */
export async function snapshotCheckoutAgain(
  toplevel: string,
  before: CheckoutSnapshot,
  commonDir: string,
  filters?: Record<string, FilterDriver>
): Promise<CheckoutSnapshot> {
  const gitDir = before.gitDir ?? commonDir
  const index = path.join(gitDir, 'index')
  const view = openView({
    objects: path.join(commonDir, 'objects'),
    head: await headOf(toplevel, gitDir, commonDir, before.head),
    index: fs.existsSync(index) ? index : undefined,
    workTree: toplevel,
    filters,
    excludes: readSmall(path.join(commonDir, 'info', 'exclude'))
  })
  try {
    return { ...signatures(toplevel, await view.git.exec(STATUS)), gitDir }
  } finally {
    view.dispose()
  }
}

/**
 * HEAD's commit, or undefined before the first. Where the ref files still name the commit git named at enter, that is
 * the answer (no git process: the common case); anything else, git's.
 */
async function headOf(toplevel: string, gitDir: string, commonDir: string, before: string): Promise<string | undefined> {
  if (before && headFromFiles(gitDir, commonDir) === before) return before
  const head = await new Git(toplevel, [`--git-dir=${gitDir}`]).run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])
  return head.exitCode === 0 ? head.stdout.trim() : undefined
}

function signatures(toplevel: string, statusText: string): Omit<CheckoutSnapshot, 'gitDir'> {
  const status = parseStatusV2(statusText)
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
    return JSON.parse(readSmall(file, 256 * 1024 * 1024) ?? '') as CheckoutSnapshot
  } catch {
    return undefined
  }
}

function label(code: string): string {
  if (code === '??') return 'added'
  return code.includes('D') ? 'deleted' : 'modified'
}

/** What changed between two snapshots, one line each, its file quoted; empty when nothing did. */
export function compareSnapshots(before: CheckoutSnapshot, after: CheckoutSnapshot): string[] {
  const changes: string[] = []
  if (before.head !== after.head) changes.push(`HEAD moved from ${before.head.slice(0, 12) || '(none)'} to ${after.head.slice(0, 12) || '(none)'}`)
  for (const file of new Set([...Object.keys(before.files), ...Object.keys(after.files)])) {
    const was = before.files[file]
    const now = after.files[file]
    if (was === now) continue
    const kind = now === undefined ? 'reverted' : was === undefined ? label(now.slice(0, 2)) : now.slice(0, 2).includes('D') ? 'deleted' : 'modified'
    changes.push(`${quoted(file)} (${kind})`)
  }
  return changes
}
