// npm run bench:refs -- <baseline>: the main step (enter) and the post (exit) of this checkout against those of
// another checkout of the action (its committed dist/, say a worktree of an earlier commit), on a repository of
// 10,000 tags and 10,000 branches in three layouts: packed (what git clone leaves), loose (what a fetch of every
// ref leaves: actions/checkout with fetch-depth 0) and local branches (10,000 loose refs/heads). Each pair runs
// one cycle of each side, in alternating order; the figure is the median of the pairs' ratios (this / baseline).
// Two more layouts put 10,000 pull requests on the origin besides (refs/pull/<n>/head and /merge, each a commit
// the clone lacks, as GitHub has them) and make the post ask it: pushed, the agent's commit is on a branch of the
// origin (removed); unpushed, it is nowhere (kept, then cleared away for the next cycle).
//   BENCH_PAIRS=31 BENCH_LAYOUTS=packed,loose npm run bench:refs -- ../before
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Job, ROOT } from './runner.mjs'

const baseline = process.argv[2] && path.resolve(process.argv[2])
if (!baseline || !fs.existsSync(path.join(baseline, 'dist', 'main', 'index.js'))) {
  console.error('usage: npm run bench:refs -- <checkout of the action to compare with, with its dist/>')
  process.exit(2)
}
const PAIRS = Math.max(5, Number(process.env.BENCH_PAIRS ?? 31))
const LAYOUTS = (process.env.BENCH_LAYOUTS ?? 'packed,loose,branches,pushed,unpushed').split(',')
const REFS = 10_000
/** The layouts with 10,000 pull requests on the origin, and what the agent did with its commit. */
const PULLS = ['pushed', 'unpushed']
const CACHE = path.join(ROOT, '.bench')

/** @param {string} cwd @param {string[]} args */
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }).trim()
/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** An origin of 10 commits of 100 files with 10,000 tags and branches, and a clone of it in `layout`: built once. @param {string} layout */
function repository(layout) {
  const dir = path.join(CACHE, `refs-${PULLS.includes(layout) ? 'pulls' : layout}`)
  const clone = path.join(dir, 'clone')
  if (fs.existsSync(path.join(clone, '.git', 'bench-ready'))) return clone
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const origin = path.join(dir, 'origin.git')
  git(dir, 'init', '--quiet', '--bare', '-b', 'main', origin)
  const lines = []
  for (let c = 1; c <= 10; c++) {
    lines.push('commit refs/heads/main', `mark :${c}`, `committer Bench <bench@example.com> ${1700000000 + c} +0000`, 'data 1', `${c % 10}`)
    if (c > 1) lines.push(`from :${c - 1}`)
    for (let f = 0; f < 100; f++) lines.push(`M 100644 inline d${f % 10}/f${f}.txt`, 'data 6', `${c}:${f}`.padEnd(6, '.'))
  }
  for (let i = 0; i < REFS; i++) lines.push(`reset refs/tags/v${i}`, `from :${(i % 10) + 1}`, '', `reset refs/heads/b${i}`, `from :${(i % 10) + 1}`, '')
  if (PULLS.includes(layout)) {
    // Each pull request: its head, a commit on main, and its merge commit, as GitHub keeps them.
    for (let n = 1; n <= REFS; n++) {
      const at = `${1700000000 + n} +0000`
      lines.push(
        `commit refs/pull/${n}/head`,
        `mark :${100 + 2 * n}`,
        `committer Bench <bench@example.com> ${at}`,
        'data 3',
        `p${n % 10}`,
        `from :${(n % 10) + 1}`,
        ''
      )
      lines.push(`commit refs/pull/${n}/merge`, `committer Bench <bench@example.com> ${at}`, 'data 1', 'm', 'from :10', `merge :${100 + 2 * n}`, '')
    }
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: origin, input: `${lines.join('\n')}\n` })
  git(origin, 'pack-refs', '--all')
  // Not a local clone, which would take every object: the clone lacks the pull requests' commits.
  if (PULLS.includes(layout)) git(dir, 'clone', '--quiet', '--no-local', origin, clone)
  else if (layout === 'packed') git(dir, 'clone', '--quiet', origin, clone)
  else {
    fs.mkdirSync(clone)
    git(clone, 'init', '--quiet', '-b', 'main')
    git(clone, 'remote', 'add', 'origin', origin)
    const refspecs =
      layout === 'loose'
        ? ['--prune', '--tags', 'origin', '+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*']
        : ['--update-head-ok', 'origin', '+refs/heads/*:refs/heads/*', 'refs/heads/main:refs/remotes/origin/main']
    git(clone, 'fetch', '--quiet', ...refspecs)
    git(clone, 'checkout', '--quiet', '-B', 'main', 'refs/remotes/origin/main')
  }
  fs.writeFileSync(path.join(clone, '.git', 'bench-ready'), '')
  return clone
}

let jobs = 0
/**
 * One cycle of an action checkout: enter, then the post removes the clean worktree. In a layout with pull requests
 * the agent commits first, and pushes by URL (no remote-tracking branch) or not; the origin and the clone are put
 * back after. @param {string} root @param {string} clone @param {string} layout
 */
async function cycle(root, clone, layout) {
  const j = new Job({
    workspace: clone,
    temp: path.join(os.tmpdir(), `aw-bench-refs-${process.pid}`, String(++jobs)),
    env: { RUNNER_NAME: `bench-${jobs}` },
    shim: false
  })
  let start = performance.now()
  const main = await j.uses(root, { name: `refs-${jobs}` })
  const enter = performance.now() - start
  if (main.exitCode !== 0) throw new Error(`main failed: ${main.stdout}`)
  const wt = main.outputs['worktree-path']
  const origin = path.join(path.dirname(clone), 'origin.git')
  if (PULLS.includes(layout)) {
    git(wt, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'agent')
    if (layout === 'pushed') git(wt, 'push', '--quiet', origin, `HEAD:refs/heads/agent-${jobs}`)
  }
  start = performance.now()
  const [post] = await j.runPosts()
  const exit = performance.now() - start
  if (!post.stdout.includes(layout === 'unpushed' ? 'Kept' : 'Removed'))
    throw new Error(`post did not ${layout === 'unpushed' ? 'keep' : 'remove'}: ${post.stdout}`)
  if (layout === 'pushed') git(origin, 'update-ref', '-d', `refs/heads/agent-${jobs}`)
  if (layout === 'unpushed') {
    git(clone, 'worktree', 'unlock', wt)
    git(clone, 'worktree', 'remove', '--force', wt)
    git(clone, 'branch', '--quiet', '-D', main.outputs.branch)
    for (const ref of git(clone, 'for-each-ref', '--format=%(refname)', 'refs/agent-worktree/').split('\n').filter(Boolean)) git(clone, 'update-ref', '-d', ref)
  }
  return { enter, exit }
}

for (const layout of LAYOUTS) {
  const clone = repository(layout)
  await cycle(ROOT, clone, layout)
  await cycle(baseline, clone, layout)
  /** @type {Record<'enter' | 'exit', { a: number[], b: number[], ratio: number[] }>} */
  const r = { enter: { a: [], b: [], ratio: [] }, exit: { a: [], b: [], ratio: [] } }
  for (let i = 0; i < PAIRS; i++) {
    const [a, b] =
      i % 2
        ? [await cycle(baseline, clone, layout), await cycle(ROOT, clone, layout)].reverse()
        : [await cycle(ROOT, clone, layout), await cycle(baseline, clone, layout)]
    for (const stage of /** @type {const} */ (['enter', 'exit'])) {
      r[stage].a.push(a[stage])
      r[stage].b.push(b[stage])
      r[stage].ratio.push(a[stage] / b[stage])
    }
  }
  for (const stage of /** @type {const} */ (['enter', 'exit']))
    console.log(
      `${layout} ${stage}: ${median(r[stage].a).toFixed(0)} ms against ${median(r[stage].b).toFixed(0)} ms, median of ${PAIRS} ratios ${median(r[stage].ratio).toFixed(3)}`
    )
}
fs.rmSync(path.join(os.tmpdir(), `aw-bench-refs-${process.pid}`), { recursive: true, force: true })
