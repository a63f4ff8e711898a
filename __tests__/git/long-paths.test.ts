// Covers: src/git/git-command-manager.ts (platformConfig).
// A deep tree, whose paths in a worktree exceed Windows' 260 characters: our git adds the worktree and reads its
// status on every system (git on Windows says "Filename too long" without core.longpaths). Portable: it runs in
// CI on Windows and macOS too (npm run test:portable).
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Git, platformConfig } from '../../src/git/git-command-manager.js'

const IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 't@example.com' }

function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', args, { cwd, input, env: { ...process.env, ...IDENTITY }, encoding: 'utf8' }).trim()
}

let root: string
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-long-')))
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 }))

describe('paths over 260 characters', () => {
  it('git runs with core.longpaths on Windows, and only there', () => {
    expect(platformConfig('win32')).toEqual(['-c', 'core.longpaths=true'])
    for (const platform of ['linux', 'darwin'] as const) expect(platformConfig(platform)).toEqual([])
  })

  it('our git adds a worktree of a deep tree and reads its status', async () => {
    const repo = path.join(root, 'repo')
    git(root, ['init', '--quiet', '-b', 'main', repo])
    // Committed without a file on the disk (the test's own git on Windows could not write it): a blob in the index.
    const deep = [...Array(6).keys()].map(i => `${'d'.repeat(48)}${i}`).join('/') + '/file.txt'
    const blob = git(repo, ['hash-object', '-w', '--stdin'], 'deep\n')
    git(repo, ['update-index', '--add', '--cacheinfo', `100644,${blob},${deep}`])
    git(repo, ['commit', '--quiet', '-m', 'deep'])
    const wt = path.join(root, 'wt')
    expect(path.join(wt, deep).length).toBeGreaterThan(260)
    const ours = new Git(repo)
    const added = await ours.run(['worktree', 'add', '--quiet', '-b', 'deep', wt])
    expect(added.exitCode, added.stderr).toBe(0)
    expect(fs.readFileSync(path.join(wt, deep), 'utf8')).toBe('deep\n')
    fs.writeFileSync(path.join(wt, deep), 'changed\n')
    const status = await new Git(wt).run(['status', '--porcelain'])
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.stdout.trim()).toBe(`M ${deep}`)
  })
})
