// Covers: src/exit/exit-worktree.ts, src/exit/worktree-pool.ts, src/gate/safety-gate.ts, src/gate/findings.ts.
// Generated scenarios: random sequences of what an agent does in its worktree, then a random exit,
// against a real repository through the real exit code. The invariant: after any sequence and an exit
// without discard-changes, every commit the agent ever made and every non-ignored file it left is still
// in the repository or on the remote; a worktree with nothing unsaved goes when asked; nothing else
// changes. The same holds for a worktree entered by path and for one that was parked in the pool.
// More cases: AGENT_WORKTREE_CASES=5000 npm run test:scenarios
import * as fs from 'node:fs'
import * as path from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { currentOwner } from '../../src/record/ownership.js'
import { openRepository } from '../../src/git/repository.js'
import { writeRecordFile, type WorktreeRecord } from '../../src/record/state-helper.js'
import { takeParked } from '../../src/exit/worktree-pool.js'
import { kindFor } from '../../src/exit/kinds/kind.js'
import { heldBackWhy } from '../../src/runner/report/enter.js'
import { type OnRemote } from '../../src/remote/tips.js'
import { remoteTips } from '../../src/remote/tips.js'
import { git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { createLikeMain, exitAs } from '../helpers/worktree.js'

/** A case takes some 220 ms on two cores: 5,000 (npm run test:scenarios) need some 20 minutes. */
const CASES = Number(process.env.AGENT_WORKTREE_CASES ?? 200)
const TIMEOUT = Math.max(600_000, CASES * 400)

type Action =
  | { kind: 'edit' | 'delete' | 'skip-worktree' | 'assume-unchanged'; pick: number }
  | { kind: 'create' | 'ignored' | 'push' | 'branch' | 'worktree-ref'; n: number }
  | { kind: 'stage' | 'commit' | 'commit-all' | 'detach' | 'restart' | 'switch-back' | 'stash' | 'reset-hard' | 'nested' | 'move' | 'rmdir' }

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constantFrom('edit' as const, 'delete' as const), pick: fc.nat(20) }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constantFrom('skip-worktree' as const, 'assume-unchanged' as const), pick: fc.nat(20) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constantFrom('create' as const, 'ignored' as const, 'push' as const, 'branch' as const), n: fc.nat(3) }), weight: 8 },
  { arbitrary: fc.record({ kind: fc.constant('worktree-ref' as const), n: fc.nat(2) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'stage' as const,
        'commit' as const,
        'commit-all' as const,
        'detach' as const,
        'restart' as const,
        'switch-back' as const,
        'stash' as const,
        'reset-hard' as const
      )
    }),
    weight: 12
  },
  // Rarer: a nested worktree with work in an ignored folder, a move, the whole folder deleted.
  { arbitrary: fc.constantFrom({ kind: 'nested' as const }, { kind: 'move' as const }, { kind: 'rmdir' as const }), weight: 2 }
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

interface Agent {
  /** Where the worktree is now: the agent may move it. */
  wt: string
  base: string
  branch: string
  /** Every commit the agent made. */
  commits: string[]
}

function perform(agent: Agent, a: Action, id: number): void {
  const wt = agent.wt
  if (!fs.existsSync(wt)) return
  const tracked = git(wt, 'ls-files')
    .split('\n')
    .filter(f => f && f !== '.gitignore')
  const commitNow = (): void => {
    if (tryGit(wt, 'commit', '--quiet', '-m', `agent commit ${id}`)) agent.commits.push(git(wt, 'rev-parse', 'HEAD'))
  }
  switch (a.kind) {
    case 'edit':
      if (tracked.length) write(wt, tracked[a.pick % tracked.length], `edited ${Math.random()}\n`)
      break
    case 'delete':
      if (tracked.length) fs.rmSync(path.join(wt, tracked[a.pick % tracked.length]), { force: true })
      break
    case 'skip-worktree':
    case 'assume-unchanged':
      if (tracked.length) {
        const file = tracked[a.pick % tracked.length]
        tryGit(wt, 'update-index', `--${a.kind}`, '--', file)
        write(wt, file, `hidden edit ${Math.random()}\n`)
      }
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
      commitNow()
      break
    case 'commit-all':
      tryGit(wt, 'add', '-A')
      commitNow()
      break
    case 'restart':
      // Starts over from the base, leaving earlier commits behind wherever they are.
      tryGit(wt, 'switch', '--quiet', '--detach', agent.base)
      break
    case 'reset-hard':
      tryGit(wt, 'reset', '--quiet', '--hard', 'HEAD~1')
      break
    case 'push':
      tryGit(wt, 'push', '--quiet', 'origin', `HEAD:refs/heads/pushed-${id}-${a.n}`)
      break
    case 'branch':
      if (!tryGit(wt, 'switch', '--quiet', '-c', `agent-${id}-${a.n}`)) tryGit(wt, 'switch', '--quiet', `agent-${id}-${a.n}`)
      break
    case 'worktree-ref':
      tryGit(wt, 'update-ref', `refs/worktree/keep-${a.n}`, 'HEAD')
      break
    case 'switch-back':
      if (agent.branch) tryGit(wt, 'switch', '--quiet', agent.branch)
      break
    case 'detach':
      tryGit(wt, 'switch', '--quiet', '--detach')
      break
    case 'stash':
      tryGit(wt, 'stash', 'push', '--quiet', '--include-untracked')
      break
    case 'nested': {
      const nested = path.join(wt, 'build', `nested-${id}`)
      if (tryGit(wt, 'worktree', 'add', '--quiet', '--detach', nested)) write(nested, 'draft.txt', `nested ${Math.random()}\n`)
      break
    }
    case 'move': {
      const moved = `${wt}-moved`
      if (fs.existsSync(moved)) break
      fs.renameSync(wt, moved)
      tryGit(moved, 'worktree', 'repair')
      agent.wt = moved
      break
    }
    case 'rmdir':
      fs.rmSync(wt, { recursive: true, force: true })
      break
  }
}

/** Every file the agent left that git does not ignore, with its content. */
function leftFiles(wt: string): Map<string, string> {
  const files = new Map<string, string>()
  if (!fs.existsSync(wt)) return files
  for (const file of git(wt, 'ls-files', '-z', '--cached', '--others', '--exclude-standard').split('\0')) {
    const full = path.join(wt, file)
    if (file && fs.lstatSync(full, { throwIfNoEntry: false })?.isFile()) files.set(file, fs.readFileSync(full, 'utf8'))
  }
  return files
}

function reachable(): Set<string> {
  return new Set([...git(repos.clone, 'rev-list', '--all').split('\n'), ...git(repos.origin, 'rev-list', '--all').split('\n')])
}

function otherRefs(record: WorktreeRecord): string {
  return git(repos.clone, 'for-each-ref', '--format=%(refname) %(objectname)')
    .split('\n')
    .filter(l => !l.startsWith(`refs/heads/${record.branch} `) && !l.startsWith('refs/agent-worktree/') && !l.startsWith('refs/heads/agent-'))
    .join('\n')
}

function cleanUp(): void {
  for (const entry of git(repos.clone, 'worktree', 'list', '--porcelain').split('\n\n').slice(1)) {
    const wt = entry.split('\n')[0].slice('worktree '.length)
    if (!wt) continue
    tryGit(repos.clone, 'worktree', 'unlock', wt)
    tryGit(repos.clone, 'worktree', 'remove', '--force', '--force', wt)
    fs.rmSync(wt, { recursive: true, force: true })
  }
  tryGit(repos.clone, 'worktree', 'prune')
  for (const ref of git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/agent-worktree/').split('\n')) {
    if (ref && ref !== 'refs/heads/main') tryGit(repos.clone, 'update-ref', '-d', ref)
  }
  tryGit(repos.clone, 'stash', 'clear')
}

/**
 * The invariant, after the exit. `before` is what the agent left. Kept: the folder holds every file as
 * left; removed: only when nothing unsaved existed or discard-changes was set. Either way every commit
 * the agent made is reachable from a ref here or on the remote.
 */
async function exitAndCheck(record: WorktreeRecord, agent: Agent, onExit: 'keep' | 'remove', discardChanges: boolean): Promise<void> {
  const left = leftFiles(agent.wt)
  const refs = otherRefs(record)
  const result = await exitAs(record, { onExit, discardChanges, step: 'exit' })
  expect(otherRefs(record), 'a ref outside this worktree changed').toBe(refs)
  if (discardChanges && result.removed) return
  const all = reachable()
  for (const sha of agent.commits) expect(all.has(sha), `commit ${sha} lost: ${result.message}`).toBe(true)
  if (result.removed) {
    expect(onExit).toBe('remove')
    expect(fs.existsSync(agent.wt)).toBe(false)
    // Nothing unsaved: every file left was committed, in a commit that outlives the worktree.
    const head = result.findings!.head!
    for (const [file, content] of left) expect(git(repos.clone, 'show', `${head}:${file}`) + '\n', `${file} lost: ${result.message}`).toBe(content)
  } else {
    for (const [file, content] of left) expect(fs.readFileSync(path.join(result.path, file), 'utf8'), `${file} changed`).toBe(content)
    if (onExit === 'remove' && !discardChanges) expect(result.reason, result.message).not.toBe('clean')
  }
}

describe('generated agent scenarios', () => {
  it(`keep the invariant over ${CASES} cases`, { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { maxLength: 10 }),
        fc.constantFrom('keep' as const, 'remove' as const),
        fc.boolean(),
        async (actions, onExit, discardChanges) => {
          const id = ++counter
          const record = createLikeMain(repos, `case-${id}`)
          const agent: Agent = { wt: record.path, base: record.baseSha, branch: record.branch, commits: [] }
          try {
            for (const a of actions) perform(agent, a, id)
            await exitAndCheck(record, agent, onExit, discardChanges)
          } finally {
            cleanUp()
          }
        }
      ),
      { numRuns: CASES }
    )
  })

  it(`keep it for worktrees entered by path, ${Math.ceil(CASES / 8)} cases`, { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 8 }), fc.boolean(), async (actions, preCommit) => {
        const id = ++counter
        const wt = path.join(repos.root, 'by-hand', `path-${id}`)
        git(repos.clone, 'worktree', 'add', '--quiet', '--detach', wt)
        const agent: Agent = { wt, base: git(wt, 'rev-parse', 'HEAD'), branch: '', commits: [] }
        // Commits made before the job entered it count as much as the agent's.
        if (preCommit) {
          perform(agent, { kind: 'create', n: 0 }, id)
          perform(agent, { kind: 'commit-all' }, id)
        }
        const record = adopted(wt, id, true)
        try {
          for (const a of actions) perform(agent, a, id)
          await exitAndCheck(record, agent, 'remove', false)
        } finally {
          cleanUp()
        }
      }),
      { numRuns: Math.ceil(CASES / 8) }
    )
  })

  it(`keep it for a worktree used while parked in the pool, ${Math.ceil(CASES / 8)} cases`, { timeout: TIMEOUT }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { maxLength: 8 }), async actions => {
        const id = ++counter
        const record = createLikeMain(repos, `pool-${id}`, { recycle: true })
        expect((await exitAs(record)).reason).toBe('parked')
        const agent: Agent = { wt: record.path, base: git(record.path, 'rev-parse', 'HEAD'), branch: '', commits: [] }
        try {
          for (const a of actions) perform(agent, a, id)
          const used = usedSince(agent, record.baseSha)
          const left = leftFiles(agent.wt)
          const repo = await openRepository(repos.clone, 'repository-path')
          const next = { ...adopted(path.join(repos.root, 'wts', `taker-${id}`), id, false), branch: `taker-${id}`, created: true, baseSha: record.baseSha }
          const onRemote = (): Promise<OnRemote> => remoteTips(repo, record.push)
          const refused = (said: string): Error => new Error(said)
          const taking = { lockReason: `agent-worktree ${next.token}: test`, also: [], refused, describe: heldBackWhy, push: record.push, onRemote }
          const taken = await takeParked(kindFor(next), repo, next, taking)
          if (used) {
            expect(taken?.made?.entry ?? '', `handed out a parked worktree that was used: ${JSON.stringify(actions)}`).toBe('')
            for (const [file, content] of left) expect(fs.readFileSync(path.join(agent.wt, file), 'utf8')).toBe(content)
          }
          const all = new Set([...reachable(), ...(fs.existsSync(agent.wt) ? git(agent.wt, 'rev-list', '--reflog').split('\n') : [])])
          for (const sha of agent.commits) expect(all.has(sha), `commit ${sha} lost`).toBe(true)
        } finally {
          cleanUp()
        }
      }),
      { numRuns: Math.ceil(CASES / 8) }
    )
  })
})

/** Whether anything appeared in a parked worktree since `head`: a file on disk that differs, or a commit. */
function usedSince(agent: Agent, head: string): boolean {
  if (!fs.existsSync(agent.wt)) return false
  if (agent.commits.length || git(agent.wt, 'rev-parse', 'HEAD') !== head) return true
  const tracked = new Set(git(repos.clone, 'ls-tree', '-r', '--name-only', head).split('\n'))
  const onDisk = fs
    .readdirSync(agent.wt, { recursive: true, withFileTypes: true })
    .filter(e => !e.isDirectory())
    .map(e => path.relative(agent.wt, path.join(e.parentPath, e.name)))
    .filter(f => f !== '.git' && !f.includes(`${path.sep}.git`))
  if (onDisk.length !== tracked.size) return true
  return onDisk.some(f => !tracked.has(f) || fs.readFileSync(path.join(agent.wt, f), 'utf8') !== git(repos.clone, 'show', `${head}:${f}`) + '\n')
}

/** A record as enterByPath writes one, for a worktree the action did not create; `enter` locks it and writes it as enter does. */
function adopted(wt: string, id: number, enter: boolean): WorktreeRecord {
  const record = recordFor(wt, id)
  if (enter) {
    const gitDir = git(wt, 'rev-parse', '--absolute-git-dir')
    record.id = path.basename(gitDir)
    record.baseSha = git(wt, 'rev-parse', 'HEAD')
    fs.writeFileSync(path.join(gitDir, 'locked'), `agent-worktree ${record.token}: test`)
    writeRecordFile(gitDir, record)
  }
  return record
}

function recordFor(wt: string, id: number): WorktreeRecord {
  return {
    token: `${id.toString(16)}${'0'.repeat(16)}`.slice(0, 16),
    repository: repos.clone,
    commonDir: path.join(repos.clone, '.git'),
    path: wt,
    name: path.basename(wt),
    branch: '',
    baseSha: '',
    created: false,
    checkedOut: true,
    onExit: 'remove',
    onExitGiven: true,
    discardChanges: false,
    rescue: [],
    rescueMaxBytes: 1e8,
    ephemeral: false,
    inWorkspace: false,
    fileMode: true,
    owner: currentOwner()
  }
}
