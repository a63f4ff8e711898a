// Rescues made by hand, for tests of what a restore does with one it did not make (anyone who may push can
// make a branch of that name): a snapshot commit in the format src/rescue/snapshot-message.ts writes, with trees of any shape
// (raw tree objects, entries git would refuse), shipped as an artifact's bundle.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { git } from './repos.js'
import type { Lab } from './restore.js'
import { storedZip } from './results-service.js'

export type Entry = [mode: string, name: string | Buffer, id: string]

const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'x',
  GIT_AUTHOR_EMAIL: 'x@x',
  GIT_COMMITTER_NAME: 'x',
  GIT_COMMITTER_EMAIL: 'x@x'
}

export function raw(cwd: string, args: string[], input?: Buffer | string): string {
  return execFileSync('git', args, { cwd, env: ENV, input, stdio: ['pipe', 'pipe', 'pipe'] })
    .toString('latin1')
    .trim()
}

export function blob(repo: string, content: string | Buffer): string {
  return raw(repo, ['hash-object', '-w', '--stdin'], Buffer.from(content))
}

/** A tree object exactly as given: no sorting, no checks (names with /, .., .git, duplicates). */
export function rawTree(repo: string, entries: Entry[]): string {
  const parts = entries.map(([mode, name, id]) => Buffer.concat([Buffer.from(`${mode} `), Buffer.from(name), Buffer.from([0]), Buffer.from(id, 'hex')]))
  return raw(repo, ['hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], Buffer.concat(parts))
}

/** A scratch clone of the lab's origin where trees are crafted. */
export function scratch(l: Lab, name = 'scratch'): { repo: string; base: string; baseTree: string } {
  const repo = path.join(l.repos.root, `${name}-${Math.random().toString(16).slice(2, 8)}`)
  git(l.repos.root, 'clone', '--quiet', l.repos.origin, repo)
  return { repo, base: git(repo, 'rev-parse', 'HEAD'), baseTree: git(repo, 'rev-parse', 'HEAD^{tree}') }
}

/** The entries of a tree, to build on. */
export function entriesOf(repo: string, tree: string): Entry[] {
  const out = raw(repo, ['ls-tree', '-z', tree])
  return out
    .split('\0')
    .filter(Boolean)
    .map(line => {
      const [meta, name] = line.split('\t')
      const [mode, , id] = meta.split(' ')
      return [mode, Buffer.from(name, 'latin1'), id] as Entry
    })
}

export interface Crafted {
  commit: string
  head: string
  index: string
  tree: string
}

/** A snapshot commit: HEAD `head` (first parent), an index parent, the trailers as keepSnapshot writes them. */
export function snapshotCommit(
  repo: string,
  o: { tree: string; index: string; head: string; base?: string; branch?: string; extraParents?: string[]; indexTrailer?: string }
): Crafted {
  const indexCommit = raw(repo, ['commit-tree', '-p', o.head, '-m', 'agent-worktree: the index (staged changes)', o.index])
  const message = [
    'agent-worktree: rescue of worktree-x',
    '',
    `Agent-Worktree-Head: ${o.head}`,
    `Agent-Worktree-Branch: ${o.branch ?? 'refs/heads/worktree-x'}`,
    `Agent-Worktree-Index: ${o.indexTrailer ?? o.index}`,
    `Agent-Worktree-Base: ${o.base ?? o.head}`
  ].join('\n')
  const parents = [o.head, indexCommit, ...(o.extraParents ?? [])].flatMap(p => ['-p', p])
  const commit = raw(repo, ['commit-tree', ...parents, '-m', message, o.tree])
  return { commit, head: o.head, index: o.index, tree: o.tree }
}

/** The snapshot as an artifact zip (rescue.bundle, README.txt), building on `base`. */
export function bundleZip(repo: string, commit: string, base: string, readme = 'A rescue.\n'): Buffer {
  raw(repo, ['update-ref', 'refs/heads/rescue-out', commit])
  const file = path.join(repo, '..', `bundle-${commit.slice(0, 8)}.bundle`)
  raw(repo, ['bundle', 'create', file, 'refs/heads/rescue-out', `^${base}`])
  return storedZip({ 'rescue.bundle': fs.readFileSync(file), 'README.txt': readme })
}
