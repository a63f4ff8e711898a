// The push input: the exit (or the post) pushes the worktree's HEAD to the remote of enter by the rescue's sealed
// push, so that nothing the agent planted (hooks, push URLs, insteadOf) runs with the job's credentials; what it
// pushed counts as saved. Through the committed bundles, against a real bare origin.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { commit, git, makeRepos, readOrNull, worktreePaths, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos
let marker: string
let markerLog: string

beforeEach(() => {
  repos = makeRepos()
  markerLog = path.join(repos.root, 'marker.log')
  marker = path.join(repos.root, 'marker.sh')
  fs.writeFileSync(marker, `#!/bin/sh\necho "$0 $*" >>'${markerLog}'\nexit 0\n`, { mode: 0o755 })
})
afterEach(() => repos.cleanup())

function job(): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }
  })
}

/** What an unconfined step before the exit can plant so that a `git push` in the worktree goes elsewhere or runs it. */
function plantPushTraps(wt: string): string {
  const elsewhere = path.join(repos.root, 'elsewhere.git')
  git(repos.root, 'init', '--quiet', '--bare', elsewhere)
  const hooks = path.join(repos.root, 'planted-hooks')
  fs.mkdirSync(hooks)
  for (const dir of [hooks, path.join(repos.clone, '.git', 'hooks')]) {
    for (const hook of ['pre-push', 'reference-transaction', 'post-update']) fs.copyFileSync(marker, path.join(dir, hook))
  }
  git(wt, 'config', 'core.hooksPath', hooks)
  git(wt, 'config', 'remote.origin.pushurl', elsewhere)
  git(wt, 'config', `url.${elsewhere}.pushInsteadOf`, repos.origin)
  git(wt, 'config', 'remote.origin.receivepack', marker)
  return elsewhere
}

function remoteBranch(bare: string, branch: string): string | undefined {
  try {
    return git(bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`)
  } catch {
    return undefined
  }
}

describe('push', () => {
  it('exit: after planted hooks, hooksPath, pushurl, pushInsteadOf and receivepack, the branch is on the real origin, nothing planted ran, and the worktree goes', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'pushed' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const head = commit(wt, 'feature.txt')
    const elsewhere = plantPushTraps(wt)
    const exit = await j.uses('exit', { push: 'true' })
    expect(exit.exitCode, exit.stdout).toBe(0)
    expect(remoteBranch(repos.origin, main.outputs.branch)).toBe(head)
    expect(git(elsewhere, 'for-each-ref')).toBe('')
    expect(readOrNull(markerLog)).toBeNull()
    expect(exit.outputs).toMatchObject({ pushed: 'true', 'pushed-branch': main.outputs.branch, 'pushed-commit': head, removed: 'true', reason: 'clean' })
    expect(exit.stdout).toContain(`Pushed ${head.slice(0, 12)} to the branch \`${main.outputs.branch}\` of \`origin\``)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone])
    // What the workflow's own `git push` would have met: the planted receive-pack, at the planted push URL.
    spawnSync('git', ['push', 'origin', `${head}:refs/heads/control`], { cwd: repos.clone })
    expect(readOrNull(markerLog)).toBe(`${marker} ${elsewhere}\n`)
  })

  it("post: the main step's push names a branch; a worktree with nothing else unsaved is removed", async () => {
    const j = job()
    const main = await j.uses('.', { name: 'named', push: 'agent/named' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const head = commit(wt, 'feature.txt')
    const [post] = await j.runPosts()
    expect(warnings(post)).toEqual([])
    expect(remoteBranch(repos.origin, 'agent/named')).toBe(head)
    expect(fs.existsSync(wt)).toBe(false)
  })

  it("isolation: clone: the clone's own commit goes, from the clone's objects, and the clone is removed", async () => {
    const j = job()
    const main = await j.uses('.', { name: 'cloned', isolation: 'clone', push: 'agent/cloned' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const head = commit(wt, 'feature.txt')
    const [post] = await j.runPosts()
    expect(warnings(post)).toEqual([])
    expect(remoteBranch(repos.origin, 'agent/cloned')).toBe(head)
    expect(fs.existsSync(wt)).toBe(false)
  })

  it('a HEAD with no commit its base lacks is not pushed: no branch piles up on the remote, and the outputs and message say so', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'idle' })
    expect(main.exitCode, main.stdout).toBe(0)
    const base = main.outputs['base-sha']
    const exit = await j.uses('exit', { push: 'true' })
    expect(exit.exitCode, exit.stdout).toBe(0)
    expect(remoteBranch(repos.origin, main.outputs.branch)).toBeUndefined()
    expect(exit.outputs).toMatchObject({ pushed: 'false', 'pushed-branch': '', 'pushed-commit': '', removed: 'true', reason: 'clean' })
    expect(exit.outputs.message).toContain(
      `Nothing was pushed to the branch \`${main.outputs.branch}\`: the worktree's HEAD is its base, ${base.slice(0, 12)}, so it has no commit the base lacks.`
    )
    expect(warnings(exit)).toEqual([])
    // The post's push likewise: an agent that went back behind the base pushes nothing either.
    const parent = git(repos.clone, 'rev-parse', 'HEAD')
    commit(repos.clone, 'second.txt')
    git(repos.clone, 'push', '--quiet', 'origin', 'HEAD:main')
    const back = job()
    const behind = await back.uses('.', { name: 'behind', push: 'agent/behind' })
    git(behind.outputs['worktree-path'], 'reset', '--quiet', '--hard', 'HEAD~1')
    const [post] = await back.runPosts()
    expect(warnings(post)).toEqual([])
    expect(remoteBranch(repos.origin, 'agent/behind')).toBeUndefined()
    expect(post.stdout).toContain(
      `Nothing was pushed to the branch \`agent/behind\`: the worktree's HEAD, ${parent.slice(0, 12)}, is an ancestor of its base, ${behind.outputs['base-sha'].slice(0, 12)}`
    )
    expect(fs.existsSync(behind.outputs['worktree-path'])).toBe(false)
  })

  it('only fast-forwards: a branch the remote has elsewhere stays, the step fails, the work is kept', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'diverged', push: 'taken' })
    const wt = main.outputs['worktree-path']
    // Someone else's branch on the remote, from another line of history.
    const other = path.join(repos.root, 'other')
    git(repos.root, 'clone', '--quiet', repos.origin, other)
    const theirs = commit(other, 'theirs.txt')
    git(other, 'push', '--quiet', 'origin', 'HEAD:refs/heads/taken')
    commit(wt, 'mine.txt')
    const exit = await j.uses('exit')
    expect(exit.exitCode).not.toBe(0)
    expect(remoteBranch(repos.origin, 'taken')).toBe(theirs)
    expect(exit.outputs).toMatchObject({ pushed: 'false', removed: 'false', reason: 'unsaved' })
    expect(exit.annotations.find(a => a.level === 'error')?.message).toMatch(
      /was not pushed to the branch `taken`: git push `origin` `taken` failed: .*rejected/
    )
    expect(fs.existsSync(wt)).toBe(true)
  })

  it("exit: its own push input is checked before anything is done; push: false there overrides the main step's", async () => {
    const j = job()
    const main = await j.uses('.', { name: 'checked', push: 'agent/checked' })
    const wt = main.outputs['worktree-path']
    commit(wt, 'feature.txt')
    const bad = await j.uses('exit', { push: 'no..dots' })
    expect(bad.exitCode).not.toBe(0)
    expect(bad.annotations[0].message).toMatch(/^Input 'push' has the value `no\.\.dots`: `no\.\.dots` is not a valid branch name/)
    expect(fs.existsSync(wt)).toBe(true)
    const kept = await j.uses('exit', { push: 'false' })
    expect(kept.outputs).toMatchObject({ pushed: 'false', reason: 'unsaved' })
    expect(remoteBranch(repos.origin, 'agent/checked')).toBeUndefined()
  })

  it('main fails fast, before anything is created: a bad branch name, no remote, a detached worktree with push: true', async () => {
    const bad = await job().uses('.', { name: 'bad', push: 'no..dots' })
    expect(bad.exitCode).not.toBe(0)
    expect(bad.annotations[0].message).toMatch(/^Input 'push' has the value `no\.\.dots`: `no\.\.dots` is not a valid branch name/)
    const detached = path.join(repos.root, 'detached')
    git(repos.clone, 'worktree', 'add', '--quiet', '--detach', detached)
    const byPath = await job().uses('.', { path: detached, push: 'true' })
    expect(byPath.annotations[0].message).toMatch(/^Input 'push' has the value `true`: the worktree has no branch of its own/)
    git(repos.clone, 'remote', 'remove', 'origin')
    const none = await job().uses('.', { name: 'no-remote', push: 'true' })
    expect(none.annotations[0].message).toMatch(/^Input 'push' has the value `true`: .* has no remote to push to/)
    expect(worktreePaths(repos.clone)).toEqual([repos.clone, detached])
  })
})
