// Covers: src/git/submodules.ts: the remote each submodule of the base had at enter, as git itself would take it.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Git } from '../../src/git/git-command-manager.js'
import { listConfig } from '../../src/git/repository.js'
import { resolveUrl, submoduleUrls } from '../../src/git/submodules.js'
import { git } from '../helpers/repos.js'

let root: string
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-submodules-'))
})
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A repository whose HEAD pins `lib` (and `tools/x`) with a .gitmodules naming `urls`; its origin is `superUrl`. */
function superproject(name: string, superUrl: string, urls: Record<string, string>): string {
  const dir = path.join(root, name)
  git(root, 'init', '--quiet', '-b', 'main', dir)
  git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'empty')
  git(dir, 'remote', 'add', 'origin', superUrl)
  const lines = Object.entries(urls).flatMap(([where, url]) => [`[submodule "${where}"]`, `\tpath = ${where}`, `\turl = ${url}`])
  fs.writeFileSync(path.join(dir, '.gitmodules'), `${lines.join('\n')}\n`)
  for (const where of Object.keys(urls)) git(dir, 'update-index', '--add', '--cacheinfo', `160000,${git(dir, 'rev-parse', 'HEAD')},${where}`)
  git(dir, 'add', '.gitmodules')
  git(dir, 'commit', '--quiet', '-m', 'pins')
  return dir
}

describe('resolveUrl', () => {
  const remotes = [
    'https://github.com/o/r.git',
    'https://github.com/o/r.git/',
    'git@github.com:o/r.git',
    'git@github.com:r.git',
    'ssh://git@host:22/a/b',
    '/srv/git/r.git',
    'file:///srv/r.git'
  ]
  const relatives = ['../lib.git', './lib', '../../x/lib.git', './../y/']

  it('resolves a relative URL as git submodule init does', () => {
    let n = 0
    for (const superUrl of remotes) {
      for (const url of relatives) {
        const dir = superproject(`init-${n++}`, superUrl, { lib: url })
        git(dir, 'submodule', 'init', '--quiet', 'lib')
        const byGit = git(dir, 'config', 'submodule.lib.url')
        // git makes a relative path of a host:path that runs out of components; that is no remote to ask.
        expect(resolveUrl(url, superUrl), `${superUrl} ${url}`).toBe(byGit.startsWith('.') ? undefined : byGit)
      }
    }
  })

  it('takes an absolute URL as it is, and has none for a relative one without a remote or against a relative remote', () => {
    expect(resolveUrl('https://example.com/lib.git', undefined)).toBe('https://example.com/lib.git')
    expect(resolveUrl('../lib.git', undefined)).toBeUndefined()
    expect(resolveUrl('../lib.git', '../origin.git')).toBeUndefined()
  })
})

describe('submoduleUrls', () => {
  it('by path: the config of enter over the base’s .gitmodules, relative URLs against the superproject’s remote', async () => {
    const dir = superproject('urls', 'https://github.com/o/r.git', { lib: '../lib.git', 'tools/x': 'https://example.com/x.git' })
    git(dir, 'config', 'submodule.tools/x.url', 'https://mirror.example.com/x.git')
    const repo = new Git(dir)
    const base = git(dir, 'rev-parse', 'HEAD')
    expect(await submoduleUrls(repo, base, await listConfig(repo), 'https://github.com/o/r.git')).toEqual({
      lib: 'https://github.com/o/lib.git',
      'tools/x': 'https://mirror.example.com/x.git'
    })
  })

  it('none for a base without .gitmodules, and none without a base', async () => {
    const dir = path.join(root, 'plain')
    git(root, 'init', '--quiet', '-b', 'main', dir)
    git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'empty')
    const repo = new Git(dir)
    expect(await submoduleUrls(repo, git(dir, 'rev-parse', 'HEAD'), [], undefined)).toEqual({})
    expect(await submoduleUrls(repo, '', [], undefined)).toEqual({})
  })
})
