// Covers: src/rescue/snapshot.ts, src/rescue/rescue.ts through the bundles.
// What an adversarial run found against the rescue, each a test that failed on the code before its fix: a
// secret include-file brought in leaving the machine under another name, in a commit, the index or a stash;
// a folder swapped for a link while the rescue copies; work the snapshot missed while the message said it
// was rescued; a post that read a huge file end to end; names two rescues of one job shared. Through the
// committed bundles, as the runner runs them; pushes go to a real bare origin, artifacts to the stand-in of
// GitHub's artifact service (the only part that cannot be real here).
import { execFileSync, spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { addSubmodule, git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { restoreCommandsOf, runRestore } from '../helpers/restore.js'
import { startResultsService, type ResultsService } from '../helpers/results-service.js'
import { HOSTED, warnings } from '../helpers/steps.js'

const SECRET = 'TOKEN=s3cr3t-value-42'
const BASE = { 'README.md': '# sample\n', 'src/app.txt': 'app\n', 'src/other.txt': 'other\n', '.gitignore': 'build/\n' }

interface Lab {
  repos: Repos
  service: ResultsService
  j: Job
  temp: string
}

async function lab(t: TestContext, files: Record<string, string> = BASE): Promise<Lab> {
  const repos = makeRepos(files)
  const service = await startResultsService()
  t.onTestFinished(async () => {
    await service.close()
    // Walks by descriptors: it removes folders deeper than PATH_MAX too.
    execFileSync('python3', ['-c', 'import shutil,sys; shutil.rmtree(sys.argv[1], ignore_errors=True)', repos.root])
  })
  const temp = path.join(repos.root, 'runner', '_temp')
  return { repos, service, j: new Job({ workspace: repos.clone, temp, env: { ...HOSTED, ...service.env } }), temp }
}

/** A .env holding a secret, which the checkout ignores through info/exclude and include-file copies. */
async function withSecret(t: TestContext): Promise<Lab & { wt: string; gitDir: string }> {
  const l = await lab(t)
  write(l.repos.clone, '.env', `${SECRET}\n`)
  write(l.repos.clone, '.worktreeinclude', '.env\n')
  fs.appendFileSync(path.join(l.repos.clone, '.git', 'info', 'exclude'), '.env\n.worktreeinclude\n')
  const main = await l.j.uses('.', { rescue: 'artifact,branch' })
  expect(main.exitCode, main.stdout).toBe(0)
  expect(fs.readFileSync(path.join(main.outputs['worktree-path'], '.env'), 'utf8')).toBe(`${SECRET}\n`)
  return { ...l, wt: main.outputs['worktree-path'], gitDir: main.outputs['git-dir'] }
}

/** Where the secret's bytes went off the machine: the pushed branches' objects, the artifacts' bundle and patch. */
function leaks(l: Lab): string[] {
  const found: string[] = []
  const holds = (repo: string, sha: string): boolean => git(repo, 'cat-file', '-t', sha) === 'blob' && git(repo, 'cat-file', 'blob', sha).includes(SECRET)
  for (const ref of git(l.repos.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent-worktree-rescue').split('\n').filter(Boolean)) {
    for (const line of git(l.repos.origin, 'rev-list', '--objects', ref).split('\n'))
      if (holds(l.repos.origin, line.split(' ')[0])) found.push(`${ref}: ${line}`)
  }
  for (const [name, zip] of l.service.artifacts) {
    const dir = path.join(l.repos.root, `unzipped-${name}`)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'a.zip'), zip)
    execFileSync('unzip', ['-q', '-o', path.join(dir, 'a.zip'), '-d', dir])
    if (fs.readFileSync(path.join(dir, 'rescue.patch'), 'utf8').includes(SECRET)) found.push(`${name}: rescue.patch`)
    // A clone of the origin has the bundle's prerequisites; only the objects the bundle brings are searched.
    const repo = path.join(dir, 'r')
    git(l.repos.root, 'clone', '--quiet', '--bare', l.repos.origin, repo)
    const before = new Set(git(repo, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n'))
    git(repo, 'fetch', '--quiet', path.join(dir, 'rescue.bundle'), 'refs/*:refs/bundle/*')
    for (const sha of git(repo, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)').split('\n'))
      if (!before.has(sha) && holds(repo, sha)) found.push(`${name}: bundle blob ${sha}`)
  }
  return found
}

describe.concurrent('what include-file brought in never leaves the machine', () => {
  it('under another name: a copy, a hard link, the backup an editor left, renamed; the rest of the work is sent', async t => {
    const l = await withSecret(t)
    fs.copyFileSync(path.join(l.wt, '.env'), path.join(l.wt, 'leak.txt'))
    fs.linkSync(path.join(l.wt, '.env'), path.join(l.wt, 'hard.txt'))
    execFileSync('sed', ['-i.bak', 's/^TOKEN=/API_TOKEN=/', '.env'], { cwd: l.wt })
    fs.renameSync(path.join(l.wt, '.env.bak'), path.join(l.wt, 'renamed.txt'))
    write(l.wt, 'notes.txt', 'notes\n')
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain('pushed to the branch')
    expect(leaks(l)).toEqual([])
    expect(warnings(post).join('\n')).toMatch(/leak\.txt` \(the bytes of a file include-file brought in/)
    const branch = git(l.repos.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent-worktree-rescue')
    expect(git(l.repos.origin, 'show', `${branch}:notes.txt`)).toBe('notes')
  })

  it('staged, and in a stash: left out, the rest sent', async t => {
    const l = await withSecret(t)
    git(l.wt, 'add', '-f', '.env')
    git(l.wt, '-c', 'user.name=a', '-c', 'user.email=a@b', 'stash', '--quiet')
    git(l.wt, 'stash', 'apply', '--quiet', '--index')
    write(l.wt, 'notes.txt', 'notes\n')
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain(`Kept \`${l.wt}\``)
    expect(leaks(l)).toEqual([])
  })

  it('committed: nothing is sent, and the warning says why', async t => {
    const l = await withSecret(t)
    git(l.wt, 'add', '-f', '.env')
    git(l.wt, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '--quiet', '-m', 'env')
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain(`Kept \`${l.wt}\``)
    expect(warnings(post).join('\n')).toMatch(/Rescue: nothing was sent: a commit or the index would carry the bytes of `\.env`/)
    expect(leaks(l)).toEqual([])
    expect(l.service.artifacts.size).toBe(0)
  })

  it.for(['deleted', 'rewritten'] as const)("the main step's account of it in RUNNER_TEMP %s: nothing is sent", async (how, t) => {
    const l = await withSecret(t)
    const [brought] = fs.readdirSync(l.temp).filter(f => f.endsWith('-brought.json'))
    if (how === 'deleted') fs.rmSync(path.join(l.temp, brought))
    else fs.writeFileSync(path.join(l.temp, brought), JSON.stringify({ excludes: '', included: {} }))
    write(l.wt, 'notes.txt', 'notes\n')
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain(`Kept \`${l.wt}\``)
    expect(warnings(post).join('\n')).toContain('Rescue: nothing was sent: what the job brought in')
    expect(leaks(l)).toEqual([])
  })

  it('a huge sparse file in its place is never read end to end', async t => {
    const l = await lab(t)
    write(l.repos.clone, '.env', 'TOKEN=secret\n')
    write(l.repos.clone, '.worktreeinclude', '.env\n')
    // Uncommitted: the worktree does not ignore .env.
    fs.appendFileSync(path.join(l.repos.clone, '.gitignore'), '.env\n.worktreeinclude\n')
    const { outputs } = await l.j.uses('.', { rescue: 'branch' })
    const env = path.join(outputs['worktree-path'], '.env')
    fs.truncateSync(env, 0)
    fs.truncateSync(env, 4 * 1024 ** 3) // a hole: no disk used, seconds to read
    const started = Date.now()
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain('Kept')
    expect(Date.now() - started).toBeLessThan(8_000)
  })
})

it('no file of RUNNER_TEMP reaches the rescue through a folder swapped for a link while it copies', async t => {
  // A process the agent leaves running swaps folders of the worktree for links to RUNNER_TEMP (renameat2
  // RENAME_EXCHANGE): the agent needs no access to RUNNER_TEMP, a link to it is enough.
  const SWAPPER = [
    'import ctypes, os, sys, time',
    'libc = ctypes.CDLL(None, use_errno=True)',
    'wt, n, stop = sys.argv[1], int(sys.argv[2]), time.time() + float(sys.argv[3])',
    'os.chdir(wt)',
    'while time.time() < stop:',
    '    for i in range(n): libc.renameat2(-100, f"d{i}".encode(), -100, f"l{i}".encode(), 2)'
  ].join('\n')
  const CREDENTIAL = 'AUTHORIZATION: basic ghs_leaked_credential_0123456789'
  const FILE = 'git-credentials-0b7c.config'
  const DIRS = 1500
  const l = await lab(t)
  const { outputs } = await l.j.uses('.', { rescue: 'branch' })
  fs.writeFileSync(path.join(l.temp, FILE), `${CREDENTIAL}\n`)
  const wt = outputs['worktree-path']
  for (let i = 0; i < DIRS; i++) {
    write(wt, `d${i}/${FILE}`, 'decoy\n')
    fs.symlinkSync(l.temp, path.join(wt, `l${i}`))
  }
  const swapper = spawn('python3', ['-c', SWAPPER, wt, String(DIRS), '60'], { stdio: 'ignore' })
  try {
    await new Promise(resolve => setTimeout(resolve, 300))
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain('Kept')
  } finally {
    swapper.kill('SIGKILL')
  }
  const refs = git(l.repos.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent-worktree-rescue').split('\n').filter(Boolean)
  const leaked = refs.flatMap(ref =>
    git(l.repos.origin, 'rev-list', '--objects', ref)
      .split('\n')
      .filter(line => line.endsWith(FILE) && git(l.repos.origin, 'cat-file', '-p', line.split(' ')[0]).includes(CREDENTIAL))
  )
  expect(leaked).toEqual([])
})

/** Writes an index of regular files (name, blob id) byte by byte, as the agent can: git checks no path in it. */
function forgeIndex(gitDir: string, entries: [string, string][]): void {
  const parts = entries.map(([name, id]) => {
    const fixed = Buffer.alloc(40)
    fixed.writeUInt32BE(0o100644, 24)
    const bytes = Buffer.concat([fixed, Buffer.from(id, 'hex'), Buffer.from([0, name.length]), Buffer.from(name)])
    return Buffer.concat([bytes, Buffer.alloc(8 - (bytes.length % 8))])
  })
  const header = Buffer.from('DIRC\0\0\0\x02\0\0\0\0', 'latin1')
  header.writeUInt32BE(entries.length, 8)
  const body = Buffer.concat([header, ...parts])
  fs.writeFileSync(path.join(gitDir, 'index'), Buffer.concat([body, createHash('sha1').update(body).digest()]))
}

/** Each file git lists (tracked, and untracked: all, or those not ignored) by the bytes of its name: its mode and content. */
function digest(dir: string, all = false): Map<string, string> {
  const listed = execFileSync('git', ['-C', dir, 'ls-files', '-z', '--cached', '--others', ...(all ? [] : ['--exclude-standard'])])
  const out = new Map<string, string>()
  let start = 0
  for (let i = 0; i < listed.length; i++) {
    if (listed[i] !== 0) continue
    const name = listed.subarray(start, i)
    start = i + 1
    const full = Buffer.concat([Buffer.from(`${dir}/`), name])
    let stat: fs.Stats | undefined
    try {
      stat = fs.lstatSync(full, { throwIfNoEntry: false })
    } catch {
      stat = undefined // a folder on the way is a file now
    }
    if (!stat || stat.isDirectory()) continue
    const what = stat.isSymbolicLink()
      ? `link:${fs.readlinkSync(full)}`
      : `${stat.mode & 0o111 ? 'x' : '-'}:${createHash('sha256').update(fs.readFileSync(full)).digest('hex').slice(0, 12)}`
    out.set(JSON.stringify(name.toString('latin1')), what)
  }
  return out
}

/** The agent's work, the post's rescue to a branch, and the printed command pasted into a fresh clone. */
async function roundTrip(t: TestContext, agent: (wt: string, repos: Repos) => void, all = false) {
  const l = await lab(t)
  const main = await l.j.uses('.', { rescue: 'branch' })
  const wt = main.outputs['worktree-path']
  agent(wt, l.repos)
  const before = digest(wt, all)
  const [post] = await l.j.runPosts()
  expect(post.stdout, post.stdout).toContain('pushed to the branch')
  const into = path.join(l.repos.root, 'restored')
  runRestore(restoreCommandsOf(post.stdout)[0], { origin: l.repos.origin, into })
  return {
    before,
    after: digest(into, all),
    leftOut: warnings(post)
      .filter(m => /left out/i.test(m))
      .join('\n'),
    stdout: post.stdout
  }
}

describe.concurrent('the snapshot holds what the agent left, or names what it does not', () => {
  it('a .gitignore path that climbs out of the worktree, in an index the agent forged, is never written anywhere', async t => {
    const l = await lab(t)
    const { outputs } = await l.j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    // A changed .gitignore makes the snapshot read the index's .gitignore files.
    fs.appendFileSync(path.join(wt, '.gitignore'), 'plan.md\n')
    const rule = execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: wt, input: '*\n', encoding: 'utf8' }).trim()
    // git itself refuses such a path: the index is written by hand (version 2, as git reads it).
    forgeIndex(outputs['git-dir'], [
      ['../../../../escape/.gitignore', rule],
      ['.gitignore', git(wt, 'rev-parse', 'HEAD:.gitignore')]
    ])
    fs.mkdirSync(path.join(l.repos.root, 'escape'))
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain(`Kept \`${wt}\``)
    expect(fs.readdirSync(path.join(l.repos.root, 'escape'))).toEqual([])
  })

  it('a tracked folder replaced by a file of the same name', async t => {
    const o = await roundTrip(t, wt => {
      fs.rmSync(path.join(wt, 'src'), { recursive: true })
      write(wt, 'src', 'now a file\n')
    })
    expect(o.after).toEqual(o.before)
  })

  it('a folder whose name is not UTF-8, with a .gitignore that hides it and itself', async t => {
    const o = await roundTrip(
      t,
      wt => {
        const dir = Buffer.concat([Buffer.from(`${wt}/work`), Buffer.from([0xff]), Buffer.from('dir')])
        fs.mkdirSync(dir)
        fs.writeFileSync(Buffer.concat([dir, Buffer.from('/.gitignore')]), '*\n')
        fs.writeFileSync(Buffer.concat([dir, Buffer.from('/plan.md')]), 'the plan\n')
      },
      true
    )
    expect(o.after).toEqual(o.before)
  })

  it('a line the agent added to a tracked .gitignore hides a new file: it is rescued; what was ignored before stays out', async t => {
    const o = await roundTrip(
      t,
      wt => {
        fs.appendFileSync(path.join(wt, '.gitignore'), 'plan.md\n')
        write(wt, 'plan.md', 'the plan\n')
        write(wt, 'build/output.bin', 'built\n')
      },
      true
    )
    expect(o.after.get('"plan.md"')).toBe(o.before.get('"plan.md"'))
    expect(o.after.has('"build/output.bin"')).toBe(false)
  })

  it('a name with a backslash is rescued; a nested repository is named for what it is', async t => {
    const o = await roundTrip(t, wt => {
      write(wt, 'back\\slash.txt', 'work\n')
      git(wt, 'init', '--quiet', 'nested')
      write(wt, 'nested/work.txt', 'nested work\n')
    })
    expect(o.after.get('"back\\\\slash.txt"')).toBe(o.before.get('"back\\\\slash.txt"'))
    expect(o.leftOut).toMatch(/`nested` \(a repository of its own: the work in it is not in the rescue\)/)
    expect(o.leftOut).not.toContain('reached through a symbolic link')
  })

  it('a named pipe in place of a .gitignore: the rest is rescued, and the untracked files are named', async t => {
    const l = await lab(t)
    const { outputs } = await l.j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    write(wt, 'src/app.txt', 'changed\n')
    fs.mkdirSync(path.join(wt, 'sub'))
    execFileSync('mkfifo', [path.join(wt, 'sub/.gitignore')])
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain('pushed to the branch')
    expect(warnings(post).join('\n')).toMatch(/left out .*`untracked files` \(git could not list them/)
    const branch = git(l.repos.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent-worktree-rescue')
    expect(git(l.repos.origin, 'show', `${branch}:src/app.txt`)).toBe('changed')
  })

  it('a submodule with a new file and a new commit is named as left out', async t => {
    const l = await lab(t)
    addSubmodule(l.repos)
    const { outputs } = await l.j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    git(wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--quiet')
    write(wt, 'lib/draft.txt', 'submodule work\n')
    git(path.join(wt, 'lib'), 'add', 'draft.txt')
    git(path.join(wt, 'lib'), 'commit', '--quiet', '-m', 'a day of work in the submodule')
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain('pushed to the branch')
    expect(warnings(post).join('\n')).toMatch(/left out [^\n]*`lib` \(a repository of its own/)
  })

  it('a new file deeper than PATH_MAX, the only work: kept', async t => {
    const l = await lab(t)
    const { outputs } = await l.j.uses('.', { rescue: 'branch' })
    const wt = outputs['worktree-path']
    const name = 'd'.repeat(230)
    execFileSync('python3', [
      '-c',
      `import os,sys\nos.chdir(sys.argv[1])\nfor i in range(20):\n  os.mkdir('${name}'); os.chdir('${name}')\nopen('deep.txt','w').write('a day of work\\n')`,
      wt
    ])
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain(`Kept \`${wt}\``)
    expect(post.stdout).toContain('could not open directory')
  })
})

describe.concurrent('bounds and names', () => {
  it('the artifact, bundle and patch together, stays within rescue-max-size', async t => {
    const l = await lab(t)
    const { outputs } = await l.j.uses('.', { rescue: 'artifact', 'rescue-max-size': '1MB' })
    fs.writeFileSync(path.join(outputs['worktree-path'], 'model.bin'), randomBytes(900 * 1024))
    const [post] = await l.j.runPosts()
    expect(post.stdout).toContain('uploaded as the artifact')
    const [zip] = [...l.service.artifacts.values()]
    expect(zip.length).toBeLessThanOrEqual(1024 * 1024)
  })

  it('a job that keeps a worktree, enters it again by path and keeps it again rescues twice, under two names', async t => {
    const l = await lab(t)
    const first = await l.j.uses('.', { name: 'agent', rescue: 'artifact,branch' })
    const wt = first.outputs['worktree-path']
    write(wt, 'first.txt', 'first attempt\n')
    const exit = await l.j.uses('exit', { 'on-exit': 'keep' })
    expect(exit.outputs.rescued, exit.stdout).toBe('true')
    const again = await l.j.uses('.', { path: wt, rescue: 'artifact,branch', 'on-exit': 'keep' })
    expect(again.exitCode, again.stdout).toBe(0)
    write(wt, 'second.txt', 'second attempt\n')
    const posts = await l.j.runPosts()
    expect(posts.map(p => p.stdout).join('\n')).not.toMatch(/Rescue to (a branch|an artifact) failed/)
    expect(l.service.artifacts.size).toBe(2)
    const branches = git(l.repos.origin, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent-worktree-rescue').split('\n')
    expect(branches).toEqual(['refs/heads/agent-worktree-rescue/agent/agents-77-2', 'refs/heads/agent-worktree-rescue/agent/agents-77-2-take2'])
    expect(git(l.repos.origin, 'ls-tree', '-r', '--name-only', branches[1])).toContain('second.txt')
  })
})
