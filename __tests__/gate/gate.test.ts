// Covers: src/gate/safety-gate.ts, src/gate/nested-repositories.ts, src/gate/delete-branch.ts.
// The gate sees every commit and every file the agent made, whatever git is told to hide: real git in
// real repositories, each case one thing an agent does that once made the gate say "nothing unsaved".
import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deleteBranch } from '../../src/gate/delete-branch.js'
import { describeNested, describeUncommitted } from '../../src/runner/report/words.js'
import { openRepository } from '../../src/git/repository.js'
import type { WorktreeRecord } from '../../src/record/state-helper.js'
import { commit, git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { createLikeMain, exitAs } from '../helpers/worktree.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos({ 'README.md': '# sample\n', 'src/app.txt': 'app\n', 'src/lib.txt': 'lib\n' })
})
afterEach(() => repos.cleanup())

function created(name: string, overrides: Partial<WorktreeRecord> = {}): WorktreeRecord {
  return createLikeMain(repos, name, overrides)
}

function gitDirOf(record: WorktreeRecord): string {
  return path.join(repos.clone, '.git', 'worktrees', record.id!)
}

/** Every commit is still reachable from some ref, HEAD or reflog of the repository. */
function reachable(sha: string): boolean {
  try {
    git(repos.clone, 'cat-file', '-e', `${sha}^{commit}`)
  } catch {
    return false
  }
  return git(repos.clone, 'rev-list', '--all', '--reflog').split('\n').includes(sha)
}

describe('files that git is told to hide', () => {
  it('keeps a worktree whose index was deleted: its state is unknown', async () => {
    const record = created('no-index')
    write(record.path, 'src/app.txt', 'work\n')
    fs.rmSync(path.join(gitDirOf(record), 'index'))
    const result = await exitAs(record)
    expect(result).toMatchObject({ removed: false, reason: 'unknown' })
    expect(result.findings?.error).toContain('no index')
    expect(fs.readFileSync(path.join(record.path, 'src/app.txt'), 'utf8')).toBe('work\n')
  })

  it('removes a worktree without an index when the main step provably never finished its checkout', async () => {
    const record = created('never-checked-out', { checkedOut: false })
    fs.rmSync(path.join(gitDirOf(record), 'index'))
    const result = await exitAs(record)
    expect(result.removed).toBe(true)
  })

  it.each(['--skip-worktree', '--assume-unchanged'])('counts an edit to a file marked %s', async flag => {
    const record = created(`hidden${flag}`)
    git(record.path, 'update-index', flag, 'src/app.txt')
    write(record.path, 'src/app.txt', 'hidden edit\n')
    expect(git(record.path, 'status', '--porcelain')).toBe('')
    const result = await exitAs(record)
    expect(result.removed).toBe(false)
    expect(result.findings?.uncommitted).toEqual([{ code: ' M', path: 'src/app.txt' }])
    // The worktree's own index keeps its bits: the gate works on a copy.
    expect(git(record.path, 'ls-files', '-v', 'src/app.txt')).toMatch(/^[hS] /)
  })

  it.each(['shared', 'per-worktree'])('is not blinded by an fsmonitor in the %s config that reports nothing changed', async where => {
    const record = created(`fsmonitor-${where}`)
    const hook = path.join(repos.root, 'fsmonitor.sh')
    fs.writeFileSync(hook, '#!/bin/sh\nprintf "0\\0"\n', { mode: 0o755 })
    if (where === 'shared') git(repos.clone, 'config', 'core.fsmonitor', hook)
    else {
      git(repos.clone, 'config', 'extensions.worktreeConfig', 'true')
      git(record.path, 'config', '--worktree', 'core.fsmonitor', hook)
    }
    write(record.path, 'src/app.txt', 'edit\n')
    write(record.path, 'new.txt', 'new\n')
    const result = await exitAs(record)
    expect(result.removed).toBe(false)
    expect(result.findings?.uncommitted.map(describeUncommitted).sort()).toEqual([' M `src/app.txt`', '?? `new.txt`'])
  })

  it('runs no hook of the repository: hooksPath and a reference-transaction hook stay silent', async () => {
    const record = created('hooks')
    const hooks = path.join(repos.root, 'hooks')
    const marker = path.join(repos.root, 'hook-ran')
    fs.mkdirSync(hooks)
    for (const name of ['reference-transaction', 'post-checkout', 'pre-push']) {
      fs.writeFileSync(path.join(hooks, name), `#!/bin/sh\necho ${name} >> ${marker}\n`, { mode: 0o755 })
    }
    git(repos.clone, 'config', 'core.hooksPath', hooks)
    const result = await exitAs(record)
    expect(result.removed).toBe(true)
    expect(fs.existsSync(marker)).toBe(false)
  })

  it('counts untracked files that only a global excludes file would hide', async () => {
    const record = created('global-excludes')
    const excludes = path.join(repos.root, 'global-ignore')
    fs.writeFileSync(excludes, '*.txt\n')
    git(repos.clone, 'config', 'core.excludesFile', excludes)
    write(record.path, 'notes.txt', 'work\n')
    const result = await exitAs(record)
    expect(result.findings?.uncommitted).toEqual([{ code: '??', path: 'notes.txt' }])
  })

  it('sees a mode change when the agent turned core.fileMode off', async () => {
    const record = created('filemode')
    git(repos.clone, 'config', 'core.fileMode', 'false')
    fs.chmodSync(path.join(record.path, 'src/app.txt'), 0o755)
    const result = await exitAs(record)
    expect(result.findings?.uncommitted).toEqual([{ code: ' M', path: 'src/app.txt' }])
  })
})

describe('commits the agent made and stepped away from', () => {
  it('counts commits on a detached HEAD followed by a fresh start from the base', async () => {
    const record = created('detached-restart')
    git(record.path, 'switch', '--quiet', '--detach')
    const lost = commit(record.path, 'idea.txt')
    git(record.path, 'switch', '--quiet', record.branch)
    const result = await exitAs(record)
    expect(result.removed).toBe(false)
    expect(result.findings?.unsavedCommits).toEqual([expect.objectContaining({ subject: 'add idea.txt' })])
    expect(reachable(lost)).toBe(true)
  })

  it('counts a commit dropped by reset --hard HEAD~1', async () => {
    const record = created('reset')
    const lost = commit(record.path, 'a.txt')
    git(record.path, 'reset', '--quiet', '--hard', 'HEAD~1')
    const result = await exitAs(record)
    expect(result.findings?.unsavedCommits).toHaveLength(1)
    expect(result.removed).toBe(false)
    expect(reachable(lost)).toBe(true)
  })

  it('counts commits left behind by checkout -B <branch> <base>', async () => {
    const record = created('checkout-b')
    commit(record.path, 'a.txt')
    commit(record.path, 'b.txt')
    git(record.path, 'checkout', '--quiet', '-B', record.branch, record.baseSha)
    const result = await exitAs(record)
    expect(result.findings?.unsavedCommits).toHaveLength(2)
    expect(result.removed).toBe(false)
  })

  it('counts the side branch of a merge left in progress, whose MERGE_HEAD is its only ref', async () => {
    const record = created('merge')
    git(record.path, 'switch', '--quiet', '-c', 'side')
    write(record.path, 'src/app.txt', 'side\n')
    const side = commit(record.path, 'src/app.txt', 'side\n')
    git(record.path, 'switch', '--quiet', record.branch)
    commit(record.path, 'src/app.txt', 'ours\n')
    try {
      git(record.path, 'merge', '--quiet', 'side')
    } catch {
      // a conflict: the merge stays in progress
    }
    git(repos.clone, 'branch', '-D', 'side')
    const result = await exitAs(record, { discardChanges: false })
    expect(result.findings?.unsavedCommits.map(c => c.commit)).toContain(side.slice(0, 12))
    expect(result.removed).toBe(false)
  })

  it.each(['refs/worktree/keep', 'refs/bisect/bad'])('counts a commit that only %s holds', async ref => {
    const record = created(`own-ref-${ref.split('/')[1]}`)
    const lost = commit(record.path, 'a.txt')
    git(record.path, 'update-ref', ref, lost)
    git(record.path, 'reset', '--quiet', '--hard', record.baseSha)
    git(record.path, 'reflog', 'expire', '--expire=now', '--all')
    const result = await exitAs(record)
    expect(result.findings?.unsavedCommits).toEqual([expect.objectContaining({ subject: 'add a.txt' })])
    expect(result.removed).toBe(false)
  })

  it('on a hosted runner, counts commits that only a local branch of the agent holds; on a machine that stays, they are saved', async () => {
    const hosted = created('local-branch-hosted', { ephemeral: true })
    git(hosted.path, 'switch', '--quiet', '-c', 'agent-idea-1')
    commit(hosted.path, 'idea.txt')
    expect((await exitAs(hosted)).removed).toBe(false)
    const stays = created('local-branch-stays')
    git(stays.path, 'switch', '--quiet', '-c', 'agent-idea-2')
    const kept = commit(stays.path, 'idea.txt')
    expect((await exitAs(stays)).removed).toBe(true)
    expect(git(repos.clone, 'rev-parse', 'agent-idea-2')).toBe(kept)
  })

  it('in a repository that the next actions/checkout prepares (the workspace), counts commits that only a local branch or tag holds', async () => {
    const record = created('local-refs-workspace', { inWorkspace: true })
    git(record.path, 'switch', '--quiet', '-c', 'agent-idea-3')
    commit(record.path, 'idea.txt')
    git(record.path, 'tag', 'agent-tag')
    const result = await exitAs(record)
    expect(result.removed).toBe(false)
    expect(result.findings?.unsavedCommits).toEqual([expect.objectContaining({ subject: 'add idea.txt' })])
  })
})

describe('a worktree the agent moved', () => {
  it('is found by its git dir after git worktree move, and judged where it is now', async () => {
    const record = created('moving')
    git(repos.clone, 'worktree', 'unlock', record.path)
    const moved = path.join(repos.root, 'moved-here')
    git(repos.clone, 'worktree', 'move', record.path, moved)
    write(moved, 'work.txt', 'work\n')
    const result = await exitAs(record)
    expect(result).toMatchObject({ removed: false, reason: 'unsaved', path: moved })
    expect(result.message).toContain('moved there from')
    expect(fs.existsSync(path.join(moved, 'work.txt'))).toBe(true)
    expect(worktreePaths(repos.clone)).toContain(moved)
  })

  it('after mv and git worktree repair, never deletes the live git dir; a clean one is removed where it is', async () => {
    const record = created('repaired')
    const moved = path.join(repos.root, 'repaired-here')
    fs.renameSync(record.path, moved)
    git(moved, 'worktree', 'repair')
    const result = await exitAs(record)
    expect(result.removed).toBe(true)
    expect(fs.existsSync(moved)).toBe(false)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  })
})

describe('nested repositories and worktrees', () => {
  it('keeps a worktree holding a nested worktree with uncommitted files in an ignored folder', async () => {
    write(repos.clone, '.gitignore', '*.log\nbuild/\n.claude/\n')
    git(repos.clone, 'commit', '--quiet', '-am', 'ignore .claude')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const record = created('nest')
    const nested = path.join(record.path, '.claude', 'worktrees', 'inner')
    git(record.path, 'worktree', 'add', '--quiet', '-b', 'inner', nested)
    write(nested, 'draft.txt', 'inner work\n')
    const result = await exitAs(record)
    expect(result.removed).toBe(false)
    expect(result.findings?.nested.map(describeNested)).toEqual([expect.stringContaining('`.claude/worktrees/inner`: a worktree with 1 uncommitted file')])
    expect(fs.readFileSync(path.join(nested, 'draft.txt'), 'utf8')).toBe('inner work\n')
  })

  it('keeps a worktree holding a nested clone with a commit no remote has', async () => {
    const record = created('nested-clone')
    const inner = path.join(record.path, 'build', 'vendor')
    git(repos.root, 'clone', '--quiet', repos.origin, inner)
    commit(inner, 'patch.txt')
    const result = await exitAs(record)
    expect(result.findings?.nested.map(describeNested)).toEqual([expect.stringContaining('`build/vendor`: a repository with commits that no remote has')])
    expect(result.removed).toBe(false)
  })

  it('removes a worktree whose nested clone is clean', async () => {
    const record = created('nested-clean')
    git(repos.root, 'clone', '--quiet', repos.origin, path.join(record.path, 'build', 'vendor'))
    expect((await exitAs(record)).removed).toBe(true)
  })
})

describe('no window between the gate and the deletion', () => {
  it('deletes the branch only where the gate saw it: a commit that lands on it afterwards keeps it', async () => {
    const record = created('late-commit')
    const seen = git(repos.clone, 'rev-parse', record.branch)
    const landed = commit(record.path, 'late.txt')
    // Off the branch, as a removal leaves it: no worktree has it checked out any more.
    git(record.path, 'switch', '--quiet', '--detach')
    const outcome = await deleteBranch(await openRepository(repos.clone, 'repository-path'), record.branch, { seen })
    expect(outcome).toMatchObject({ deleted: false, why: 'moved' })
    expect(git(repos.clone, 'rev-parse', record.branch)).toBe(landed)
  })

  it('never deletes a branch that a worktree, the main one included, has checked out', async () => {
    const record = created('checked-out')
    const repo = await openRepository(repos.clone, 'repository-path')
    const tip = git(repos.clone, 'rev-parse', record.branch)
    expect(await deleteBranch(repo, record.branch, { seen: tip })).toMatchObject({ deleted: false, why: 'checked-out' })
    expect(await deleteBranch(repo, 'main', { seen: git(repos.clone, 'rev-parse', 'main') })).toMatchObject({ deleted: false, why: 'checked-out' })
    expect(git(repos.clone, 'rev-parse', record.branch)).toBe(tip)
  })

  it('without a gate’s count, deletes a branch only when every commit beyond the base is on a remote', async () => {
    const base = git(repos.clone, 'rev-parse', 'HEAD')
    git(repos.clone, 'branch', 'saved')
    git(repos.clone, 'branch', 'unsaved')
    const wt = path.join(repos.root, 'scratch')
    git(repos.clone, 'worktree', 'add', '--quiet', wt, 'unsaved')
    const work = commit(wt, 'work.txt')
    git(repos.clone, 'worktree', 'remove', wt)
    const repo = await openRepository(repos.clone, 'repository-path')
    expect(await deleteBranch(repo, 'unsaved', { savedBeyond: base })).toMatchObject({ deleted: false, why: 'unsaved' })
    expect(git(repos.clone, 'rev-parse', 'unsaved')).toBe(work)
    expect(await deleteBranch(repo, 'saved', { savedBeyond: base })).toEqual({ branch: 'saved', deleted: true })
    expect(await deleteBranch(repo, 'never-was', { savedBeyond: base })).toMatchObject({ deleted: false, why: 'missing' })
  })

  it('keeps a worktree while a process still works inside it, and says which', async () => {
    const record = created('resident')
    const child = spawn('sleep', ['30'], { cwd: record.path, stdio: 'ignore' })
    try {
      await new Promise(resolve => setTimeout(resolve, 100))
      const result = await exitAs(record)
      expect(result).toMatchObject({ removed: false, reason: 'busy' })
      expect(result.message).toContain(`${child.pid} (\`sleep 30\`)`)
      expect(fs.existsSync(record.path)).toBe(true)
    } finally {
      child.kill()
    }
  })

  it('loses no file that a writer outside the folder keeps writing while the worktree is removed', async () => {
    for (let round = 0; round < 5; round++) {
      const record = created(`writer-${round}`)
      const log = path.join(repos.root, `writer-${round}.log`)
      // Writes numbered files by path, logging each one that was written; never creates folders.
      const script = `const fs=require('fs');let i=0;setInterval(()=>{try{fs.writeFileSync(${JSON.stringify(record.path)}+'/w'+i+'.txt','x');fs.appendFileSync(${JSON.stringify(log)},'w'+i+'.txt\\n')}catch{}i++},2)`
      const writer = spawn(process.execPath, ['-e', script], { cwd: repos.root, stdio: 'ignore' })
      try {
        await new Promise(resolve => setTimeout(resolve, 20 + round * 15))
        const result = await exitAs(record)
        await new Promise(resolve => setTimeout(resolve, 20))
        const written = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []
        for (const file of written) expect(fs.existsSync(path.join(record.path, file)), `${file}: ${result.message}`).toBe(true)
        if (result.removed) expect(written).toEqual([])
        else expect(['unsaved', 'changed']).toContain(result.reason)
      } finally {
        writer.kill()
      }
    }
  })
})
