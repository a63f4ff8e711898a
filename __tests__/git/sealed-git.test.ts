// Covers: the removal of a sealed view's folder in src/git/sealed-git.ts (openView's dispose).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { openView } from '../../src/git/sealed-git.js'
import { git, makeRepos, type Repos } from '../helpers/repos.js'

let repos: Repos
let temp: string
const saved = process.env.RUNNER_TEMP
beforeEach(() => {
  repos = makeRepos()
  temp = path.join(repos.root, 'runner-temp')
  fs.mkdirSync(temp)
  process.env.RUNNER_TEMP = temp
})
afterEach(() => {
  if (saved === undefined) delete process.env.RUNNER_TEMP
  else process.env.RUNNER_TEMP = saved
  repos.cleanup()
})

const dotGit = (): string => path.join(repos.clone, '.git')

it('leaves nothing of a view that had everything it can be given', async () => {
  fs.writeFileSync(path.join(dotGit(), 'shallow'), `${git(repos.clone, 'rev-parse', 'HEAD')}\n`)
  const view = openView({
    objects: path.join(dotGit(), 'objects'),
    head: git(repos.clone, 'rev-parse', 'HEAD'),
    index: path.join(dotGit(), 'index'),
    workTree: repos.clone,
    excludes: '*.tmp\n',
    haves: [git(repos.clone, 'rev-parse', 'HEAD'), git(repos.clone, 'rev-parse', 'HEAD')]
  })
  expect((await view.git.run(['status', '--porcelain'])).stdout).toBe('')
  view.dispose()
  expect(fs.readdirSync(temp)).toEqual([])
})

it('leaves nothing where git wrote more than the view made: the folder is walked', async () => {
  const view = openView({ objects: path.join(dotGit(), 'objects'), head: git(repos.clone, 'rev-parse', 'HEAD') })
  expect((await view.git.run(['update-ref', 'refs/fetched/main', 'HEAD'])).exitCode).toBe(0)
  expect(fs.existsSync(path.join(view.dir, 'refs', 'fetched', 'main'))).toBe(true)
  view.dispose()
  expect(fs.readdirSync(temp)).toEqual([])
})
