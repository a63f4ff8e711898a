// Covers: src/enter/checkout.ts (lfsEnvironment), src/git/repository.ts (readConfigAtEnter's remote names),
// src/git/git-command-manager.ts (isValidBranchName).
// Answers the main step takes from what it already read, instead of a git call of their own: each is what git
// itself says.
import { execFileSync } from 'node:child_process'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git-command-manager.js'
import { lfsEnvironment } from '../../src/enter/checkout.js'
import { openRepository, readConfigAtEnter } from '../../src/git/repository.js'
import { commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

const POINTER = 'version https://git-lfs.github.com/spec/v1\noid sha256:0000000000000000000000000000000000000000000000000000000000000000\nsize 1\n'

describe('the LFS state of the checkout', () => {
  beforeEach(() => {
    write(repos.clone, '.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n')
    commit(repos.clone, 'data.bin', POINTER)
  })

  it('is asked only where the config of enter has an lfs filter: without one, git runs no LFS program', async () => {
    const repo = await openRepository(repos.clone, 'repository-path')
    expect(await lfsEnvironment(repo, undefined)).toBeUndefined()
    expect(await lfsEnvironment(repo, { crypt: { smudge: 'git-crypt smudge' } })).toBeUndefined()
  })

  it('pointer files with an lfs filter: no download in the new worktree', async () => {
    git(repos.clone, 'config', 'filter.lfs.process', 'git-lfs filter-process')
    const repo = await openRepository(repos.clone, 'repository-path')
    const { filters } = await readConfigAtEnter(repo)
    expect(filters).toHaveProperty('lfs')
    expect(await lfsEnvironment(repo, filters)).toEqual({ GIT_LFS_SKIP_SMUDGE: '1' })
  })
})

it('the remote names of the config of enter are those git remote lists', async () => {
  git(repos.clone, 'remote', 'add', 'up.stream', repos.origin)
  git(repos.clone, 'config', 'remote.fetch-only.fetch', '+refs/heads/*:refs/remotes/fetch-only/*')
  git(repos.clone, 'config', 'remote.Mixed/Case.pushurl', repos.origin)
  const repo = await openRepository(repos.clone, 'repository-path')
  const { remoteNames } = await readConfigAtEnter(repo)
  expect([...remoteNames].sort()).toEqual(git(repos.clone, 'remote').split('\n').sort())
  expect(remoteNames).toContain('fetch-only')
})

it('a branch name valid without asking git is one git check-ref-format --branch accepts', async () => {
  const names = ['worktree-a', 'a/b', 'x_y/z-1', 'HEAD', 'a..b', '.a', 'a.lock', 'a/', 'a//b', '-a', 'a b', 'a@{1}', '@', 'a.b', 'Ünï', 'a/-b', '_']
  const gitSays = (name: string): boolean => {
    try {
      execFileSync('git', ['check-ref-format', '--branch', name], { cwd: repos.clone, stdio: 'ignore' })
      return true
    } catch {
      return false
    }
  }
  const ours = new Git(path.resolve(repos.clone))
  for (const name of names) expect(await ours.isValidBranchName(name), name).toBe(gitSays(name))
})
