// `npm run local-action`: the TypeScript entry points run by @github/local-action, main then post.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { ROOT } from '../scripts/runner.mjs'
import { makeRepos, worktreePaths, type Repos } from './helpers/repos.js'

let repos: Repos
beforeEach(() => {
  repos = makeRepos()
})
afterEach(() => repos.cleanup())

it('runs main and post from .env.example, against the repository it names', () => {
  const env = path.join(repos.root, '.env')
  fs.writeFileSync(env, fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8').replace('INPUT_REPOSITORY-PATH=.', `INPUT_REPOSITORY-PATH=${repos.clone}`))
  const out = execFileSync('npx', ['local-action', 'run', '.', 'src/enter.ts', env, '--post', 'src/post-step.ts'], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  })
  const worktree = path.join(`${repos.clone}.worktrees`, 'local-demo')
  expect(out).toContain(`Created worktree ${worktree} on branch worktree-local-demo`)
  expect(out).toContain(`Removed ${worktree} and deleted its branch worktree-local-demo: nothing unsaved was found.`)
  expect(worktreePaths(repos.clone)).toEqual([repos.clone])
})
