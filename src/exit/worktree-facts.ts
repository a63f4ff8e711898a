// What the exit reads of the worktree and the checkout besides the gate: the links this action made that are still its
// own, and what changed in the original checkout since enter.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { samePath } from '../os/paths.js'
import { reachedWithoutLinks } from '../os/untrusted-files.js'
import { compareSnapshots, readSnapshotFile, snapshotCheckoutAgain } from '../shared/original-checkout.js'
import type { Evidence } from './evidence.js'

/** Links this action made that are still as it made them: the gate does not count them, removal unlinks them. */
export function ownLinks(toplevel: string, worktree: string, links: string[] = []): string[] {
  // A record file could name a link anywhere: only plain paths inside the worktree are ours.
  return links.filter(link => {
    if (!reachedWithoutLinks(worktree, link)) return false
    try {
      const at = path.join(worktree, link)
      return fs.lstatSync(at).isSymbolicLink() && samePath(path.resolve(path.dirname(at), fs.readlinkSync(at)), path.join(toplevel, link))
    } catch {
      return false
    }
  })
}

/** Changes to the original checkout since enter; none when there is nothing to compare with. */
export async function isolationBreach(evidence: Evidence): Promise<string[]> {
  const before = evidence.original ? readSnapshotFile(evidence.original) : undefined
  if (!before || samePath(evidence.repository, evidence.path)) return []
  try {
    return compareSnapshots(before, await snapshotCheckoutAgain(evidence.repository, before, evidence.commonDir, evidence.believed.filters))
  } catch {
    return []
  }
}
