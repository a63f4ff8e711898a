// Covers: src/gate/git-answers.ts (resolveCommits).
// HEAD and the branches that go with a worktree are read in one git call: each answer is what
// `git rev-parse --verify --quiet <name>^{commit}` says of it, for names that resolve, that do not, and that the
// one call could not carry.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { Git } from '../../src/git/git-command-manager.js'
import { resolveCommits } from '../../src/gate/git-answers.js'
import { commit, git, makeRepos, type Repos } from '../helpers/repos.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

function revParse(name: string): string | undefined {
  try {
    return git(repos.clone, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`) || undefined
  } catch {
    return undefined
  }
}

it('gives what rev-parse gives for each name, one git call or one per name', async () => {
  const first = git(repos.clone, 'rev-parse', 'HEAD')
  git(repos.clone, 'branch', 'kept')
  git(repos.clone, 'tag', '-a', '-m', 'annotated', 'v1')
  commit(repos.clone, 'more.txt')
  // git refuses a branch that names a tree; an agent writes the file
  fs.writeFileSync(path.join(repos.clone, '.git', 'refs', 'heads', 'to-tree'), `${git(repos.clone, 'rev-parse', `${first}^{tree}`)}\n`)
  const names = ['HEAD', 'refs/heads/kept', 'refs/heads/missing', 'refs/tags/v1', 'refs/heads/to-tree', 'refs/heads/a b', 'refs/heads/x\nHEAD']
  const git1 = new Git(repos.clone)
  expect(await resolveCommits(git1, names)).toEqual(names.map(revParse))
  expect(await resolveCommits(git1, names.slice(0, 5))).toEqual(names.slice(0, 5).map(revParse))
  expect(await resolveCommits(git1, ['HEAD'])).toEqual([revParse('HEAD')])
  expect((await resolveCommits(git1, ['HEAD', 'refs/heads/kept'])).every(Boolean)).toBe(true)
})
