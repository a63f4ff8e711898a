// Covers: src/rescue/rescue.ts, src/rescue/snapshot.ts through the bundles.
// Rescue: when the post keeps unsaved work, a copy leaves the machine, and a fresh clone brings it back
// byte for byte. Through the committed bundles, as the runner runs them; pushes go to a real bare origin,
// artifacts to a stand-in of GitHub's artifact service (the only part that cannot be real here).
import { execFileSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { addSubmodule, commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { restoreCommandsOf, runRestore } from '../helpers/restore.js'
import { HOSTED } from '../helpers/steps.js'
import { startResultsService, type ResultsService } from '../helpers/results-service.js'

let repos: Repos
let service: ResultsService | undefined

beforeEach(() => {
  repos = makeRepos({ 'README.md': '# sample\n', 'src/app.txt': 'app\n', 'src/run.sh': '#!/bin/sh\necho run\n', 'docs/guide.md': 'guide\n' })
})
afterEach(async () => {
  await service?.close()
  service = undefined
  repos.cleanup()
})

function job(env: Record<string, string> = {}): Job {
  return new Job({ workspace: repos.clone, temp: path.join(repos.root, 'runner', '_temp'), env: { ...HOSTED, ...env } })
}

/** Every file the agent left that git does not ignore, with its bytes, mode and link target: "what the agent left". */
function digest(dir: string): string {
  const listed = execFileSync('git', ['-C', dir, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  const hash = createHash('sha256')
  for (const file of [...new Set(listed.split('\0').filter(Boolean))].sort()) {
    const full = path.join(dir, file)
    const stat = fs.lstatSync(full, { throwIfNoEntry: false })
    if (!stat) continue // deleted in the worktree, still in the index
    hash.update(
      `${file}\0${stat.isSymbolicLink() ? `link:${fs.readlinkSync(full)}` : `${stat.mode & 0o111 ? 'x' : '-'}:${fs.readFileSync(full).toString('base64')}`}\0`
    )
  }
  return hash.digest('hex')
}

/** The worktree as git sees it: HEAD (symbolic), status, and the index's bytes. */
function state(wt: string): string {
  const gitDir = git(wt, 'rev-parse', '--absolute-git-dir')
  return [
    fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8'),
    git(wt, 'status', '--porcelain=v2', '--branch', '--untracked-files=all'),
    createHash('sha256')
      .update(fs.existsSync(path.join(gitDir, 'index')) ? fs.readFileSync(path.join(gitDir, 'index')) : '')
      .digest('hex')
  ].join('\n')
}

/** Every kind of unsaved work the gate knows, in one worktree. Returns the commits made. */
function everyKindOfWork(wt: string): string[] {
  const onBranch = commit(wt, 'feature.txt', 'feature\n')
  git(wt, 'switch', '--quiet', '--detach')
  const elsewhere = commit(wt, 'experiment.txt', 'experiment\n')
  git(wt, 'switch', '--quiet', '-')
  write(wt, 'src/app.txt', 'modified\n')
  write(wt, 'staged.txt', 'staged then changed\n')
  git(wt, 'add', 'staged.txt')
  write(wt, 'staged.txt', 'changed after staging\n')
  fs.rmSync(path.join(wt, 'docs/guide.md'))
  fs.chmodSync(path.join(wt, 'src/run.sh'), 0o644)
  fs.symlinkSync('src/app.txt', path.join(wt, 'link-to-app'))
  write(wt, 'new/untracked.txt', 'untracked\n')
  write(wt, 'build/ignored.bin', 'ignored, not work\n')
  return [onBranch, elsewhere]
}

/** A fresh clone of the origin with the rescue fetched and checked out: what a person gets back. */
function restoreFrom(source: string, ref: string, into: string): string {
  git(repos.root, 'clone', '--quiet', repos.origin, into)
  git(into, 'fetch', '--quiet', source, ref)
  git(into, 'switch', '--quiet', '-c', 'rescued', 'FETCH_HEAD')
  return git(into, 'rev-parse', 'HEAD')
}

function reachableFrom(clone: string, tip: string, sha: string): boolean {
  return git(clone, 'rev-list', tip).split('\n').includes(sha)
}

describe('rescue to a branch', () => {
  it('pushes one commit holding every kind of unsaved work; a fresh clone gets it back byte for byte, the worktree untouched', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    const commits = everyKindOfWork(wt)
    const [before, seen] = [digest(wt), state(wt)]
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(post.stdout).toContain(`Kept \`${wt}\``)
    const branch = `agent-worktree-rescue/${outputs.name}/agents-77-2`
    expect(post.stdout).toContain(`pushed to the branch \`${branch}\` of \`origin\``)
    expect(state(wt)).toBe(seen)
    expect(digest(wt)).toBe(before)
    const restored = path.join(repos.root, 'restored')
    const [command] = restoreCommandsOf(post.stdout)
    expect(command).toContain(`git fetch origin ${branch}`)
    const tip = runRestore(command, { origin: repos.origin, into: restored })
    expect(digest(restored)).toBe(before)
    for (const sha of commits) expect(reachableFrom(restored, tip, sha)).toBe(true)
    // The staged version is kept too, as the index parent.
    expect(git(restored, 'show', `${tip}^2:staged.txt`)).toBe('staged then changed')
    expect(fs.existsSync(path.join(restored, 'build/ignored.bin'))).toBe(false)
  })

  it('rescues files git cannot see or name plainly: behind a .gitignore that hides its folder, a name with a leading quote', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    write(wt, 'feature/.gitignore', '*\n')
    write(wt, 'feature/a.txt', 'feature work\n')
    write(wt, 'q', 'plain q\n')
    write(wt, '"q"', 'quoted q\n')
    const [post] = await j.runPosts()
    expect(post.stdout).toContain('pushed to the branch')
    const restored = path.join(repos.root, 'restored')
    const tip = restoreFrom(repos.origin, `refs/heads/agent-worktree-rescue/${outputs.name}/agents-77-2`, restored)
    expect(git(restored, 'show', `${tip}:feature/a.txt`)).toBe('feature work')
    expect(git(restored, 'show', `${tip}:"q"`)).toBe('quoted q')
    expect(git(restored, 'show', `${tip}:q`)).toBe('plain q')
  })

  it('rescues untracked files when the index is gone (state unknown), and keeps a submodule as the index has it', async () => {
    addSubmodule(repos)
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--quiet')
    const pinned = git(wt, 'rev-parse', 'HEAD:lib')
    write(wt, 'lib/draft.txt', 'submodule work\n')
    write(wt, 'untracked.txt', 'untracked work\n')
    fs.rmSync(path.join(outputs['git-dir'], 'index'))
    const [post] = await j.runPosts()
    expect(post.stdout).toContain('pushed to the branch')
    const restored = path.join(repos.root, 'restored')
    const tip = restoreFrom(repos.origin, `refs/heads/agent-worktree-rescue/${outputs.name}/agents-77-2`, restored)
    expect(git(restored, 'show', `${tip}:untracked.txt`)).toBe('untracked work')
    expect(git(restored, 'ls-tree', tip, 'lib')).toBe(`160000 commit ${pinned}\tlib`)
  })

  it.each(['merge', 'rebase'])('rescues a %s left in progress, with the commits it was bringing in', async kind => {
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    git(wt, 'switch', '--quiet', '-c', 'side')
    const side = commit(wt, 'src/app.txt', 'side\n')
    git(wt, 'switch', '--quiet', '-')
    commit(wt, 'src/app.txt', 'ours\n')
    try {
      if (kind === 'merge') git(wt, 'merge', '--quiet', 'side')
      else git(wt, 'rebase', '--quiet', 'side')
    } catch {
      // a conflict: it stays in progress
    }
    git(wt, 'branch', '-D', 'side')
    const before = digest(wt)
    const [post] = await j.runPosts()
    expect(post.stdout).toContain('pushed to the branch')
    const restored = path.join(repos.root, 'restored')
    const tip = restoreFrom(repos.origin, `refs/heads/agent-worktree-rescue/${outputs.name}/agents-77-2`, restored)
    expect(digest(restored)).toBe(before)
    expect(reachableFrom(restored, tip, side)).toBe(true)
  })

  it('warns and keeps the worktree, the job green, when the push is refused', async () => {
    fs.writeFileSync(path.join(repos.origin, 'hooks', 'pre-receive'), '#!/bin/sh\necho "protected: no new branches" >&2\nexit 1\n', { mode: 0o755 })
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    write(outputs['worktree-path'], 'work.txt', 'work\n')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    const warnings = post.annotations.filter(a => a.level === 'warning').map(a => a.message)
    expect(warnings.join('\n')).toContain('Rescue to a branch failed')
    expect(warnings.join('\n')).toContain('protected: no new branches')
    expect(fs.readFileSync(path.join(outputs['worktree-path'], 'work.txt'), 'utf8')).toBe('work\n')
  })

  it('gives up on a remote that accepts and never answers, within the time limit, and keeps the worktree', async () => {
    const silent = net.createServer(() => undefined)
    await new Promise<void>(resolve => silent.listen(0, '127.0.0.1', resolve))
    try {
      git(repos.clone, 'remote', 'set-url', '--push', 'origin', `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/repo.git`)
      const j = job()
      const { outputs } = await j.uses('.', { rescue: 'branch' })
      write(outputs['worktree-path'], 'work.txt', 'work\n')
      const started = Date.now()
      const [post] = await j.runPosts()
      expect(Date.now() - started).toBeLessThan(70_000)
      expect(post.exitCode).toBe(0)
      expect(post.annotations.map(a => a.message).join('\n')).toMatch(/Rescue to a branch failed: .*(nothing for 30 s|ran out of the time)/)
      expect(fs.existsSync(path.join(outputs['worktree-path'], 'work.txt'))).toBe(true)
    } finally {
      silent.close()
    }
    // The rescue's own 60 s, beside what the steps around it need on a loaded machine (vitest.config.ts).
  }, 180_000)
})

describe('rescue to an artifact', () => {
  it('uploads a bundle and a patch with the real artifact client; a fresh clone gets the work back from the bundle', async () => {
    service = await startResultsService()
    const j = job(service.env)
    const { outputs } = await j.uses('.')
    const wt = outputs['worktree-path']
    const commits = everyKindOfWork(wt)
    const before = digest(wt)
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    const name = `agent-worktree-rescue-${outputs.name}-agents-77-2`
    expect(post.stdout).toContain(`uploaded as the artifact \`${name}\``)
    expect(post.stdout).toContain(`gh run download 77 --repo octo/sample --name ${name}`)
    expect(service.requests).toContain('POST /twirp/github.actions.results.api.v1.ArtifactService/FinalizeArtifact')
    const zip = path.join(repos.root, 'artifact.zip')
    fs.writeFileSync(zip, service.artifacts.get(name)!)
    const unpacked = path.join(repos.root, 'rescue')
    execFileSync('unzip', ['-q', zip, '-d', unpacked])
    expect(fs.readdirSync(unpacked).sort()).toEqual(['README.txt', 'rescue.bundle', 'rescue.patch'])
    const [command] = restoreCommandsOf(post.stdout)
    const restored = path.join(repos.root, 'restored')
    const tip = runRestore(command, { origin: repos.origin, into: restored, artifacts: service.artifacts })
    expect(digest(restored)).toBe(before)
    for (const sha of commits) expect(reachableFrom(restored, tip, sha)).toBe(true)
    // The patch applies to the base in a clone and gives the same files.
    const patched = path.join(repos.root, 'patched')
    git(repos.root, 'clone', '--quiet', repos.origin, patched)
    git(patched, 'apply', '--index', path.join(unpacked, 'rescue.patch'))
    expect(fs.readFileSync(path.join(patched, 'new/untracked.txt'), 'utf8')).toBe('untracked\n')
  })

  it('is the default on a GitHub-hosted runner and never on a self-hosted one', async () => {
    service = await startResultsService()
    const selfHosted = job({ ...service.env, RUNNER_ENVIRONMENT: 'self-hosted' })
    const { outputs } = await selfHosted.uses('.')
    write(outputs['worktree-path'], 'work.txt', 'work\n')
    const [post] = await selfHosted.runPosts()
    expect(post.stdout).toContain('Nothing was copied off this machine (rescue: none)')
    expect(service.requests).toEqual([])
  })

  it('warns, keeps the worktree and leaves the job green without an artifact service', async () => {
    const j = job()
    const { outputs } = await j.uses('.')
    write(outputs['worktree-path'], 'work.txt', 'work\n')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(post.annotations.map(a => a.message).join('\n')).toContain('Rescue to an artifact failed')
    expect(fs.existsSync(path.join(outputs['worktree-path'], 'work.txt'))).toBe(true)
  })

  it('leaves out the largest files over rescue-max-size, and says which', async () => {
    service = await startResultsService()
    const j = job(service.env)
    const { outputs } = await j.uses('.', { 'rescue-max-size': '4KB' })
    const wt = outputs['worktree-path']
    write(wt, 'small.txt', 'small\n')
    write(wt, 'big.bin', 'x'.repeat(20_000))
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(post.annotations.map(a => a.message).join('\n')).toContain('left out 1 file(s) over the size limit: `big.bin`')
    expect(post.stdout).toContain('uploaded as the artifact')
    expect(fs.statSync(path.join(wt, 'big.bin')).size).toBe(20_000)
  })

  it('bounds everything it sends by rescue-max-size: a big staged file is left out and named, the rest still sent', async () => {
    service = await startResultsService()
    const j = job(service.env)
    const { outputs } = await j.uses('.', { 'rescue-max-size': '1MB', rescue: 'artifact,branch' })
    const wt = outputs['worktree-path']
    fs.writeFileSync(path.join(wt, 'model.bin'), Buffer.alloc(20_000_000, 7))
    git(wt, 'add', 'model.bin')
    fs.rmSync(path.join(wt, 'model.bin')) // staged, then gone from disk: only the index has it
    write(wt, 'notes.txt', 'notes\n')
    const [post] = await j.runPosts()
    expect(post.annotations.map(a => a.message).join('\n')).toContain('left out 1 file(s) over the size limit: `model.bin`')
    const branch = `refs/heads/agent-worktree-rescue/${outputs.name}/agents-77-2`
    expect(git(repos.origin, 'ls-tree', '-r', '--name-only', branch)).not.toContain('model.bin')
    expect(git(repos.origin, 'show', `${branch}:notes.txt`)).toBe('notes')
    expect(Math.max(...[...service.artifacts.values()].map(zip => zip.length))).toBeLessThan(1_000_000)
    expect(git(wt, 'diff', '--cached', '--name-only')).toBe('model.bin') // the worktree's index untouched
  })

  it('sends nothing when the commits alone are over rescue-max-size, says so, and keeps the work on the machine', async () => {
    service = await startResultsService()
    const j = job(service.env)
    const { outputs } = await j.uses('.', { 'rescue-max-size': '1MB', rescue: 'artifact,branch' })
    const wt = outputs['worktree-path']
    fs.writeFileSync(path.join(wt, 'model.bin'), randomBytes(20_000_000))
    git(wt, 'add', 'model.bin')
    git(wt, 'commit', '--quiet', '-m', 'a 20 MB model')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(post.annotations.map(a => a.message).join('\n')).toMatch(/nothing was sent: it would send (19|20)(\.\d)? MB .*more than rescue-max-size/)
    expect(service.artifacts.size).toBe(0)
    expect(git(repos.origin, 'for-each-ref', 'refs/heads/agent-worktree-rescue')).toBe('')
    expect(post.stdout).toContain(`Kept \`${wt}\``)
  })
})

describe('what the job brought in stays on the machine', () => {
  /** A .env the checkout ignores by `how`, which include-file copies into the worktree. */
  function secretIgnoredBy(how: 'info/exclude' | 'an uncommitted .gitignore line' | 'core.excludesFile'): void {
    write(repos.clone, '.env', 'TOKEN=secret\n')
    write(repos.clone, '.worktreeinclude', '.env\n')
    if (how === 'info/exclude') fs.appendFileSync(path.join(repos.clone, '.git', 'info', 'exclude'), '.env\n.worktreeinclude\n')
    else if (how === 'core.excludesFile') {
      write(repos.root, 'global-ignore', '.env\n.worktreeinclude\n')
      git(repos.clone, 'config', 'core.excludesFile', path.join(repos.root, 'global-ignore'))
    } else fs.appendFileSync(path.join(repos.clone, '.gitignore'), '.env\n.worktreeinclude\n')
  }

  it.each(['info/exclude', 'an uncommitted .gitignore line', 'core.excludesFile'] as const)(
    'a .env ignored by %s that include-file copied: the untouched worktree is removed, and nothing is sent',
    async how => {
      secretIgnoredBy(how)
      const j = job()
      const { outputs } = await j.uses('.', { rescue: 'branch' })
      const wt = outputs['worktree-path']
      expect(fs.readFileSync(path.join(wt, '.env'), 'utf8')).toBe('TOKEN=secret\n')
      const [post] = await j.runPosts()
      expect(post.stdout).toContain('Removed')
      expect(fs.existsSync(wt)).toBe(false)
      expect(git(repos.origin, 'for-each-ref', 'refs/heads/agent-worktree-rescue')).toBe('')
    }
  )

  it('a copied .env the worktree does not ignore, changed by the agent, is work: kept and named, and never sent', async () => {
    // (Ignored in the worktree, by its .gitignore files or the rules of enter, a changed copy is like every
    // ignored file: not work.)
    secretIgnoredBy('an uncommitted .gitignore line')
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    write(wt, '.env', 'TOKEN=another secret\n')
    write(wt, 'notes.txt', 'notes\n')
    const [post] = await j.runPosts()
    expect(post.stdout).toContain(`Kept \`${wt}\``)
    expect(post.annotations.map(a => a.message).join('\n')).toContain('`.env` (brought in by include-file and changed since: it may hold secrets)')
    const branch = `refs/heads/agent-worktree-rescue/${outputs.name}/agents-77-2`
    expect(git(repos.origin, 'ls-tree', '-r', '--name-only', branch).split('\n')).toEqual(expect.arrayContaining(['notes.txt']))
    expect(git(repos.origin, 'ls-tree', '-r', '--name-only', branch)).not.toMatch(/^\.env$/m)
    expect(fs.readFileSync(path.join(wt, '.env'), 'utf8')).toBe('TOKEN=another secret\n')
  })

  it('an ignore rule the agent adds after enter hides nothing: its file is kept and rescued', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    write(wt, 'notes.txt', 'notes\n')
    const gitDir = git(wt, 'rev-parse', '--git-common-dir')
    fs.appendFileSync(path.join(path.resolve(wt, gitDir), 'info', 'exclude'), 'notes.txt\n')
    git(repos.clone, 'config', 'core.excludesFile', path.join(repos.root, 'agent-ignore'))
    write(repos.root, 'agent-ignore', 'notes.txt\n')
    const [post] = await j.runPosts()
    expect(post.stdout).toContain(`Kept \`${wt}\``)
    expect(git(repos.origin, 'show', `refs/heads/agent-worktree-rescue/${outputs.name}/agents-77-2:notes.txt`)).toBe('notes')
  })
})

describe('two legs of one matrix given one name', () => {
  it('rescue apart, to two branches and two artifacts, without asking for a unique name', async () => {
    service = await startResultsService()
    // Each leg on a machine of its own: its own clone and runner temp.
    const legs = [0, 1].map(jobIndex => {
      const workspace = path.join(repos.root, `machine-${jobIndex}`, 'repo', 'repo')
      git(repos.root, 'clone', '--quiet', repos.origin, workspace)
      return new Job({
        workspace,
        temp: path.join(repos.root, `machine-${jobIndex}`, '_temp'),
        env: { ...HOSTED, ...service!.env },
        strategy: { jobIndex, jobTotal: 2 }
      })
    })
    const names: string[] = []
    for (const [i, leg] of legs.entries()) {
      const { outputs } = await leg.uses('.', { name: 'agent', rescue: 'artifact,branch' })
      write(outputs['worktree-path'], 'leg.txt', `leg ${i}\n`)
    }
    for (const leg of legs) {
      const [post] = await leg.runPosts()
      expect(post.annotations.map(a => a.message).join('\n')).not.toContain('failed')
      names.push(...restoreCommandsOf(post.stdout))
    }
    const branches = git(repos.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent-worktree-rescue').split('\n')
    expect(branches).toHaveLength(2)
    expect(service.artifacts.size).toBe(2)
    for (const [i, branch] of branches.sort().entries()) expect(git(repos.origin, 'show', `${branch}:leg.txt`)).toBe(`leg ${i}`)
    expect(new Set(names).size).toBe(4)
  })
})

describe('the exit sub-action', () => {
  it('says where the work went in its outputs, and the reason as a stable code', async () => {
    const j = job()
    const { outputs } = await j.uses('.', { rescue: 'branch' })
    write(outputs['worktree-path'], 'work.txt', 'work\n')
    const exit = await j.uses('exit')
    expect(exit.outputs).toMatchObject({
      action: 'keep',
      removed: 'false',
      reason: 'unsaved',
      rescued: 'true',
      'rescue-ref': `agent-worktree-rescue/${outputs.name}/agents-77-2`,
      'rescue-artifact': ''
    })
    expect(exit.outputs.message).toContain('git fetch origin')
  })
})
