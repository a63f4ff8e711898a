// Git's answers the gate builds on: a call whose failure makes the state unknown, an index whose hints are
// dropped so that git compares every file (but those a park proved unchanged since), and a line of git log read
// back.
import * as fs from 'node:fs'
import type { Git } from '../git/git-command-manager.js'
import { entryMode, writeIndexFile, type IndexEntry } from '../git/index-file.js'
import { quoted } from '../os/quote.js'
import { inside } from '../os/untrusted-files.js'
import type { View } from '../git/sealed-git.js'
import type { ParkedFiles } from '../git/parked-files.js'
import type { UnsavedCommit } from './findings.js'

/** A view's index as dropIndexHints wrote it: its entries, and the paths of its submodules. */
export interface ListedIndex {
  submodules: string[]
  entries: IndexEntry[]
}

/** Git could not answer: the state is unknown, and nothing may be removed. */
export class Unknown extends Error {}

/**
 * A git call whose answer the gate needs. `seeAll`: a listing of what may be work, which must have seen
 * every folder (git warns past one it cannot open, deeper than PATH_MAX or unreadable, and goes on).
 */
export async function must(git: Git, args: string[], input?: string | Buffer, seeAll = false): Promise<string> {
  const result = await git.run(args, { input, interruptible: true })
  if (result.exitCode !== 0) throw new Unknown(result.stderr.trim() || `git ${args[0]} exited with code ${result.exitCode}`)
  const unseen = seeAll && /^warning: could not open directory .*$/m.exec(result.stderr)
  if (unseen) throw new Unknown(unseen[0].slice('warning: '.length))
  return result.stdout
}

/**
 * The index of a view, its entries kept and all else it says of the files dropped: the assume-unchanged and
 * skip-worktree bits, and each entry's stat data (a file's size and times when git last looked at it). The agent
 * writes the index as it likes: an entry can claim the size and times of a file whose bytes it no longer holds,
 * and git, trusting them, would call the file unchanged. Without them git compares every file's bytes. In a
 * sparse worktree a skip-worktree entry whose file is absent keeps its bit: it is not there to hide anything.
 * git lists the entries; the view's index is written again from that listing (index-file.ts), with the stat data a
 * park proved (`parked`) for each entry that is still the one proven, and none for any other.
 * Returns the entries, and the paths of the submodules (gitlinks) the index records.
 */
export async function dropIndexHints(view: View, folder: string, sparse: boolean, parked?: ParkedFiles): Promise<ListedIndex> {
  if (!view.index) return { submodules: [], entries: [] }
  const entries: IndexEntry[] = []
  const submodules: string[] = []
  // latin1: every byte of a name that is not UTF-8 goes back as it came.
  const listed = await view.git.run(['ls-files', '-v', '-s', '-z'], { interruptible: true, encoding: 'latin1' })
  if (listed.exitCode !== 0) throw new Unknown(listed.stderr.trim() || `git ls-files exited with code ${listed.exitCode}`)
  for (const field of listed.stdout.split('\0')) {
    // "<tag> <mode> <object> <stage>\t<path>"
    const match = /^(\S) (\d+) ([0-9a-f]+) (\d)\t(.*)$/s.exec(field)
    if (!match) continue
    const [, tag, mode, object, stage, file] = match
    const name = Buffer.from(file, 'latin1')
    if (entryMode(mode) === 0o160000) submodules.push(name.toString())
    const skipWorktree = tag.toUpperCase() === 'S' && sparse && absent(inside(folder, file, 'latin1'))
    const proven = stage === '0' && !skipWorktree ? parked?.(name) : undefined
    const stat = proven?.object === object && proven.mode === entryMode(mode).toString(8) ? proven.stat : undefined
    entries.push({ mode, object, stage: Number(stage), name, skipWorktree, ...(stat ? { stat } : {}) })
  }
  if (entries.length) writeIndexFile(view.index, entries)
  return { submodules, entries }
}

/** No file at `file`: nothing there, or a file where a folder of its path would be. Where it cannot be looked at, unknown. */
function absent(file: Buffer): boolean {
  try {
    fs.lstatSync(file)
    return false
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return true
    throw new Unknown(`${quoted(file.toString())} could not be looked at (${code ?? (error as Error).message})`)
  }
}

/**
 * The commit each name resolves to (`<name>^{commit}`), or undefined where it resolves to none, in one git call: what
 * `git rev-parse --verify --quiet` says of each, read at one moment. A name git's batch input could not carry as one
 * line is asked alone.
 */
export async function resolveCommits(git: Git, names: string[]): Promise<(string | undefined)[]> {
  const one = async (name: string): Promise<string | undefined> => {
    const result = await git.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`], { interruptible: true })
    return result.exitCode === 0 ? result.stdout.trim() : undefined
  }
  if (names.length < 2 || names.some(name => !/^[^\s\0]+$/.test(name))) return Promise.all(names.map(one))
  const listed = await git.run(['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
    input: names.map(name => `${name}^{commit}\n`).join(''),
    interruptible: true
  })
  const lines = listed.stdout.split('\n').slice(0, -1)
  if (listed.exitCode !== 0 || lines.length !== names.length) return Promise.all(names.map(one))
  return lines.map(line => /^([0-9a-f]{40}|[0-9a-f]{64}) commit$/.exec(line)?.[1])
}

/** A line `<id> <subject>` of git log, its id abbreviated to `length` when given. */
export function commitOf(line: string, length?: number): UnsavedCommit {
  const space = line.indexOf(' ')
  return { commit: line.slice(0, length ?? space), subject: line.slice(space + 1) }
}
