// A worktree made as the main step makes one: locked with a token, its record in its git dir.
import { afterEach, beforeEach } from 'vitest'
import * as path from 'node:path'
import { evidenceOf, type Source } from '../../src/exit/evidence.js'
import { exitWorktree, type ExitOptions, type ExitResult } from '../../src/exit/exit-worktree.js'
import { messageOf } from '../../src/runner/report/exit.js'
import type { Owner } from '../../src/record/ownership.js'
import { Git } from '../../src/git/git-command-manager.js'
import { openRepository } from '../../src/git/repository.js'
import type { GateInput } from '../../src/gate/safety-gate.js'
import { writeRecordFile, type WorktreeRecord } from '../../src/record/state-helper.js'
import { git, makeRepos, type Repos } from './repos.js'

export const TEST_OWNER: Owner = {
  runner: 'runner-1',
  host: 'test-host',
  workFolder: '/runner/_work',
  run: '1-1',
  job: 'agents',
  tracking: 'github_test',
  since: new Date().toISOString()
}

export function createLikeMain(repos: Repos, name: string, overrides: Partial<WorktreeRecord> = {}): WorktreeRecord {
  const wt = path.join(repos.root, 'wts', name)
  const token = `${name.replace(/[^a-f0-9]/gi, '').toLowerCase()}${'0'.repeat(16)}`.slice(0, 16)
  const record: WorktreeRecord = {
    token,
    repository: repos.clone,
    commonDir: path.join(repos.clone, '.git'),
    path: wt,
    name,
    branch: `worktree-${name}`,
    baseSha: git(repos.clone, 'rev-parse', 'HEAD'),
    created: true,
    checkedOut: true,
    onExit: 'remove',
    onExitGiven: false,
    discardChanges: false,
    rescue: [],
    rescueMaxBytes: 100 * 1024 * 1024,
    ephemeral: false,
    inWorkspace: false,
    fileMode: true,
    owner: TEST_OWNER,
    // The remote the main step pins at enter: only its word makes a commit saved.
    push: { remote: 'origin', url: repos.origin },
    ...overrides
  }
  git(repos.clone, 'worktree', 'add', '--quiet', '--lock', '--reason', `agent-worktree ${record.token}: test`, '-b', record.branch, wt, record.baseSha)
  const gitDir = git(wt, 'rev-parse', '--absolute-git-dir')
  record.id = path.basename(gitDir)
  writeRecordFile(gitDir, record)
  return record
}

/**
 * The exit as the post step runs it (its own record), unless options say otherwise: the exit sub-action and
 * the sweep believe the record only as a hint (no seal here). Returns the result with its message.
 */
export async function exitAs(record: WorktreeRecord, options: Partial<ExitOptions> & { source?: Source } = {}): Promise<ExitResult & { message: string }> {
  const repo = await openRepository(record.repository, 'repository-path')
  const step = options.step ?? 'post'
  const evidence = evidenceOf(record, options.source ?? (step === 'post' ? 'state' : 'hint'))
  const result = await exitWorktree(evidence, { onExit: 'remove', discardChanges: false, rescue: [], ...options, step }, repo)
  return { ...result, message: messageOf(result) }
}

/**
 * For every test of the file that calls it: a fresh repository with a linked worktree in a folder `name` on a new
 * branch `w`, and the gate's input for it as an exit gives it (the branch goes with it). Its fields are read inside a
 * test.
 */
export function eachLinkedWorktree(name = 'wt'): { folder: string; input: GateInput } {
  const each = {} as { folder: string; input: GateInput }
  let repos: Repos | undefined
  beforeEach(() => {
    repos = makeRepos()
    Object.assign(each, linkedWorktree(repos, name))
  })
  afterEach(() => repos?.cleanup())
  return each
}

function linkedWorktree(repos: Repos, name: string): { folder: string; input: GateInput } {
  const folder = path.join(repos.root, name)
  git(repos.clone, 'worktree', 'add', '--quiet', '-b', 'w', folder)
  const input: GateInput = {
    repository: new Git(repos.clone),
    commonDir: path.join(repos.clone, '.git'),
    gitDir: git(folder, 'rev-parse', '--absolute-git-dir'),
    folder,
    fileMode: true,
    branchesToDelete: ['w'],
    machineStays: true,
    ownLinks: [],
    expectIndex: true,
    sparse: false,
    baseSha: git(repos.clone, 'rev-parse', 'HEAD'),
    onRemote: () => Promise.resolve({ tips: [] }),
    localRefsSurvive: false,
    indexMemo: {}
  }
  return { folder, input }
}
