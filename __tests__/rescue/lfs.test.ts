// Covers: src/remote/lfs.ts, src/remote/push.ts, src/rescue/rescue.ts, src/rescue/find-rescue.ts, src/rescue/restore.ts (Git LFS objects), through the bundles and on its own.
// A rescue sends what the gate counted as the repository stores it: a commit or the index that adds a Git LFS file
// holds a pointer, and the file's bytes are an object of the repository's LFS store. The rescue sends the objects
// with the branch (to the LFS server of the remote of enter) and in the artifact, and a restore from the artifact
// writes the real bytes. Real git and git-lfs; the LFS server is a bare repository reached by a file:// URL (git-lfs
// 3's own standalone file transfer agent stores objects in its lfs/objects), the artifact service the one stand-in
// (results-service.ts).
import { randomBytes, createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { startResultsService, type ResultsService } from '../helpers/results-service.js'
import { extractEntry, zipEntries } from '../../src/rescue/artifact-zip.js'
import { copyChecked, lfsRemote, pointerOf, storeObjects } from '../../src/remote/lfs.js'
import { restoreCommandsOf, runRestore } from '../helpers/restore.js'
import { warnings } from '../helpers/steps.js'
import { available } from '../helpers/tools.js'

const HAS_LFS = available('git-lfs', ['git', 'lfs', 'version'], 'the Git LFS rescue tests')

let repos: Repos
let service: ResultsService
const content = randomBytes(5000)
const oid = createHash('sha256').update(content).digest('hex')
const objectIn = (store: string): string => path.join(store, 'lfs', 'objects', oid.slice(0, 2), oid.slice(2, 4), oid)

/** A clone as actions/checkout leaves it with `lfs: true`: git-lfs set up in the repository's config; *.bin in LFS. */
function lfsClone(dir: string): void {
  git(dir, 'lfs', 'install', '--local')
}

beforeEach(async () => {
  repos = makeRepos()
  lfsClone(repos.clone)
  write(repos.clone, '.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n')
  git(repos.clone, 'add', '-A')
  git(repos.clone, 'commit', '--quiet', '-m', 'LFS for *.bin')
  git(repos.clone, 'push', '--quiet', 'origin', 'main')
  service = await startResultsService()
})
afterEach(async () => {
  await service.close()
  repos.cleanup()
})

function job(workspace = repos.clone, env: Record<string, string> = {}): Job {
  return new Job({
    workspace,
    temp: path.join(repos.root, `runner-${randomBytes(3).toString('hex')}`, '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1', ...service.env, ...env }
  })
}

/** The files of an uploaded artifact's zip, by name. */
async function unzipped(zip: Buffer): Promise<Map<string, Buffer>> {
  const dir = fs.mkdtempSync(path.join(repos.root, 'zip-'))
  fs.writeFileSync(path.join(dir, 'a.zip'), zip)
  const files = new Map<string, Buffer>()
  for (const [i, entry] of (zipEntries(path.join(dir, 'a.zip')) ?? []).entries()) {
    await extractEntry(path.join(dir, 'a.zip'), entry, path.join(dir, String(i)))
    files.set(entry.name, fs.readFileSync(path.join(dir, String(i))))
  }
  return files
}

/** The agent adds model.bin, an LFS file: committed, or only staged. */
function addModel(wt: string, how: 'committed' | 'staged'): void {
  fs.writeFileSync(path.join(wt, 'model.bin'), content)
  git(wt, 'add', 'model.bin')
  if (how === 'committed') git(wt, 'commit', '--quiet', '-m', 'a model')
  // git-lfs stored the object in the repository's LFS store (a clone's own); the commit or index holds its pointer.
  expect(fs.readFileSync(objectIn(git(wt, 'rev-parse', '--path-format=absolute', '--git-common-dir')))).toEqual(content)
}

describe.skipIf(!HAS_LFS)('a rescue sends the Git LFS objects its commits and index point to', () => {
  it.for([
    ['committed', 'branch', 'worktree'],
    ['staged', 'artifact', 'worktree'],
    ['staged', 'artifact', 'clone']
  ] as const)(
    'a %s LFS file: the object goes to the LFS server of the remote of enter and into the artifact; a restore of the %s on a fresh machine writes its bytes (isolation: %s)',
    async ([how, from, isolation]) => {
      const j = job()
      const main = await j.uses('.', { name: 'lfs', rescue: 'artifact,branch', isolation })
      expect(main.exitCode, main.stdout).toBe(0)
      addModel(main.outputs['worktree-path'], how)
      const [post] = await j.runPosts()
      const said = warnings(post).join('\n')
      expect(said).toContain('pushed to the branch `agent-worktree-rescue/lfs/agents-5-1`')
      // On the LFS server of origin (its own lfs/objects, where git-lfs's file transfer agent keeps them).
      expect(fs.readFileSync(objectIn(repos.origin))).toEqual(content)
      // In the artifact, beside the bundle.
      const artifact = /uploaded as the artifact `(\S+?)`\./.exec(said)?.[1]
      expect(artifact, said).toBeDefined()
      const branch = /pushed to the branch `(\S+)` of `origin`/.exec(said)?.[1]
      const files = await unzipped(service.artifacts.get(artifact!)!)
      expect(files.get(`lfs/objects/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}`)).toEqual(content)

      // By hand, as the message says, in a fresh clone of a person with git-lfs set up: the branch's objects come
      // from the LFS server, the artifact's from the artifact (no LFS server answers that person).
      const home = path.join(repos.root, 'home')
      write(home, '.gitconfig', '[filter "lfs"]\n\tprocess = git-lfs filter-process\n\trequired = true\n')
      const noServer = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'lfs.url', GIT_CONFIG_VALUE_0: 'http://127.0.0.1:1/none' }
      const [byBranch, byArtifact] = restoreCommandsOf(post.stdout)
      const into = path.join(repos.root, 'by-hand', from)
      runRestore(from === 'branch' ? byBranch : byArtifact, {
        origin: repos.origin,
        into,
        artifacts: service.artifacts,
        env: { HOME: home, ...(from === 'artifact' ? noServer : {}) }
      })
      expect(fs.readFileSync(path.join(into, 'model.bin'))).toEqual(content)

      // A later job on a fresh machine: a new clone with git-lfs set up, its LFS store empty; restore by name (the
      // artifact's objects come with it, the branch's from the LFS server).
      const fresh = path.join(repos.root, 'fresh', 'repo')
      git(repos.root, 'clone', '--quiet', repos.origin, fresh)
      lfsClone(fresh)
      const later = job(fresh, { GITHUB_JOB: 'publish' })
      const restored = await later.uses('.', { restore: from === 'artifact' ? artifact! : branch!, isolation })
      expect(restored.exitCode, restored.stdout).toBe(0)
      const wt = restored.outputs['worktree-path']
      expect(fs.readFileSync(path.join(wt, 'model.bin'))).toEqual(content)
      expect(fs.readFileSync(objectIn(git(wt, 'rev-parse', '--path-format=absolute', '--git-common-dir')))).toEqual(content)
      // git reads the file as the pointer the index holds: nothing changed on disk but what was rescued.
      expect(git(wt, 'status', '--porcelain')).toBe(how === 'staged' ? 'A  model.bin' : '')
      expect(git(wt, 'show', `${how === 'staged' ? '' : 'HEAD'}:model.bin`)).toContain(`oid sha256:${oid}`)
    }
  )

  it.for(['the repository config', "the base's .lfsconfig"])(
    'an lfs.url, .lfsconfig and transfer agent the agent planted after enter: the objects go only to the endpoint of enter (named by %s), and nothing planted runs',
    async named => {
      // The workflow's own LFS server at enter: another bare repository, named by lfs.url in the repository's config
      // (as a workflow sets it) or in the .lfsconfig the base commit holds (as a repository does).
      const server = path.join(repos.root, 'lfs-server.git')
      const planted = path.join(repos.root, 'planted.git')
      const marker = path.join(repos.root, 'planted-ran')
      git(repos.root, 'init', '--quiet', '--bare', server)
      git(repos.root, 'init', '--quiet', '--bare', planted)
      if (named === 'the repository config') git(repos.clone, 'config', 'lfs.url', `file://${server}`)
      else {
        write(repos.clone, '.lfsconfig', `[lfs]\n\turl = file://${server}\n`)
        git(repos.clone, 'add', '.lfsconfig')
        git(repos.clone, 'commit', '--quiet', '-m', 'the LFS server')
        git(repos.clone, 'push', '--quiet', 'origin', 'main')
      }
      const j = job()
      const main = await j.uses('.', { name: 'lfs', rescue: 'branch' })
      const wt = main.outputs['worktree-path']
      // The agent: every place git-lfs takes an endpoint or a transfer program from, in the config and the worktree.
      const agent = path.join(repos.root, 'agent.sh')
      fs.writeFileSync(agent, `#!/bin/sh\ntouch ${marker}\nexit 1\n`, { mode: 0o755 })
      for (const [key, value] of [
        ['lfs.url', `file://${planted}`],
        ['lfs.pushurl', `file://${planted}`],
        ['remote.origin.lfsurl', `file://${planted}`],
        ['remote.origin.lfspushurl', `file://${planted}`],
        ['lfs.standalonetransferagent', 'planted'],
        ['lfs.customtransfer.planted.path', agent]
      ])
        git(repos.clone, 'config', key, value)
      write(wt, '.lfsconfig', `[lfs]\n\turl = file://${planted}\n\tpushurl = file://${planted}\n`)
      git(wt, 'add', '.lfsconfig')
      git(wt, '-c', `lfs.url=file://${server}`, '-c', 'lfs.standalonetransferagent=', 'commit', '--quiet', '-m', 'LFS elsewhere')
      addModel(wt, 'committed')
      const [post] = await j.runPosts()
      expect(warnings(post).join('\n')).toContain('pushed to the branch `agent-worktree-rescue/lfs/agents-5-1`')
      expect(fs.readFileSync(objectIn(server))).toEqual(content)
      expect(fs.existsSync(objectIn(planted))).toBe(false)
      expect(fs.existsSync(objectIn(repos.origin))).toBe(false)
      expect(fs.existsSync(marker)).toBe(false)
    }
  )

  it('a git-lfs the agent wrote into a folder of PATH after enter, before the one of enter: the git-lfs of enter sends the objects', async () => {
    const bin = path.join(repos.root, 'bin')
    fs.mkdirSync(bin)
    const marker = path.join(repos.root, 'planted-ran')
    const j = job(repos.clone, { PATH: `${bin}${path.delimiter}${process.env.PATH}` })
    const main = await j.uses('.', { name: 'lfs', rescue: 'branch' })
    addModel(main.outputs['worktree-path'], 'committed')
    fs.writeFileSync(path.join(bin, 'git-lfs'), `#!/bin/sh\ntouch ${marker}\nexit 1\n`, { mode: 0o755 })
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n')).toContain('pushed to the branch `agent-worktree-rescue/lfs/agents-5-1`')
    expect(fs.readFileSync(objectIn(repos.origin))).toEqual(content)
    expect(fs.existsSync(marker)).toBe(false)
  })

  it('a staged LFS file weighs what its object does: over rescue-max-size, it is left out first and named, and the rest is sent', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'lfs', rescue: 'branch', 'rescue-max-size': '4KB' })
    const wt = main.outputs['worktree-path']
    addModel(wt, 'staged')
    write(wt, 'notes.txt', 'a small note\n')
    const [post] = await j.runPosts()
    const said = warnings(post).join('\n')
    expect(said).toContain('Rescue: left out 1 file(s) over the size limit: `model.bin`.')
    expect(said).toContain('pushed to the branch `agent-worktree-rescue/lfs/agents-5-1`')
    expect(git(repos.origin, 'show', 'agent-worktree-rescue/lfs/agents-5-1:notes.txt')).toBe('a small note')
    expect(fs.existsSync(objectIn(repos.origin))).toBe(false)
  })

  it('an object the LFS server of enter does not take: the branch is not pushed (its commits would count as saved), and the rescue says why', async () => {
    git(repos.clone, 'config', 'lfs.url', 'http://127.0.0.1:1/lfs')
    const j = job()
    const main = await j.uses('.', { name: 'lfs', rescue: 'branch' })
    addModel(main.outputs['worktree-path'], 'committed')
    const [post] = await j.runPosts()
    const said = warnings(post).join('\n')
    expect(said).toMatch(
      /Rescue to a branch failed: git lfs push `origin` of 1 object\(s\) \([0-9a-f]{12}\) failed: .*127\.0\.0\.1:1.*The branch was not pushed/s
    )
    expect(git(repos.origin, 'branch', '--list', 'agent-worktree-rescue/*')).toBe('')
  })
})

describe.skipIf(!HAS_LFS)('the push input sends the Git LFS objects first', () => {
  it('a commit adding an LFS file: its object goes to the LFS server of enter, then the commit; the worktree, all saved, goes', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'pushed' })
    addModel(main.outputs['worktree-path'], 'committed')
    const exit = await j.uses('exit', { push: 'true' })
    expect(exit.exitCode, exit.stdout).toBe(0)
    expect(fs.readFileSync(objectIn(repos.origin))).toEqual(content)
    expect(exit.outputs).toMatchObject({ pushed: 'true', removed: 'true', reason: 'clean' })
  })

  it('an object the LFS server of enter does not take: the commit is not pushed, the step fails, and the worktree is kept with its work', async () => {
    git(repos.clone, 'config', 'lfs.url', 'http://127.0.0.1:1/lfs')
    const j = job()
    const main = await j.uses('.', { name: 'pushed' })
    addModel(main.outputs['worktree-path'], 'committed')
    const exit = await j.uses('exit', { push: 'true', rescue: 'none' })
    expect(exit.exitCode).not.toBe(0)
    expect(exit.stdout).toMatch(/git lfs push `origin` of 1 object\(s\) .*failed: .*127\.0\.0\.1:1.*so the commit was not pushed either/s)
    expect(git(repos.origin, 'branch', '--list', main.outputs.branch)).toBe('')
    expect(exit.outputs).toMatchObject({ removed: 'false' })
  })
})

describe('the objects of a store, checked by their names', () => {
  const pointer = (o: string, size: number): Buffer => Buffer.from(`version https://git-lfs.github.com/spec/v1\noid sha256:${o}\nsize ${size}\n`)

  it('reads a pointer as git-lfs writes it, and nothing else as one', () => {
    expect(pointerOf(pointer(oid, 5000))).toEqual({ oid, size: 5000 })
    expect(pointerOf(Buffer.concat([pointer(oid, 5000), Buffer.alloc(1024)]))).toBeUndefined()
    expect(pointerOf(Buffer.from(`oid sha256:${oid}\nsize 5000\n`))).toBeUndefined()
  })

  it('names a remote for git-lfs: a local path as a file:// URL, URLs and scp-like addresses as they are', () => {
    expect(lfsRemote('/srv/origin.git')).toBe('file:///srv/origin.git')
    expect(lfsRemote('https://github.com/octo/sample')).toBe('https://github.com/octo/sample')
    expect(lfsRemote('git@github.com:octo/sample.git')).toBe('git@github.com:octo/sample.git')
  })

  it('copies only a regular file whose bytes are its name, and stores none through a link or over an object', () => {
    const store = path.join(repos.root, 'store')
    const from = path.join(store, 'lfs', 'objects', oid.slice(0, 2), oid.slice(2, 4))
    fs.mkdirSync(from, { recursive: true })
    const wrong = createHash('sha256').update('other').digest('hex')
    fs.writeFileSync(path.join(from, oid), content)
    // A link to the right bytes, and bytes that are not their name.
    const linked = randomBytes(100)
    const linkOid = createHash('sha256').update(linked).digest('hex')
    fs.writeFileSync(path.join(repos.root, 'secret'), linked)
    fs.mkdirSync(path.join(store, 'lfs', 'objects', linkOid.slice(0, 2), linkOid.slice(2, 4)), { recursive: true })
    fs.symlinkSync(path.join(repos.root, 'secret'), path.join(store, 'lfs', 'objects', linkOid.slice(0, 2), linkOid.slice(2, 4), linkOid))
    fs.mkdirSync(path.join(store, 'lfs', 'objects', wrong.slice(0, 2), wrong.slice(2, 4)), { recursive: true })
    fs.writeFileSync(path.join(store, 'lfs', 'objects', wrong.slice(0, 2), wrong.slice(2, 4), wrong), 'not other')
    const into = path.join(repos.root, 'copies')
    const objects = {
      store: path.join(store, 'lfs', 'objects'),
      objects: [
        { oid, size: 5000 },
        { oid: linkOid, size: 100 },
        { oid: wrong, size: 9 }
      ]
    }
    expect(copyChecked(objects, into).map(o => o.oid)).toEqual([linkOid, wrong])
    expect(fs.readFileSync(path.join(into, oid.slice(0, 2), oid.slice(2, 4), oid))).toEqual(content)
    expect(fs.existsSync(path.join(into, linkOid.slice(0, 2), linkOid.slice(2, 4), linkOid))).toBe(false)
    // Into a repository whose lfs folder is a link: nothing; into one with a plain folder: the checked object.
    const linkedRepo = path.join(repos.root, 'linked.git')
    fs.mkdirSync(linkedRepo)
    fs.symlinkSync(path.join(repos.root, 'elsewhere'), path.join(linkedRepo, 'lfs'))
    fs.mkdirSync(path.join(repos.root, 'elsewhere'))
    expect(storeObjects(objects.store, linkedRepo, [oid])).toBe(0)
    expect(fs.readdirSync(path.join(repos.root, 'elsewhere'))).toEqual([])
    const plainRepo = path.join(repos.root, 'plain.git')
    fs.mkdirSync(plainRepo)
    expect(storeObjects(objects.store, plainRepo, [oid, wrong])).toBe(1)
    expect(fs.readFileSync(objectIn(plainRepo))).toEqual(content)
    expect(storeObjects(objects.store, plainRepo, [oid])).toBe(0)
  })
})
