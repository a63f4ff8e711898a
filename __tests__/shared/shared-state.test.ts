// Covers: src/shared/shared-state.ts, src/shared/shared-refs.ts.
// What every worktree of a repository shares (branches, tags, the stash, the config, hooks), recorded at enter
// and compared at exit, through the committed bundles as the runner runs them. Each test has its own origin
// and clone, so they run concurrently.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { Git } from '../../src/git/git-command-manager.js'
import { compareShared, fromElsewhere, readSharedState, type SharedState } from '../../src/shared/shared-state.js'
import { commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

function reposFor(t: TestContext): Repos {
  const repos = makeRepos()
  t.onTestFinished(() => repos.cleanup())
  return repos
}

function job(repos: Repos, runner: string): Job {
  return new Job({ workspace: repos.clone, temp: path.join(repos.root, runner, '_temp'), env: { RUNNER_NAME: runner, GITHUB_RUN_ID: '7', GITHUB_JOB: runner } })
}

async function enter(j: Job, inputs: Record<string, string>): Promise<{ main: StepResult; wt: string }> {
  const main = await j.uses('.', inputs)
  expect(main.exitCode, main.stdout).toBe(0)
  return { main, wt: main.outputs['worktree-path'] }
}

const sharedWarnings = (step: StepResult): string[] => warnings(step).filter(w => w.startsWith('What every worktree of'))
const sharedInfo = (step: StepResult): string[] => step.stdout.split('\n').filter(line => line.startsWith('Changed meanwhile in what every worktree'))

describe.concurrent('what every worktree shares, at exit', () => {
  it('passes over the sample hooks git never runs, and names a hook made of one', async t => {
    const repos = reposFor(t)
    write(repos.clone, '.git/hooks/pre-push.sample', '#!/bin/sh\n')
    write(repos.clone, '.git/hooks/pre-rebase.sample', '#!/bin/sh\n')
    const j = job(repos, 'one')
    await enter(j, { name: 'samples' })
    write(repos.clone, '.git/hooks/pre-rebase.sample', '#!/bin/sh\necho edited\n')
    fs.renameSync(path.join(repos.clone, '.git/hooks/pre-push.sample'), path.join(repos.clone, '.git/hooks/pre-push'))
    const exit = await j.uses('exit', { 'discard-changes': 'true' })
    const [warning] = sharedWarnings(exit)
    expect(warning, exit.stdout).toContain(`hook \`${repos.clone}/.git/hooks/pre-push\` added`)
    expect(warning).not.toContain('.sample')
  })

  it('names each kind of change: a branch force-moved, a tag deleted and one made, a stash, a config key, hooks', async t => {
    const repos = reposFor(t)
    const release = git(repos.clone, 'rev-parse', 'HEAD')
    git(repos.clone, 'branch', 'release')
    git(repos.clone, 'tag', 'v1.0.0')
    write(repos.clone, '.git/hooks/post-checkout', '#!/bin/sh\n')
    const j = job(repos, 'one')
    const { wt } = await enter(j, { name: 'kinds' })
    const moved = commit(wt, 'agent.txt')
    git(wt, 'branch', '--force', 'release', moved)
    git(wt, 'tag', '--delete', 'v1.0.0')
    git(wt, 'tag', 'v2.0.0')
    write(wt, 'README.md', 'stashed edit\n')
    git(wt, 'stash')
    git(wt, 'config', 'user.email', 'agent@example.com')
    write(repos.clone, '.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n')
    write(repos.clone, '.git/hooks/post-checkout', '#!/bin/sh\necho changed\n')
    const exit = await j.uses('exit', { 'discard-changes': 'true' })
    const [warning] = sharedWarnings(exit)
    for (const named of [
      `\`refs/heads/release\` moved from ${release.slice(0, 12)} to ${moved.slice(0, 12)}`,
      `\`refs/tags/v1.0.0\` deleted (it was at ${release.slice(0, 12)})`,
      `\`refs/tags/v2.0.0\` created at ${moved.slice(0, 12)}`,
      '`refs/stash` created at',
      'reflog: `WIP on worktree-kinds',
      'config `user.email` added',
      `hook \`${repos.clone}/.git/hooks/pre-commit\` added`,
      `hook \`${repos.clone}/.git/hooks/post-checkout\` changed`,
      'may come from another job running at the same time',
      'Nothing was put back'
    ])
      expect(warning, exit.stdout).toContain(named)
    // Its own branch, its commits and its removal are the worktree's own.
    expect(warning).not.toContain('worktree-kinds ')
    const changes = JSON.parse(exit.outputs['shared-changes']) as { kind: string; name: string; change: string; from?: string; to?: string }[]
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'ref', name: 'refs/heads/release', change: 'moved', from: release, to: moved }))
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'config', name: 'user.email', change: 'added' }))
    expect(changes.map(c => c.name)).toEqual(expect.arrayContaining(['refs/tags/v1.0.0', 'refs/tags/v2.0.0', 'refs/stash']))
    expect(exit.summary).toContain(`Changed in what every worktree of <code>${repos.clone}</code> shares (7)`)
    // Nothing is put back, and the decision is the gate's alone (in the workspace, a local branch or tag saves
    // nothing: the agent's commit is discarded, as asked).
    expect(git(repos.clone, 'rev-parse', 'release')).toBe(moved)
    expect(exit.outputs.reason).toBe('discarded')
  })

  it('is said by the post too', async t => {
    const repos = reposFor(t)
    const j = job(repos, 'post')
    const { wt } = await enter(j, {})
    git(wt, 'tag', 'made-by-the-agent')
    const [post] = await j.runPosts()
    expect(sharedWarnings(post)[0]).toContain('`refs/tags/made-by-the-agent` created at')
    expect(post.summary).toContain('shares (1)')
    expect(post.stdout).toContain('Removed')
  })

  it('two worktrees of one job: the first one\u2019s exit deleting its own branch is no warning at the second\u2019s', async t => {
    const repos = reposFor(t)
    const j = job(repos, 'two')
    const first = await enter(j, { name: 'first' })
    const second = await enter(j, { name: 'second' })
    const exitFirst = await j.uses('exit', { path: first.wt })
    expect(exitFirst.outputs.removed, exitFirst.stdout).toBe('true')
    const exitSecond = await j.uses('exit', { path: second.wt })
    expect(exitSecond.outputs.removed, exitSecond.stdout).toBe('true')
    expect(sharedWarnings(exitSecond)).toEqual([])
    expect(sharedInfo(exitSecond)[0]).toContain(`\`refs/heads/worktree-first\` deleted`)
    expect(sharedInfo(exitSecond)[0]).toContain(`the worktree \`${first.wt}\`, which this job entered too`)
  })

  it('reports nothing for a clean job: its branch, its push, a fetched base, sparse settings', async t => {
    const repos = reposFor(t)
    // A newer origin/main, which fetch: true moves the remote-tracking branch to.
    const elsewhere = path.join(repos.root, 'elsewhere')
    git(repos.root, 'clone', '--quiet', repos.origin, elsewhere)
    commit(elsewhere, 'newer.txt')
    git(elsewhere, 'push', '--quiet', 'origin', 'main')
    const j = job(repos, 'clean')
    const { wt } = await enter(j, { name: 'clean', 'base-ref': 'origin/main', fetch: 'true', 'sparse-paths': 'src' })
    commit(wt, 'src/work.txt')
    git(wt, 'push', '--quiet', '--set-upstream', 'origin', 'HEAD')
    const exit = await j.uses('exit')
    expect(exit.outputs.reason, exit.stdout).toBe('clean')
    expect(warnings(exit)).toEqual([])
    expect(sharedInfo(exit)).toEqual([])
    expect(exit.outputs['shared-changes']).toBe('[]')
    expect(exit.summary).not.toContain('shares')
  })

  it('leaves a folder of many loose branches as it recorded it: the checkout does not write the new branch again', async t => {
    const repos = reposFor(t)
    execFileSync('git', ['update-ref', '--stdin'], {
      cwd: repos.clone,
      input: Array.from({ length: 1100 }, (_, i) => `create refs/heads/b${i} HEAD\n`).join('')
    })
    const j = job(repos, 'branches')
    const { main, wt } = await enter(j, { name: 'branches' })
    const record = JSON.parse(main.state.worktree) as { shared: { file: string } }
    const written = JSON.parse(fs.readFileSync(record.shared.file, 'utf8')) as SharedState
    // Recorded by name, after the worktree's branch was made: its time is the folder's when the main step ended,
    // so that an exit after a job that touched no branch lists none of 1,100 files again.
    const heads = fs.statSync(path.join(repos.clone, '.git', 'refs', 'heads'), { bigint: true })
    expect(written.refs.folders?.named['refs/heads']?.time).toBe(String(heads.mtimeNs))
    expect(git(wt, 'reflog', '--format=%gs')).not.toContain('reset: moving to HEAD')
  })

  it('says which changes another job made only where a worktree it held at enter tells: a worktree added since, and a reflog, prove nothing', async t => {
    const repos = reposFor(t)
    git(repos.clone, 'branch', 'release')
    // The second job entered before the first: its worktree is one the first knew at enter.
    const second = job(repos, 'second')
    const { wt } = await enter(second, { name: 'second' })
    const first = job(repos, 'first')
    await enter(first, { name: 'first' })
    // A third one enters after the first: nothing of its worktree is proof to the first.
    const third = job(repos, 'third')
    const { wt: wt3 } = await enter(third, { name: 'third' })
    // The second job's agent commits on its own branch, then on release, and makes a tag.
    commit(wt, 'own.txt')
    git(wt, 'switch', '--quiet', 'release')
    const moved = commit(wt, 'second.txt')
    git(wt, 'switch', '--quiet', 'worktree-second')
    git(wt, 'tag', 'from-second')
    const [post] = await first.runPosts()
    // The branch of a worktree the other job held at enter, and holds still: said in the log, not warned about.
    const [info] = sharedInfo(post)
    expect(info, post.stdout).toContain('`refs/heads/worktree-second` moved')
    expect(info).toContain(`the branch of the worktree \`${wt}\`, which another job holds (run \`7\` attempt \`1\` job \`second\` runner \`second\``)
    expect(info).not.toContain('release')
    const [warning] = sharedWarnings(post)
    // Placed by a reflog, which the agent can write as it likes: said, and warned about.
    expect(warning).toContain('`refs/heads/release` moved')
    expect(warning).toContain(`made in the worktree \`${wt}\`, which another job holds`)
    // The branch of a worktree added since enter: said, and warned about.
    expect(warning).toContain('`refs/heads/worktree-third` created at')
    expect(warning).toContain(`the branch of the worktree \`${wt3}\``)
    // A tag has no reflog: it cannot be placed, and may be this job's.
    expect(warning).toContain('`refs/tags/from-second` created at')
    expect(warning).toContain('may come from another job')
    // The second job's own post says the move was made in its worktree.
    const [own] = await second.runPosts()
    expect(sharedWarnings(own)[0]).toContain('`refs/heads/release` moved')
    expect(sharedWarnings(own)[0]).toContain(`made in this job's worktree`)
    expect(git(repos.clone, 'rev-parse', 'release')).toBe(moved)
  })

  it('names what changed among 10,000 loose tags, as a fetch of every tag leaves them, from their names', async t => {
    const repos = reposFor(t)
    execFileSync('git', ['update-ref', '--stdin'], {
      cwd: repos.clone,
      input: Array.from({ length: 10_000 }, (_, i) => `create refs/tags/t${i} HEAD\n`).join('')
    })
    const j = job(repos, 'loose')
    const { main, wt } = await enter(j, {})
    const record = JSON.parse(main.state.worktree) as { shared: { file: string } }
    // Names, not ids: the record holds 10,000 short names.
    expect(fs.statSync(record.shared.file).size).toBeLessThan(200 * 1024)
    const moved = commit(wt, 'agent.txt')
    git(wt, 'tag', '--delete', 't5000')
    git(wt, 'tag', '--force', 't6000', moved)
    const exit = await j.uses('exit')
    const [warning] = sharedWarnings(exit)
    expect(warning).toContain('`refs/tags/t5000` deleted (it was at an id not recorded at enter)')
    expect(warning).toContain(`\`refs/tags/t6000\` moved from an id not recorded at enter to ${moved.slice(0, 12)}`)
    // In the output, an id not known is null.
    expect(JSON.parse(exit.outputs['shared-changes'])).toEqual([
      { kind: 'ref', name: 'refs/tags/t5000', change: 'deleted', from: null },
      { kind: 'ref', name: 'refs/tags/t6000', change: 'moved', from: null, to: moved }
    ])
  })

  it('keeps a record of 10,000 refs out of the state, and believes it only as the main step wrote it', async t => {
    const repos = reposFor(t)
    const lines = Array.from({ length: 10_000 }, (_, i) => `create refs/tags/t${i} HEAD\n`).join('')
    execFileSync('git', ['update-ref', '--stdin'], { cwd: repos.clone, input: lines })
    git(repos.clone, 'pack-refs', '--all')
    const j = job(repos, 'many')
    const { main, wt } = await enter(j, {})
    expect(main.state.worktree.length).toBeLessThan(8 * 1024)
    git(wt, 'tag', '--delete', 't5000')
    const exit = await j.uses('exit')
    expect(sharedWarnings(exit)[0]).toContain('`refs/tags/t5000` deleted')

    // A record file that is not what the main step wrote is not believed: nothing is reported from it.
    const other = job(repos, 'tampered')
    const entered = await enter(other, {})
    const record = JSON.parse(entered.main.state.worktree) as { shared: { file: string } }
    const written = JSON.parse(fs.readFileSync(record.shared.file, 'utf8')) as SharedState
    fs.writeFileSync(record.shared.file, JSON.stringify({ ...written, refs: '' }))
    const [post] = await other.runPosts()
    expect(post.stdout).toContain('Removed')
    expect(sharedWarnings(post)).toEqual([])
  })
})

describe('comparing what is shared', () => {
  const state = (refs: string[], config: Record<string, string> = {}, hooks: Record<string, string> = {}): SharedState => ({
    at: 0,
    // As git lists them: sorted by ref, a line each.
    refs: {
      loose: [...refs]
        .sort((a, b) => (a.split(' ')[1] < b.split(' ')[1] ? -1 : 1))
        .map(line => `${line}\n`)
        .join('')
    },
    configFile: JSON.stringify(config),
    config,
    hooks
  })

  it('names refs created, moved and deleted, config keys and hooks added, changed and removed', () => {
    const [a, b] = ['a'.repeat(40), 'b'.repeat(40)]
    const before = state(
      [`${a} refs/heads/moved`, `${a} refs/tags/gone`, `${a} refs/heads/same`],
      { 'user.email': '1', 'core.x': '1' },
      { '/h/pre-commit': 'file 755 x' }
    )
    const after = state(
      [`${b} refs/heads/moved`, `${a} refs/heads/same`, `${b} refs/stash`],
      { 'user.email': '2', 'user.name': '1' },
      { '/h/pre-push': 'file 755 y' }
    )
    expect(compareShared(before, after, '').map(c => `${c.kind} ${c.name} ${c.change}`)).toEqual([
      'ref refs/heads/moved moved',
      'ref refs/stash created',
      'ref refs/tags/gone deleted',
      'config user.email changed',
      'config core.x removed',
      'config user.name added',
      'hook /h/pre-commit removed',
      'hook /h/pre-push added'
    ])
    expect(compareShared(before, before, '')).toEqual([])
  })

  it('leaves to the log what another job explains; a reflog proves nothing (anyone writes one, or copies one)', () => {
    const change = { kind: 'ref' as const, name: 'refs/remotes/origin/main', change: 'moved' as const }
    expect(fromElsewhere({ ...change, origin: { reflog: 'fetch: fast-forward' } })).toBe(false)
    expect(fromElsewhere({ ...change, name: 'refs/heads/main', origin: { reflog: 'fetch: fast-forward' } })).toBe(false)
    expect(fromElsewhere({ ...change, origin: { holder: { folder: '/w', whose: 'other-job' }, how: 'branch' } })).toBe(true)
    expect(fromElsewhere({ ...change, origin: { holder: { folder: '/w', whose: 'other-job' }, how: 'made' } })).toBe(false)
    expect(fromElsewhere({ ...change, origin: { holder: { folder: '/w', whose: 'this-job' }, how: 'made' } })).toBe(false)
  })
})

describe.concurrent('reading the refs as git does: packed-refs and the loose refs over it', () => {
  /** A clone with 60 tags and 60 branches, packed, and what it shares as the main step would record it. */
  async function packed(t: TestContext): Promise<{ repos: Repos; read: () => Promise<SharedState>; enter: SharedState; head: string }> {
    const repos = reposFor(t)
    const lines = Array.from({ length: 60 }, (_, i) => `create refs/tags/t${i} HEAD\ncreate refs/heads/b${i} HEAD\n`).join('')
    execFileSync('git', ['update-ref', '--stdin'], { cwd: repos.clone, input: lines })
    git(repos.clone, 'pack-refs', '--all')
    const commonDir = path.join(repos.clone, '.git')
    const read = (before?: SharedState): Promise<SharedState> =>
      readSharedState(new Git(repos.clone), commonDir, { branch: 'main', token: `t${process.hrtime.bigint()}` }, { before })
    const enter = await read()
    // Its copy of packed-refs went to the temp folder: no RUNNER_TEMP here.
    t.onTestFinished(() => fs.rmSync(enter.refs.packed!.file, { force: true }))
    return { repos, read: () => read(enter), enter, head: git(repos.clone, 'rev-parse', 'HEAD') }
  }

  it('sees a packed branch moved by a loose ref, a new tag, a packed tag deleted; not refs packed again', async t => {
    const { repos, read, enter, head } = await packed(t)
    const moved = commit(repos.clone, 'moved.txt')
    const changes = (after: SharedState): string[] => compareShared(enter, after, 'main').map(c => `${c.name} ${c.change} ${c.from ?? ''}>${c.to ?? ''}`)
    // packed-refs untouched: the packed value of b7 is looked up in it.
    git(repos.clone, 'update-ref', 'refs/heads/b7', moved)
    git(repos.clone, 'tag', 'fresh')
    const loose = [`refs/heads/b7 moved ${head}>${moved}`, `refs/tags/fresh created >${moved}`]
    expect(changes(await read())).toEqual(loose)
    // packed-refs rewritten, then every ref packed: the same changes.
    git(repos.clone, 'tag', '--delete', 't3')
    const all = [...loose, `refs/tags/t3 deleted ${head}>`]
    expect(changes(await read())).toEqual(all)
    git(repos.clone, 'pack-refs', '--all')
    expect(changes(await read())).toEqual(all)
  })

  it('sees many changes at once, parsing packed-refs whole', async t => {
    const { repos, read, enter } = await packed(t)
    for (let i = 10; i < 50; i++) git(repos.clone, 'tag', '--delete', `t${i}`)
    const changes = compareShared(enter, await read(), 'main')
    expect(changes.map(c => c.name).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `refs/tags/t${i + 10}`).sort())
    expect(changes.every(c => c.change === 'deleted')).toBe(true)
  })

  it('knows a folder of many loose refs by their names: looked at again only when its time changed, old ids from the reflogs', async t => {
    const repos = reposFor(t)
    const head = git(repos.clone, 'rev-parse', 'HEAD')
    // 1,100 loose tags (no reflog), and 1,100 remote-tracking branches a fetch wrote loose (each with a reflog).
    execFileSync('git', ['update-ref', '--stdin'], {
      cwd: repos.clone,
      input: Array.from({ length: 1100 }, (_, i) => `create refs/tags/t${i} HEAD\n`).join('')
    })
    execFileSync('git', ['update-ref', '--stdin'], {
      cwd: repos.origin,
      input: Array.from({ length: 1100 }, (_, i) => `create refs/heads/b${i} ${head}\n`).join('')
    })
    git(repos.clone, 'fetch', '--quiet', 'origin')
    const [repo, commonDir] = [new Git(repos.clone), path.join(repos.clone, '.git')]
    const own = { branch: 'worktree-named', token: `t${process.hrtime.bigint()}` }
    const enter = await readSharedState(repo, commonDir, own)
    t.onTestFinished(() => enter.refs.packed && fs.rmSync(enter.refs.packed.file, { force: true }))
    // The small folders are read whole, the two large ones named.
    expect(Object.keys(enter.refs.folders!.named).sort()).toEqual(['refs/remotes/origin', 'refs/tags'])
    expect(enter.refs.loose).toContain(`${head} refs/heads/main\n`)
    expect(enter.refs.loose).not.toContain('refs/tags/')
    const exit = async (): Promise<{ after: SharedState; changes: string[] }> => {
      const after = await readSharedState(repo, commonDir, own, { before: enter })
      const changes = compareShared(enter, after, own.branch, { commonDir }).map(
        c => `${c.name} ${c.change} ${c.from === null ? '?' : (c.from ?? '')}>${c.to ?? ''}`
      )
      return { after, changes }
    }
    const untouched = await exit()
    expect(untouched.changes).toEqual([])
    // Neither named folder was listed again, nor any ref in it read.
    expect(untouched.after.refs.loose).not.toMatch(/refs\/(tags|remotes)\//)
    expect(untouched.after.refs.gone).toEqual([])

    // The reflog's entries of enter's own second may be older than enter: the agent works in a later one.
    await new Promise(resolve => setTimeout(resolve, 1010 - (Date.now() % 1000)))
    const moved = commit(repos.clone, 'moved.txt')
    git(repos.clone, 'tag', '--delete', 't5')
    git(repos.clone, 'tag', '--force', 't7', moved)
    git(repos.clone, 'tag', 'fresh')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    git(repos.origin, 'update-ref', 'refs/heads/b3', moved)
    git(repos.origin, 'update-ref', '-d', 'refs/heads/b4')
    git(repos.clone, 'fetch', '--quiet', '--prune', 'origin')
    // A file no ref can be named after (a line break: a line of the record) is no ref.
    fs.writeFileSync(path.join(commonDir, 'refs', 'tags', 'odd\nname'), `${moved}\n`)
    const known = [
      `refs/heads/main moved ${head}>${moved}`,
      `refs/remotes/origin/b3 moved ${head}>${moved}`,
      // git deletes a ref's reflog with it, and a tag has none: where they were is not known.
      'refs/remotes/origin/b4 deleted ?>',
      `refs/remotes/origin/main moved ${head}>${moved}`,
      `refs/tags/fresh created >${moved}`,
      'refs/tags/t5 deleted ?>'
    ]
    expect((await exit()).changes).toEqual([...known.slice(0, 5), ...known.slice(5), `refs/tags/t7 moved ?>${moved}`].sort())
    // Every ref packed: a ref gone from its folder into packed-refs is the same unless its reflog says it moved.
    git(repos.clone, 'pack-refs', '--all')
    expect((await exit()).changes).toEqual(known)
  })
})
