// Covers: src/exit/reclaim.ts, through src/exit/exit-worktree.ts, on real repositories.
// A kept worktree gives back ignored folders: only what git ignores, never through a link, never a repository.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Reclaim } from '../../src/record/settings.js'
import type { WorktreeRecord } from '../../src/record/state-helper.js'
import { createLikeMain, exitAs } from '../helpers/worktree.js'
import { git, makeRepos, write, type Repos } from '../helpers/repos.js'

const SIGNATURE = 'Signature: 8a477f597d28d172789f06886806bc55'
const TAGGED: Reclaim = { patterns: [], tagged: true }
const NONE: Reclaim = { patterns: [], tagged: false }

let repos: Repos
beforeEach(() => {
  repos = makeRepos({
    '.gitignore': 'node_modules/\nbuild/\n.env\n.venv\ntarget/\n*.log\n',
    'README.md': '# sample\n',
    'src/app.txt': 'app\n'
  })
})
afterEach(() => repos.cleanup())

/** A worktree with one uncommitted change, so that the exit keeps it. */
function keptOne(name: string, overrides: Partial<WorktreeRecord> = {}): WorktreeRecord {
  const record = createLikeMain(repos, name, overrides)
  write(record.path, 'src/app.txt', 'changed by the agent\n')
  return record
}

/** What the gate counts, asked again after the exit (an exit step that keeps, and reclaims nothing). */
async function countsNow(record: WorktreeRecord): Promise<unknown> {
  const again = await exitAs(record, { step: 'exit', source: 'state', onExit: 'keep', reclaim: NONE })
  return { uncommitted: again.findings?.uncommitted, unsavedCommits: again.findings?.unsavedCommits, nested: again.findings?.nested }
}

const counts = (result: Awaited<ReturnType<typeof exitAs>>): unknown => ({
  uncommitted: result.findings?.uncommitted,
  unsavedCommits: result.findings?.unsavedCommits,
  nested: result.findings?.nested
})

describe('by default, folders holding a CACHEDIR.TAG', () => {
  it('reclaims a tagged ignored folder and nothing else; the gate counts the same after', async () => {
    const record = keptOne('tagged')
    const wt = record.path
    write(wt, 'build/cache/CACHEDIR.TAG', `${SIGNATURE}\n# made by a build tool\n`)
    write(wt, 'build/cache/blob.bin', 'x'.repeat(10_000))
    write(wt, 'build/out/app.o', 'object\n')
    write(wt, 'node_modules/pkg/index.js', 'module\n')
    write(wt, 'target/CACHEDIR.TAG', 'Signature: not the one\n')
    // Untracked and not ignored: work, tag or not.
    write(wt, 'scratch/CACHEDIR.TAG', `${SIGNATURE}\n`)
    write(wt, 'scratch/notes.txt', 'the agent writes here\n')
    const result = await exitAs(record, { reclaim: TAGGED })
    expect(result, result.message).toMatchObject({ removed: false, reason: 'unsaved' })
    expect(result.reclaimed).toEqual({ folders: [{ path: 'build/cache', bytes: expect.any(Number), files: 2 }], spared: [] })
    expect(result.reclaimed!.folders[0].bytes).toBeGreaterThanOrEqual(10_000)
    expect(fs.existsSync(path.join(wt, 'build/cache'))).toBe(false)
    for (const stays of ['build/out/app.o', 'node_modules/pkg/index.js', 'target/CACHEDIR.TAG', 'scratch/notes.txt', 'src/app.txt'])
      expect(fs.existsSync(path.join(wt, stays)), stays).toBe(true)
    expect(await countsNow(record)).toEqual(counts(result))
  })

  it('none reclaims nothing', async () => {
    const record = keptOne('none')
    write(record.path, 'build/cache/CACHEDIR.TAG', `${SIGNATURE}\n`)
    expect((await exitAs(record, { reclaim: NONE })).reclaimed).toBeUndefined()
    expect(fs.existsSync(path.join(record.path, 'build/cache/CACHEDIR.TAG'))).toBe(true)
  })
})

describe('patterns', () => {
  it('reclaims the ignored folders they name, at any depth; a tracked file, an untracked file and an ignored file stay', async () => {
    const record = keptOne('patterns')
    const wt = record.path
    for (let i = 0; i < 50; i++) write(wt, `node_modules/pkg${i}/index.js`, `module ${i}\n`)
    write(wt, 'packages/a/node_modules/dep/index.js', 'dep\n')
    // A tracked file in an ignored folder: the folder stays with it, what else is in it and ignored goes.
    write(wt, 'vendor/node_modules/patched/index.js', 'patched\n')
    git(wt, 'add', '--force', 'vendor/node_modules/patched/index.js')
    git(wt, 'commit', '--quiet', '-m', 'vendor a patched module')
    git(wt, 'push', '--quiet', 'origin', `HEAD:refs/heads/${record.branch}`)
    write(wt, 'vendor/node_modules/junk/index.js', 'junk\n')
    // Secrets: an ignored file, an untracked one git does not ignore, an untracked folder: none is a folder git ignores.
    write(wt, '.env', 'TOKEN=1\n')
    write(wt, '.env.local', 'TOKEN=2\n')
    write(wt, 'secrets/key.txt', 'key\n')
    const result = await exitAs(record, { reclaim: { patterns: ['node_modules', '.env*', 'secrets'], tagged: false } })
    expect(result.reclaimed?.folders.map(f => f.path).sort()).toEqual(['node_modules', 'packages/a/node_modules', 'vendor/node_modules/junk'])
    expect(result.reclaimed?.folders.find(f => f.path === 'node_modules')?.files).toBe(50)
    expect(fs.existsSync(path.join(wt, 'node_modules'))).toBe(false)
    expect(fs.existsSync(path.join(wt, 'packages/a/node_modules'))).toBe(false)
    for (const stays of ['vendor/node_modules/patched/index.js', '.env', '.env.local', 'secrets/key.txt'])
      expect(fs.existsSync(path.join(wt, stays)), stays).toBe(true)
    expect(await countsNow(record)).toEqual(counts(result))
  })

  it('never through a link: a matching link is unlinked, what it points to in the checkout stays', async () => {
    // The checkout's own .venv and node_modules; the worktree links to them (node_modules as symlink-dirs does).
    write(repos.clone, '.venv/lib/site.py', 'site\n')
    write(repos.clone, 'node_modules/dep/index.js', 'dep\n')
    const record = keptOne('links', { links: ['node_modules'] })
    const wt = record.path
    fs.symlinkSync(path.join(repos.clone, '.venv'), path.join(wt, '.venv'))
    fs.symlinkSync(path.join(repos.clone, 'node_modules'), path.join(wt, 'node_modules'))
    // A folder reached through a link: `deps` leads into the checkout, whose node_modules the pattern names.
    fs.symlinkSync(repos.clone, path.join(wt, 'deps'))
    const result = await exitAs(record, { reclaim: { patterns: ['.venv', 'node_modules'], tagged: true } })
    expect(result.reclaimed?.folders).toEqual([
      { path: '.venv', bytes: 0, files: 0, link: true },
      { path: 'node_modules', bytes: 0, files: 0, link: true }
    ])
    expect(fs.readFileSync(path.join(repos.clone, '.venv/lib/site.py'), 'utf8')).toBe('site\n')
    expect(fs.readFileSync(path.join(repos.clone, 'node_modules/dep/index.js'), 'utf8')).toBe('dep\n')
    expect(fs.lstatSync(path.join(wt, 'deps')).isSymbolicLink()).toBe(true)
    expect(fs.existsSync(path.join(wt, '.venv'))).toBe(false)
  })

  it('keeps a folder that holds a repository, clean and saved as it may be: it is work', async () => {
    const record = keptOne('nested')
    const wt = record.path
    git(wt, 'clone', '--quiet', repos.origin, path.join(wt, 'build', 'copy'))
    write(wt, 'build/CACHEDIR.TAG', `${SIGNATURE}\n`)
    write(wt, 'target/debug/app', 'binary\n')
    const result = await exitAs(record, { reclaim: { patterns: ['build', 'target'], tagged: true } })
    expect(result.findings?.nested).toEqual([])
    expect(result.reclaimed).toEqual({
      folders: [{ path: 'target', bytes: expect.any(Number), files: 1 }],
      spared: [{ path: 'build', why: 'repository' }]
    })
    expect(git(path.join(wt, 'build', 'copy'), 'status', '--porcelain')).toBe('')
    expect(await countsNow(record)).toEqual(counts(result))
  })

  it('keeps a folder that holds work the gate counted: a file a restore put back there', async () => {
    const record = keptOne('restored')
    write(record.path, 'build/restored.txt', 'put back by a restore\n')
    const brought = { excludes: '', included: {}, restored: ['build/restored.txt'] }
    const file = path.join(repos.root, 'brought.json')
    fs.writeFileSync(file, JSON.stringify(brought))
    const { createHash } = await import('node:crypto')
    const sealed = { ...record, brought: { file, sha256: createHash('sha256').update(JSON.stringify(brought)).digest('hex') } }
    const result = await exitAs(sealed, { reclaim: { patterns: ['build'], tagged: false } })
    expect(result.findings?.uncommitted).toContainEqual({ code: '??', path: 'build/restored.txt' })
    expect(result.reclaimed?.spared).toEqual([{ path: 'build', why: 'work' }])
    expect(fs.existsSync(path.join(record.path, 'build/restored.txt'))).toBe(true)
  })
})
