// Generated scenarios: random sequences of what an agent does in its worktree, then a random exit,
// against a real repository through the real exit code. Whatever happened, the invariant holds:
// after exit, either the worktree and all its work are intact, or nothing unsaved existed, or
// discard-changes was set. And a worktree with nothing unsaved is removed when asked.
// More cases: AGENT_WORKTREE_CASES=5000 npm run test:scenarios
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exitWorktree } from '../src/exit-worktree.js'
import type { WorktreeRecord } from '../src/state-helper.js'
import { git, makeRepos, write, type Repos } from './helpers/repos.js'
import { createLikeMain } from './helpers/worktree.js'

const CASES = Number(process.env.AGENT_WORKTREE_CASES ?? 200)

type Action =
  | { kind: 'edit' | 'delete'; pick: number }
  | { kind: 'create' | 'ignored' | 'push' | 'branch'; n: number }
  | { kind: 'stage' | 'commit' | 'commit-all' | 'detach' | 'restart' | 'switch-back' | 'stash' | 'rmdir' }

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constantFrom('edit' as const, 'delete' as const), pick: fc.nat(20) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constantFrom('create' as const, 'ignored' as const, 'push' as const, 'branch' as const), n: fc.nat(3) }), weight: 8 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'stage' as const,
        'commit' as const,
        'commit-all' as const,
        'detach' as const,
        'restart' as const,
        'switch-back' as const,
        'stash' as const
      )
    }),
    weight: 12
  },
  // Rarer: the agent deletes its whole folder.
  { arbitrary: fc.constant({ kind: 'rmdir' as const }), weight: 1 }
)

let repos: Repos
let counter = 0
beforeAll(() => {
  repos = makeRepos(Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`src/f${i}.txt`, `line ${i}\n`])))
})
afterAll(() => repos.cleanup())

/** Runs git, and tells whether it succeeded: an agent's command may fail, as real ones do. */
function tryGit(cwd: string, ...args: string[]): boolean {
  try {
    git(cwd, ...args)
    return true
  } catch {
    return false
  }
}

function perform(wt: string, record: WorktreeRecord, a: Action, id: number): void {
  if (!fs.existsSync(wt)) return
  const tracked = git(wt, 'ls-files')
    .split('\n')
    .filter(f => f && f !== '.gitignore')
  switch (a.kind) {
    case 'edit':
      if (tracked.length) write(wt, tracked[a.pick % tracked.length], `edited ${Math.random()}\n`)
      break
    case 'delete':
      if (tracked.length) fs.rmSync(path.join(wt, tracked[a.pick % tracked.length]), { force: true })
      break
    case 'create':
      write(wt, `new/n${a.n}.txt`, `new ${Math.random()}\n`)
      break
    case 'ignored':
      write(wt, `build/out${a.n}.bin`, 'ignored\n')
      break
    case 'stage':
      tryGit(wt, 'add', '-A')
      break
    case 'commit':
      tryGit(wt, 'commit', '--quiet', '-m', `agent commit ${id}`)
      break
    case 'commit-all':
      tryGit(wt, 'add', '-A')
      tryGit(wt, 'commit', '--quiet', '-m', `agent commit ${id}`)
      break
    case 'restart':
      // Starts over from the base, leaving earlier commits behind on whatever branch holds them.
      tryGit(wt, 'switch', '--quiet', '--detach', record.baseSha)
      break
    case 'push':
      tryGit(wt, 'push', '--quiet', 'origin', `HEAD:refs/heads/pushed-${id}-${a.n}`)
      break
    case 'branch':
      if (!tryGit(wt, 'switch', '--quiet', '-c', `agent-${id}-${a.n}`)) tryGit(wt, 'switch', '--quiet', `agent-${id}-${a.n}`)
      break
    case 'switch-back':
      tryGit(wt, 'switch', '--quiet', record.branch)
      break
    case 'detach':
      tryGit(wt, 'switch', '--quiet', '--detach')
      break
    case 'stash':
      tryGit(wt, 'stash', 'push', '--quiet', '--include-untracked')
      break
    case 'rmdir':
      fs.rmSync(wt, { recursive: true, force: true })
      break
  }
}

/** Every file of the folder with its content, .git aside: what "intact" means. */
function digest(dir: string): string {
  const hash = createHash('sha256')
  for (const entry of fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .sort((a, b) => path.join(a.parentPath, a.name).localeCompare(path.join(b.parentPath, b.name)))) {
    const full = path.join(entry.parentPath, entry.name)
    if (path.relative(dir, full).split(path.sep)[0] === '.git' || !entry.isFile()) continue
    hash.update(`${path.relative(dir, full)}\0${fs.readFileSync(full, 'utf8')}\0`)
  }
  return hash.digest('hex')
}

/** The spec's unsaved work, computed from git directly. */
function unsavedWork(wt: string, record: WorktreeRecord, adminDir: string): { files: boolean; commits: boolean } {
  const files = fs.existsSync(wt) && git(wt, 'status', '--porcelain', '--untracked-files=all') !== ''
  const head = fs.readFileSync(path.join(adminDir, 'HEAD'), 'utf8').trim()
  const tips = [head.startsWith('ref: ') ? head.slice(5) : head]
  if (tryGit(repos.clone, 'show-ref', '--verify', '--quiet', `refs/heads/${record.branch}`)) tips.push(`refs/heads/${record.branch}`)
  const commits = git(repos.clone, 'rev-list', ...tips, '--not', record.baseSha, '--remotes', '--') !== ''
  return { files, commits }
}

function otherRefs(branch: string): string {
  return git(repos.clone, 'for-each-ref', '--format=%(refname) %(objectname)')
    .split('\n')
    .filter(l => !l.startsWith(`refs/heads/${branch} `))
    .join('\n')
}

function cleanUp(record: WorktreeRecord): void {
  tryGit(repos.clone, 'worktree', 'unlock', record.path)
  tryGit(repos.clone, 'worktree', 'remove', '--force', '--force', record.path)
  fs.rmSync(record.path, { recursive: true, force: true })
  tryGit(repos.clone, 'worktree', 'prune')
  for (const ref of git(repos.clone, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n')) {
    if (ref && ref !== 'main') tryGit(repos.clone, 'branch', '-D', ref)
  }
  tryGit(repos.clone, 'stash', 'clear')
}

describe('generated agent scenarios', () => {
  it(`keep the invariant over ${CASES} cases`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { maxLength: 10 }),
        fc.constantFrom('keep' as const, 'remove' as const),
        fc.boolean(),
        async (actions, onExit, discardChanges) => {
          const id = ++counter
          const record = createLikeMain(repos, `case-${id}`)
          const adminDir = git(record.path, 'rev-parse', '--absolute-git-dir')
          try {
            for (const a of actions) perform(record.path, record, a, id)
            const folderBefore = fs.existsSync(record.path)
            const before = {
              unsaved: unsavedWork(record.path, record, adminDir),
              digest: folderBefore ? digest(record.path) : '',
              head: fs.readFileSync(path.join(adminDir, 'HEAD'), 'utf8'),
              refs: otherRefs(record.branch),
              branch: tryGit(repos.clone, 'show-ref', '--verify', '--quiet', `refs/heads/${record.branch}`)
            }
            const status = folderBefore ? git(record.path, 'status', '--porcelain', '--untracked-files=all') : ''
            const hadUnsaved = before.unsaved.files || before.unsaved.commits

            const result = await exitWorktree(record, { onExit, discardChanges, step: 'exit' })

            // Nothing outside this worktree and its branch is ever touched.
            expect(otherRefs(record.branch)).toBe(before.refs)
            if (result.removed) {
              expect(onExit).toBe('remove')
              expect(!hadUnsaved || discardChanges, `removed with unsaved work: ${JSON.stringify(before.unsaved)}`).toBe(true)
              expect(fs.existsSync(record.path)).toBe(false)
              expect(git(repos.clone, 'worktree', 'list', '--porcelain')).not.toContain(record.path)
            } else {
              if (folderBefore) {
                expect(digest(record.path)).toBe(before.digest)
                expect(git(record.path, 'status', '--porcelain', '--untracked-files=all')).toBe(status)
                expect(fs.readFileSync(path.join(adminDir, 'HEAD'), 'utf8')).toBe(before.head)
              }
              // The registration, with its HEAD, and the branch stay.
              expect(fs.existsSync(adminDir)).toBe(true)
              if (before.branch) expect(tryGit(repos.clone, 'show-ref', '--verify', '--quiet', `refs/heads/${record.branch}`)).toBe(true)
              // A worktree with nothing unsaved goes when asked: keeping is no escape hatch.
              expect(onExit === 'remove' && !hadUnsaved, `kept although clean: ${result.message}`).toBe(false)
            }
          } finally {
            cleanUp(record)
          }
        }
      ),
      { numRuns: CASES }
    )
  })
})
