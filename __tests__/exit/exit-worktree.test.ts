// Covers: src/exit/exit-worktree.ts, src/exit/remove-worktree.ts.
// The exit logic against real repositories, with the situations a workflow cannot easily stage.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RECORD_FILE, writeRecordFile, type WorktreeRecord } from '../../src/record/state-helper.js'
import { describeCommit, describeUncommitted } from '../../src/runner/report/words.js'
import { createLikeMain, exitAs, TEST_OWNER } from '../helpers/worktree.js'
import { addSubmodule, branchExists, commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'

let repos: Repos

beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

function created(name: string, overrides: Partial<WorktreeRecord> = {}): WorktreeRecord {
  return createLikeMain(repos, name, overrides)
}

const NO_OWNER = { ...TEST_OWNER, runner: '' }
const BASE = { onExitGiven: false, rescue: [], rescueMaxBytes: 1e8, ephemeral: false, inWorkspace: false, fileMode: true }
const remove = {}

describe('ownership', () => {
  it('proves ownership by the lock reason when the record file was never written (a crash right after git worktree add)', async () => {
    const record = created('crashed')
    fs.rmSync(path.join(git(record.path, 'rev-parse', '--absolute-git-dir'), RECORD_FILE))
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(true)
    expect(branchExists(repos.clone, record.branch)).toBe(false)
  })

  it('leaves alone a worktree at the recorded path that another job created', async () => {
    const record = created('contested')
    // Ours went away; another job made a worktree with the same name.
    git(repos.clone, 'worktree', 'unlock', record.path)
    git(repos.clone, 'worktree', 'remove', record.path)
    git(repos.clone, 'branch', '-D', record.branch)
    const other = created('contested', { token: 'someoneelse' })
    const result = await exitAs(record, remove)
    expect(result).toMatchObject({ removed: false, reason: 'gone' })
    expect(result.message).toContain('no longer a worktree')
    expect(fs.existsSync(other.path)).toBe(true)
    expect(branchExists(repos.clone, other.branch)).toBe(true)
  })

  it('never removes a worktree that someone else locked', async () => {
    const wt = path.join(repos.root, 'theirs')
    git(repos.clone, 'worktree', 'add', '--quiet', '--lock', '--reason', 'on a removable disk', '-b', 'theirs', wt)
    const record: WorktreeRecord = {
      ...BASE,
      token: 't',
      commonDir: path.join(repos.clone, '.git'),
      repository: repos.clone,
      path: wt,
      name: 'theirs',
      branch: 'theirs',
      baseSha: git(wt, 'rev-parse', 'HEAD'),
      created: false,
      onExit: 'remove',
      discardChanges: true,
      owner: NO_OWNER
    }
    writeRecordFile(git(wt, 'rev-parse', '--absolute-git-dir'), record)
    const result = await exitAs(record, { onExit: 'remove', discardChanges: true, step: 'exit' })
    expect(result).toMatchObject({ removed: false, warning: true })
    expect(result.message).toContain('locked by someone else (`on a removable disk`)')
    expect(fs.existsSync(wt)).toBe(true)
  })

  it('never removes the main worktree', async () => {
    const record: WorktreeRecord = {
      ...BASE,
      token: 't',
      commonDir: path.join(repos.clone, '.git'),
      repository: repos.clone,
      path: repos.clone,
      name: 'main',
      branch: 'main',
      baseSha: git(repos.clone, 'rev-parse', 'HEAD'),
      created: false,
      onExit: 'remove',
      discardChanges: true,
      owner: NO_OWNER
    }
    const result = await exitAs(record, { onExit: 'remove', discardChanges: true, step: 'exit' })
    expect(result).toMatchObject({ removed: false, reason: 'gone' })
    expect(result.message).toContain('no longer a worktree')
    expect(fs.existsSync(path.join(repos.clone, 'README.md'))).toBe(true)
  })
})

describe('saved means the remote has it, by its own word', () => {
  it('a remote-tracking ref written at an unpushed commit (by the agent, or another job of a shared clone) saves nothing', async () => {
    const record = created('forged-remote')
    const tip = commit(record.path, 'work.txt')
    git(repos.clone, 'update-ref', 'refs/remotes/origin/looks-pushed', tip)
    const result = await exitAs(record)
    expect(result).toMatchObject({ removed: false, reason: 'unsaved' })
    expect(result.findings?.unsavedCommits).toEqual([expect.objectContaining({ subject: 'add work.txt' })])
    expect(branchExists(repos.clone, record.branch)).toBe(true)
  })

  it('work the remote has is saved: the worktree goes', async () => {
    const record = created('really-pushed')
    commit(record.path, 'work.txt')
    git(record.path, 'push', '--quiet', 'origin', `HEAD:refs/heads/${record.branch}`)
    const result = await exitAs(record)
    expect(result, result.message).toMatchObject({ removed: true, reason: 'clean' })
  })

  it("a pull request's head (refs/pull/<n>/head) is on the remote; its merge ref and look-alike names are not", async () => {
    const record = created('pull-heads')
    const merged = commit(record.path, 'merged.txt')
    const lookAlike = commit(record.path, 'look-alike.txt')
    const test = commit(record.path, 'merge-ref.txt')
    git(record.path, 'push', '--quiet', repos.origin, `${merged}:refs/pull/12/head`, `${lookAlike}:refs/other/pull/13/head`, `${test}:refs/pull/12/merge`)
    // Saved: the first, and nothing past it.
    const result = await exitAs(record)
    expect(result).toMatchObject({ removed: false, reason: 'unsaved' })
    expect(result.findings?.unsavedCommits.map(c => c.subject)).toEqual(['add merge-ref.txt', 'add look-alike.txt'])
  })

  it('a remote that cannot be asked proves nothing: unpushed-looking work is kept, and the message says why', async () => {
    const record = created('unasked', { push: { remote: 'origin', url: path.join(repos.root, 'gone.git') } })
    const tip = commit(record.path, 'work.txt')
    git(record.path, 'push', '--quiet', 'origin', `HEAD:refs/heads/${record.branch}`)
    expect(git(repos.clone, 'rev-parse', `refs/remotes/origin/${record.branch}`)).toBe(tip)
    const result = await exitAs(record)
    expect(result).toMatchObject({ removed: false, reason: 'unsaved' })
    expect(result.findings?.remoteUnasked).toMatch(/ls-remote `origin` failed/)
    expect(result.message).toContain('the remote could not be asked whether it has them')
  })
})

describe('what the gate found is data', () => {
  it('a commit whose subject holds ": " is not taken for a repository of its own, which the rescue would leave out', async () => {
    const record = created('colon')
    write(record.path, 'fix.txt', 'fixed\n')
    git(record.path, 'add', 'fix.txt')
    git(record.path, 'commit', '--quiet', '-m', 'fix: the flaky test')
    const result = await exitAs(record)
    expect(result).toMatchObject({ removed: false, reason: 'unsaved' })
    expect(result.findings?.unsavedCommits).toEqual([expect.objectContaining({ subject: 'fix: the flaky test' })])
    expect(result.rescue?.snapshot?.leftOut).toEqual([])
  })
})

describe('a base that cannot be read', () => {
  it('marks nothing as saved: an unknown base keeps unpushed commits, even where discard-changes is not set', async () => {
    const record = { ...created('nobase'), baseSha: 'f'.repeat(40) }
    commit(record.path, 'a.txt')
    const result = await exitAs(record)
    expect(result).toMatchObject({ removed: false, reason: 'unsaved' })
    expect(result.findings?.unsavedCommits).toHaveLength(1)
    expect(branchExists(repos.clone, record.branch)).toBe(true)
  })

  it('and removes a worktree whose every commit is on a remote anyway', async () => {
    const record = { ...created('empty'), baseSha: '' }
    expect((await exitAs(record)).removed).toBe(true)
  })
})

describe('a worktree folder replaced by a symbolic link', () => {
  it('is never inspected or removed as ours, even with discard-changes', async () => {
    const record = created('swapped')
    const elsewhere = path.join(repos.root, 'precious')
    write(elsewhere, 'data.txt', 'keep me\n')
    fs.renameSync(record.path, `${record.path}.moved`)
    fs.symlinkSync(elsewhere, record.path)
    const result = await exitAs(record, { onExit: 'remove', discardChanges: true, step: 'post' })
    expect(result).toMatchObject({ removed: false, warning: true })
    expect(result.message).toContain('no longer a plain folder')
    expect(fs.readFileSync(path.join(elsewhere, 'data.txt'), 'utf8')).toBe('keep me\n')
  })
})

describe('a .git file that points elsewhere', () => {
  it('is never inspected or removed as ours, even with discard-changes', async () => {
    const record = created('repointed')
    const other = path.join(repos.root, 'other-repo')
    git(repos.root, 'init', '--quiet', '-b', 'main', other)
    commit(other, 'precious.txt')
    fs.writeFileSync(path.join(record.path, '.git'), `gitdir: ${path.join(other, '.git')}\n`)
    const result = await exitAs(record, { onExit: 'remove', discardChanges: true, step: 'post' })
    expect(result).toMatchObject({ removed: false, warning: true })
    expect(result.message).toContain('.git file no longer points to its git dir')
    expect(git(other, 'log', '--format=%s')).toBe('add precious.txt')
    expect(fs.existsSync(record.path)).toBe(true)
  })
})

describe('submodules', () => {
  function withSubmodule(name: string): { record: WorktreeRecord; sub: string } {
    addSubmodule(repos)
    const record = created(name)
    git(record.path, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--quiet')
    return { record, sub: path.join(record.path, 'lib') }
  }

  it('removes a clean worktree with an initialised submodule (git alone would refuse)', async () => {
    const { record } = withSubmodule('sub-clean')
    const result = await exitAs(record, remove)
    expect(result.message).toContain('nothing unsaved')
    expect(result.removed).toBe(true)
    expect(fs.existsSync(record.path)).toBe(false)
  })

  it('keeps a worktree whose submodule has uncommitted files', async () => {
    const { record, sub } = withSubmodule('sub-dirty')
    write(sub, 'draft.txt', 'x\n')
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(false)
    expect(result.findings?.uncommitted).toEqual([{ code: ' M', path: 'lib' }])
  })

  it('keeps a worktree with files written into a submodule never set up, which git lists nowhere', async () => {
    addSubmodule(repos)
    const record = created('sub-never-set-up')
    const sub = path.join(record.path, 'lib')
    expect(fs.readdirSync(sub)).toEqual([])
    write(sub, 'notes.txt', 'the agent wrote here\n')
    expect(git(record.path, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(false)
    expect(result.findings?.uncommitted).toEqual([{ code: ' M', path: 'lib' }])
    expect(fs.readFileSync(path.join(sub, 'notes.txt'), 'utf8')).toBe('the agent wrote here\n')
  })

  it('removes a worktree whose submodule was never set up and holds nothing', async () => {
    addSubmodule(repos)
    const record = created('sub-empty')
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(true)
  })

  it('keeps a worktree whose submodule has a commit on a local branch only', async () => {
    const { record, sub } = withSubmodule('sub-branch')
    git(sub, 'switch', '--quiet', '-c', 'fix')
    commit(sub, 'fix.txt')
    git(sub, 'switch', '--quiet', '--detach', 'HEAD~1')
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(false)
    expect(result.findings?.unsavedCommits.map(describeCommit)).toEqual([expect.stringMatching(/^`lib`: [0-9a-f]+ `add fix\.txt`$/)])
  })
})

describe('what counts as unsaved', () => {
  it('counts commits on a branch the agent created and switched to, on a machine that does not stay', async () => {
    const record = created('own-branch', { ephemeral: true })
    git(record.path, 'switch', '--quiet', '-c', 'agent-idea')
    commit(record.path, 'idea.txt')
    const result = await exitAs(record)
    expect(result.removed).toBe(false)
    expect(result.findings?.unsavedCommits).toEqual([expect.objectContaining({ subject: 'add idea.txt' })])
  })

  it('counts staged, modified, deleted and untracked files, not ignored ones', async () => {
    const record = created('kinds')
    write(record.path, 'staged.txt', 's\n')
    git(record.path, 'add', 'staged.txt')
    write(record.path, 'src/app.txt', 'modified\n')
    fs.rmSync(path.join(record.path, 'README.md'))
    write(record.path, 'deep/new/file.txt', 'u\n')
    write(record.path, 'build/out.bin', 'ignored\n')
    write(record.path, 'trace.log', 'ignored\n')
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(false)
    expect(result.findings?.uncommitted.map(describeUncommitted).sort()).toEqual(
      ['?? `deep/new/file.txt`', 'A  `staged.txt`', ' D `README.md`', ' M `src/app.txt`'].sort()
    )
  })

  it('removes a worktree whose only extra files are ignored, and them with it', async () => {
    const record = created('ignored')
    write(record.path, 'build/out.bin', 'ignored\n')
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(true)
  })

  it('treats a commit that reached a remote-tracking ref as saved', async () => {
    const record = created('pushed')
    commit(record.path, 'a.txt')
    git(record.path, 'push', '--quiet', 'origin', 'HEAD:refs/heads/feature')
    expect((await exitAs(record, remove)).removed).toBe(true)
  })

  it('treats a commit merged into the base history as saved', async () => {
    const record = created('merged')
    commit(record.path, 'a.txt')
    // The base moved on to include the work (as after a fast-forward merge).
    const result = await exitAs({ ...record, baseSha: git(record.path, 'rev-parse', 'HEAD') }, remove)
    expect(result.removed).toBe(true)
  })

  it('counts commits on a detached HEAD', async () => {
    const record = created('detached')
    git(record.path, 'checkout', '--quiet', '--detach')
    commit(record.path, 'a.txt')
    const result = await exitAs(record, remove)
    expect(result.findings?.unsavedCommits).toHaveLength(1)
    expect(result.removed).toBe(false)
  })
})

describe('a worktree whose folder the agent deleted', () => {
  it('drops the registration and the branch when nothing was committed', async () => {
    const record = created('deleted')
    fs.rmSync(record.path, { recursive: true, force: true })
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(true)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    expect(branchExists(repos.clone, record.branch)).toBe(false)
  })

  it('keeps the branch, and the registration, when it carries unsaved commits', async () => {
    const record = created('deleted-work')
    commit(record.path, 'a.txt')
    fs.rmSync(record.path, { recursive: true, force: true })
    const result = await exitAs(record, remove)
    expect(result.removed).toBe(false)
    expect(result.findings?.unsavedCommits).toHaveLength(1)
    expect(branchExists(repos.clone, record.branch)).toBe(true)
  })
})

describe('kept at the end of the job, in a repository the next actions/checkout prepares', () => {
  it('a sparse one reads its own configuration without extensions.worktreeConfig; the include goes when the worktree goes', async () => {
    const record = created('sparse-include', { inWorkspace: true })
    const gitDir = git(record.path, 'rev-parse', '--absolute-git-dir')
    const config = (): string => fs.readFileSync(path.join(repos.clone, '.git', 'config'), 'utf8')
    git(record.path, 'sparse-checkout', 'set', '--cone', 'src')
    write(record.path, 'src/draft.txt', 'draft\n')
    const kept = await exitAs(record)
    expect(kept).toMatchObject({ removed: false, detached: record.branch })
    expect(config()).toContain(path.join(gitDir, 'config.worktree'))
    // What actions/checkout v7 does to the shared config on every run.
    git(repos.clone, 'config', '--local', '--unset-all', 'extensions.worktreeConfig')
    expect(git(record.path, 'sparse-checkout', 'list')).toBe('src')
    fs.rmSync(path.join(record.path, 'src', 'draft.txt'))
    // As the exit sub-action believes a record this job sealed: a hint proves no commit saved.
    const removed = await exitAs(record, { step: 'exit', source: 'sealed' })
    expect(removed.removed, removed.message).toBe(true)
    expect(config()).not.toContain('config.worktree')
  })
})
