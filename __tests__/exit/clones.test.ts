// Covers: src/exit/clones.ts.
// A clone of the agent's own: what it is made of, what the original keeps for it, and how its work comes back.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { bringIn, cloneEntryOf, makeClone } from '../../src/exit/clones.js'
import { borrowedRef } from '../../src/record/refs.js'
import { checkFolder, openRepository, type Repository } from '../../src/git/repository.js'
import { writeRecordFile, type WorktreeRecord } from '../../src/record/state-helper.js'
import { commit, git, makeRepos, type Repos } from '../helpers/repos.js'

let repos: Repos
let repo: Repository
beforeEach(async () => {
  repos = makeRepos()
  repo = await openRepository(repos.clone, 'repository-path')
})
afterEach(() => repos.cleanup())

function recordFor(name: string): WorktreeRecord {
  return { path: path.join(repos.root, 'wts', name), branch: `worktree-${name}`, baseSha: git(repos.clone, 'rev-parse', 'HEAD') } as WorktreeRecord
}

async function clone(name: string, also: string[] = []): Promise<{ record: WorktreeRecord; entry: string; borrowed: string }> {
  const record = recordFor(name)
  fs.mkdirSync(path.dirname(record.path), { recursive: true })
  const made = await makeClone(repo, record, 'agent-worktree 0123456789abcdef: test', also)
  git(record.path, 'read-tree', '--reset', '-u', 'HEAD')
  return { record, ...made }
}

describe('makeClone', () => {
  it("takes the original's own settings but what shapes or runs in the original, and includes its credentials", async () => {
    const credentials = path.join(repos.root, 'git-credentials.config')
    fs.writeFileSync(credentials, '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic x\n')
    for (const [key, value] of [
      ['user.email', 'someone@example.com'],
      ['core.hooksPath', path.join(repos.root, 'hooks')],
      ['core.autocrlf', 'input'],
      ['branch.main.merge', 'refs/heads/main'],
      [`includeIf.gitdir:${repos.clone}/.git.path`, credentials],
      ['lfs.url', 'https://lfs.example.com/"quoted"\\path']
    ])
      git(repos.clone, 'config', key, value)
    const { record } = await clone('settings')
    const read = (key: string): string => {
      try {
        return git(record.path, 'config', '--get', key)
      } catch {
        return ''
      }
    }
    expect(read('user.email')).toBe('someone@example.com')
    expect(read('core.autocrlf')).toBe('input')
    expect(read('remote.origin.url')).toBe(repos.origin)
    expect(read('lfs.url')).toBe('https://lfs.example.com/"quoted"\\path')
    expect(read('core.hookspath')).toBe('')
    expect(read('branch.main.merge')).toBe('')
    expect(read('core.bare')).toBe('false')
    // The original's includeIf names the original's git dir: the clone includes the file for itself.
    const recordWithPush = { ...recordFor('credentials') }
    fs.mkdirSync(path.dirname(recordWithPush.path), { recursive: true })
    await makeClone(repo, recordWithPush, 'agent-worktree 0123456789abcdef: test', [])
    expect(git(recordWithPush.path, 'config', '--get', 'http.https://github.com/.extraheader')).toBe('AUTHORIZATION: basic x')
  })

  it('keeps in the original every commit it borrowed: the base, remote-tracking branches, the commit of an annotated tag, what it was given', async () => {
    git(repos.clone, 'switch', '--quiet', '-c', 'side')
    const side = commit(repos.clone, 'side.txt')
    git(repos.clone, 'push', '--quiet', 'origin', 'side')
    git(repos.clone, 'fetch', '--quiet')
    const tagged = commit(repos.clone, 'tagged.txt')
    git(repos.clone, 'tag', '-a', '-m', 'tagged', 'v1')
    const given = commit(repos.clone, 'given.txt')
    git(repos.clone, 'switch', '--quiet', 'main')
    const { record, entry, borrowed } = await clone('borrowed', [given])
    expect(git(repos.clone, 'rev-parse', borrowedRef(entry))).toBe(borrowed)
    const parents = git(repos.clone, 'rev-list', '--parents', '-1', borrowed).split(' ').slice(1)
    expect(parents.sort()).toEqual([...new Set([record.baseSha, side, tagged, given, git(repos.clone, 'rev-parse', 'origin/main')])].sort())
    // The clone has them by name, as the original does, and its own branch; nothing of the original's local branches.
    expect(git(record.path, 'rev-parse', 'origin/side', 'v1^{commit}', 'HEAD')).toBe([side, tagged, record.baseSha].join('\n'))
    expect(git(record.path, 'for-each-ref', '--format=%(refname)', 'refs/heads/')).toBe('refs/heads/worktree-borrowed')
    // Found from the original by the record the main step writes into its entry, never by the entry's gitdir.
    expect(cloneEntryOf(repo.commonDir, record.path)).toBeUndefined()
    writeRecordFile(entry, { ...record, token: '0123456789abcdef' })
    fs.writeFileSync(path.join(entry, 'gitdir'), `${repos.clone}/.git\n`)
    expect(cloneEntryOf(repo.commonDir, record.path)).toBe(entry)
    expect(checkFolder(record.path, '.git')).toBe('intact')
  })

  it('is no clone of ours when its .git is no longer its own folder', async () => {
    const { record } = await clone('repointed')
    fs.renameSync(path.join(record.path, '.git'), path.join(repos.root, 'elsewhere.git'))
    fs.writeFileSync(path.join(record.path, '.git'), `gitdir: ${path.join(repos.root, 'elsewhere.git')}\n`)
    expect(checkFolder(record.path, '.git')).toBe('repointed')
  })
})

describe('bringIn', () => {
  it("brings the clone's commit and all it reaches into the original, under the ref given", async () => {
    const { record } = await clone('work')
    const first = commit(record.path, 'one.txt')
    const second = commit(record.path, 'two.txt')
    expect(() => git(repos.clone, 'cat-file', '-e', first)).toThrow()
    await bringIn(repo, path.join(record.path, '.git'), second, 'refs/agent-worktree/kept/work/0123456789abcdef')
    expect(git(repos.clone, 'rev-list', '--count', `${record.baseSha}..refs/agent-worktree/kept/work/0123456789abcdef`)).toBe('2')
    git(repos.clone, 'fsck', '--no-dangling')
  })

  it('takes nothing from a clone whose commit is not whole: the original never gets a ref to what it lacks', async () => {
    const { record } = await clone('broken')
    commit(record.path, 'one.txt')
    const second = commit(record.path, 'two.txt')
    // The first commit's object, gone from the clone's own store.
    const first = git(record.path, 'rev-parse', 'HEAD^')
    fs.rmSync(path.join(record.path, '.git', 'objects', first.slice(0, 2), first.slice(2)))
    await expect(bringIn(repo, path.join(record.path, '.git'), second, 'refs/agent-worktree/kept/broken/0123456789abcdef')).rejects.toThrow(
      /could not be brought into/
    )
    expect(git(repos.clone, 'for-each-ref', 'refs/agent-worktree/kept/')).toBe('')
    git(repos.clone, 'fsck', '--no-dangling')
  })
})
