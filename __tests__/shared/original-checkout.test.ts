// Covers: src/shared/original-checkout.ts, and headFromFiles of src/shared/shared-refs.ts.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { compareSnapshots } from '../../src/shared/original-checkout.js'
import { headFromFiles } from '../../src/shared/shared-refs.js'
import { commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'

describe('comparing snapshots of the original checkout', () => {
  it('names what was added, modified, deleted and reverted, and a moved HEAD', () => {
    const before = { head: 'a'.repeat(40), files: { 'dirty.txt': ' M 5:1', 'reverted.txt': ' M 3:1' } }
    const after = { head: 'b'.repeat(40), files: { 'dirty.txt': ' M 9:2', 'new.txt': '?? 1:1', 'gone.txt': ' D missing', 'edited.txt': ' M 2:2' } }
    expect(compareSnapshots(before, after)).toEqual([
      'HEAD moved from aaaaaaaaaaaa to bbbbbbbbbbbb',
      '`dirty.txt` (modified)',
      '`reverted.txt` (reverted)',
      '`new.txt` (added)',
      '`gone.txt` (deleted)',
      '`edited.txt` (modified)'
    ])
    expect(compareSnapshots(before, before)).toEqual([])
  })
})

describe('HEAD read from the ref files', () => {
  let repos: Repos
  beforeEach(() => {
    repos = makeRepos()
  })
  afterEach(() => repos.cleanup())
  const dotGit = (): string => path.join(repos.clone, '.git')

  it('is the commit git names, through a loose ref, packed-refs, or detached', () => {
    const head = git(repos.clone, 'rev-parse', 'HEAD')
    expect(headFromFiles(dotGit(), dotGit())).toBe(head)
    git(repos.clone, 'pack-refs', '--all')
    expect(fs.existsSync(path.join(dotGit(), 'refs', 'heads', 'main'))).toBe(false)
    expect(headFromFiles(dotGit(), dotGit())).toBe(head)
    git(repos.clone, 'switch', '-q', '--detach')
    expect(headFromFiles(dotGit(), dotGit())).toBe(head)
  })

  it('is left to git where the files do not say it plainly', () => {
    const heads = path.join(dotGit(), 'refs', 'heads')
    // A branch whose ref names another branch, a HEAD naming a path out of refs/, a ref in neither file, a reftable.
    fs.writeFileSync(path.join(heads, 'alias'), 'ref: refs/heads/main\n')
    fs.writeFileSync(path.join(dotGit(), 'HEAD'), 'ref: refs/heads/alias\n')
    expect(headFromFiles(dotGit(), dotGit())).toBeUndefined()
    fs.writeFileSync(path.join(dotGit(), 'HEAD'), 'ref: refs/heads/../../config\n')
    expect(headFromFiles(dotGit(), dotGit())).toBeUndefined()
    fs.writeFileSync(path.join(dotGit(), 'HEAD'), 'ref: refs/heads/unborn\n')
    expect(headFromFiles(dotGit(), dotGit())).toBeUndefined()
    // A loose ref that is a link, over a packed-refs that still names the commit: git follows the link.
    fs.writeFileSync(path.join(dotGit(), 'HEAD'), 'ref: refs/heads/main\n')
    git(repos.clone, 'pack-refs', '--all')
    fs.symlinkSync('alias', path.join(heads, 'main'))
    expect(headFromFiles(dotGit(), dotGit())).toBeUndefined()
    fs.rmSync(path.join(heads, 'main'))
    fs.mkdirSync(path.join(dotGit(), 'reftable'))
    expect(headFromFiles(dotGit(), dotGit())).toBeUndefined()
  })
})

describe('the isolation breach report', () => {
  let repos: Repos
  let job: Job
  beforeEach(() => {
    repos = makeRepos()
    job = new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner-temp'), env: {} })
  })
  afterEach(() => repos.cleanup())

  const breaches = (step: { annotations: { level: string; message: string }[] }): string[] =>
    step.annotations.filter(a => a.message.includes('which should have left it alone')).map(a => a.message)

  it('says when the agent changed the original checkout, naming the files', async () => {
    write(repos.clone, 'already-dirty.txt', 'before the job\n')
    write(repos.clone, 'untouched-dirty.txt', 'before the job\n')
    await job.uses('.', { name: 'breach' })
    write(repos.clone, 'src/app.txt', 'the agent wrote here\n')
    write(repos.clone, 'stray.txt', 'and here\n')
    fs.rmSync(path.join(repos.clone, 'README.md'))
    write(repos.clone, 'already-dirty.txt', 'and changed this further\n')
    const [post] = await job.runPosts()
    const [warning] = breaches(post)
    expect(warning).toContain(`The original checkout \`${repos.clone}\` changed while the job worked in`)
    for (const change of ['`src/app.txt` (modified)', '`stray.txt` (added)', '`README.md` (deleted)', '`already-dirty.txt` (modified)'])
      expect(warning).toContain(change)
    expect(warning).not.toContain('untouched-dirty.txt')
    expect(post.summary).toContain('Changed in the original checkout')
  })

  it('says when HEAD of the original checkout moved', async () => {
    await job.uses('.', { name: 'moved' })
    commit(repos.clone, 'committed-outside.txt')
    const [post] = await job.runPosts()
    expect(breaches(post)[0]).toMatch(/HEAD moved from [0-9a-f]{12} to [0-9a-f]{12}/)
  })

  it('asks git when the ref file names another id: one that names no commit is said as HEAD gone', async () => {
    await job.uses('.', { name: 'forged' })
    fs.writeFileSync(path.join(repos.clone, '.git', 'refs', 'heads', 'main'), `${'e'.repeat(40)}\n`)
    const [post] = await job.runPosts()
    expect(breaches(post)[0]).toMatch(/HEAD moved from [0-9a-f]{12} to \(none\)/)
  })

  it('reports it from the exit sub-action too, and stays quiet when the agent stayed inside', async () => {
    const { outputs } = await job.uses('.', { name: 'inside' })
    write(outputs['worktree-path'], 'src/app.txt', 'inside the worktree\n')
    const quiet = await job.uses('exit', { 'discard-changes': 'true' })
    expect(breaches(quiet)).toEqual([])
    await job.uses('.', { name: 'outside' })
    write(repos.clone, 'stray.txt', 'outside\n')
    const loud = await job.uses('exit')
    expect(breaches(loud)[0]).toContain('`stray.txt` (added)')
  })
})
