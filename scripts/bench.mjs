// npm run bench: agent-worktree's cost against git's own floor, on synthetic repositories of 1,000,
// 10,000 and 100,000 files (cached in .bench/). Each comparison runs its two sides back to back, in
// alternating order, and reports the median of the paired ratios, so that the disk's drift cancels out.
// Writes docs/benchmarks.md and .bench/results.json.
//   BENCH_SIZES=1000,10000 BENCH_PAIRS=5 npm run bench
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Job, ROOT } from './runner.mjs'

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number)
const PAIRS = Math.max(5, Number(process.env.BENCH_PAIRS ?? 5))
const LEGS = 24
/**
 * A stage's fixed cost (its whole step on a tiny repository, less a `node -e 0` start), in `node -e 0` starts: at most
 * this. The median of the paired (stage - node) / node, which is the median of the paired stage / node, less one.
 */
const STAGE_TARGET = 1.6
const FOLDERS = 50
const CACHE = path.join(ROOT, '.bench')

/** @param {string} cwd @param {string[]} args */
const git = (cwd, ...args) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }).trim()
/** @param {() => unknown} fn */
const time = async fn => {
  const start = performance.now()
  await fn()
  return performance.now() - start
}
/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const ms = (/** @type {number} */ x) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`)

/**
 * Removes every worktree, branch and ref of ours but main, as a run that was cut short can leave them:
 * its parked worktrees would otherwise hold names the next run gives. @param {string} clone
 */
function clear(clone) {
  for (const line of git(clone, 'worktree', 'list', '--porcelain')
    .split('\n')
    .filter(l => l.startsWith('worktree '))
    .slice(1)) {
    git(clone, 'worktree', 'remove', '-f', '-f', line.slice('worktree '.length))
  }
  git(clone, 'worktree', 'prune')
  for (const ref of git(clone, 'for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/agent-worktree/').split('\n')) {
    if (ref && ref !== 'refs/heads/main') git(clone, 'update-ref', '-d', ref)
  }
  return clone
}

/**
 * A bare origin holding one commit of `files` files spread over 50 folders, written with fast-import
 * (no files on disk), and a clone of it: built once, then reused.
 * @param {number} files
 */
function repository(files) {
  const dir = path.join(CACHE, `repo-${files}`)
  const clone = path.join(dir, 'clone')
  if (fs.existsSync(path.join(clone, '.git', 'bench-ready'))) return clear(clone)
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(dir, { recursive: true })
  const origin = path.join(dir, 'origin.git')
  git(dir, 'init', '--quiet', '--bare', '-b', 'main', origin)
  const lines = ['commit refs/heads/main', 'committer Bench <bench@example.com> 1700000000 +0000', 'data 5', 'bench']
  for (let i = 0; i < files; i++) {
    const content = `file ${i}\n${'x'.repeat(80)}\n`
    lines.push(`M 100644 inline d${String(i % FOLDERS).padStart(2, '0')}/f${i}.txt`, `data ${Buffer.byteLength(content)}`, content.slice(0, -1))
  }
  execFileSync('git', ['fast-import', '--quiet'], { cwd: origin, input: `${lines.join('\n')}\n`, maxBuffer: 1 << 28 })
  git(dir, 'clone', '--quiet', origin, clone)
  fs.writeFileSync(path.join(clone, '.git', 'bench-ready'), '')
  return clone
}

let jobs = 0
/** @param {string} workspace */
// No git shim (a test device of the emulation): each git call is the machine's git, as on a runner.
const job = workspace =>
  new Job({ workspace, temp: path.join(os.tmpdir(), `aw-bench-${process.pid}`, String(++jobs)), env: { RUNNER_NAME: `bench-${jobs}` }, shim: false })

/** @param {string} step @param {{ exitCode: number | null, stdout: string }} result */
function check(step, result) {
  if (result.exitCode !== 0) throw new Error(`${step} failed: ${result.stdout}`)
  return result
}

/** The full cycle through the bundles: enter, then the post removes the clean worktree. @param {string} clone */
async function cycle(clone) {
  const j = job(clone)
  check('main', await j.uses('.', { name: `cycle-${jobs}` }))
  const [post] = await j.runPosts()
  if (!post.stdout.includes('Removed')) throw new Error(`post did not remove: ${post.stdout}`)
}

/** git's own floor for the same work. @param {string} clone */
function floor(clone) {
  const wt = path.join(`${clone}.floor`, `f${++jobs}`)
  git(clone, 'worktree', 'add', '--quiet', '-b', `floor-${jobs}`, wt)
  git(wt, 'status', '--porcelain')
  git(clone, 'worktree', 'remove', wt)
  git(clone, 'branch', '-D', `floor-${jobs}`)
}

/** Isolation by clone. @param {string} clone */
function cloneCopy(clone) {
  const dir = path.join(`${clone}.clones`, `c${++jobs}`)
  git(clone, 'clone', '--quiet', '--no-hardlinks', clone, dir)
  fs.rmSync(dir, { recursive: true, force: true })
}

/**
 * Runs a and b back to back PAIRS times, alternating which goes first; each returns the time it
 * measured. Returns the medians of the times and of the ratios a / b.
 * @param {() => Promise<number>} a @param {() => Promise<number>} b
 */
async function paired(a, b) {
  const as = []
  const bs = []
  const ratios = []
  for (let i = 0; i < PAIRS; i++) {
    let ta, tb
    if (i % 2 === 0) {
      ta = await a()
      tb = await b()
    } else {
      tb = await b()
      ta = await a()
    }
    as.push(ta)
    bs.push(tb)
    ratios.push(ta / tb)
  }
  return { a: median(as), b: median(bs), ratio: median(ratios) }
}

/** Times the main step alone; its post runs afterwards, untimed. @param {string} clone @param {Record<string, string>} inputs */
async function timedEnter(clone, inputs) {
  const j = job(clone)
  const t = await time(async () => check('main', await j.uses('.', { name: `enter-${jobs}`, ...inputs })))
  await j.runPosts()
  return t
}

/** Peak memory of a node process, in MiB, where GNU time is there. @param {string} script @param {Record<string, string>} env */
function peakMemory(script, env) {
  const res = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, script], { env: { ...process.env, ...env }, encoding: 'utf8' })
  const kb = Number(res.stderr.trim().split('\n').pop())
  return Number.isFinite(kb) && kb > 0 ? kb / 1024 : undefined
}

/** @typedef {{ a: number, b: number, ratio: number }} Pair */
/** @type {{ cores: number, node: string, git: string, pairs: number, sizes: Record<string, Record<string, Pair>>, stages: any, parallel: any }} */
const results = { cores: os.cpus().length, node: process.version, git: git(ROOT, '--version'), pairs: PAIRS, sizes: {}, stages: {}, parallel: {} }
/** @type {string[]} */
const rows = []
/** @param {string} what @param {string} size @param {{a: number, b: number, ratio: number}} r @param {string} target @param {boolean | undefined} met (undefined: no target) */
const row = (what, size, r, target, met) =>
  rows.push(`| ${what} | ${size} | ${ms(r.a)} | ${ms(r.b)} | ${r.ratio.toFixed(2)}× | ${target} | ${met === undefined ? '—' : met ? 'yes' : '**no**'} |`)

// Fixed cost per stage, on a tiny repository, against node -e 0.
{
  const clone = repository(10)
  const nodeStart = () => time(() => execFileSync(process.execPath, ['-e', '0']))
  const main = await paired(() => timedEnter(clone, {}), nodeStart)
  // post and exit, each on a worktree entered beforehand, untimed.
  const post = await paired(async () => {
    const j = job(clone)
    check('main', await j.uses('.', { name: `stage-post-${jobs}` }))
    return time(() => j.runPosts())
  }, nodeStart)
  const exit = await paired(async () => {
    const j = job(clone)
    check('main', await j.uses('.', { name: `stage-exit-${jobs}` }))
    return time(async () => check('exit', await j.uses('exit')))
  }, nodeStart)
  // Each stage's file imports the one bundle, dist/index.js: what a stage loads at start is both.
  const shared = fs.statSync(path.join(ROOT, 'dist', 'index.js')).size
  const bundles = Object.fromEntries(['main', 'post', 'exit'].map(s => [s, shared + fs.statSync(path.join(ROOT, 'dist', s, 'index.js')).size]))
  const memory = Object.fromEntries(['main', 'post', 'exit'].map(s => [s, peakMemory(path.join(ROOT, 'dist', s, 'index.js'), { GITHUB_WORKSPACE: clone })]))
  results.stages = {
    node: main.b,
    main: main.a - main.b,
    post: post.a - post.b,
    exit: exit.a - exit.b,
    ratios: { main: main.ratio, post: post.ratio, exit: exit.ratio },
    bundles,
    memory
  }
  console.log('stages', results.stages)
}

for (const size of SIZES) {
  const clone = repository(size)
  const label = size.toLocaleString('en')
  /** @type {Record<string, Pair>} */
  const r = {}
  r.cycleVsFloor = await paired(
    () => time(() => cycle(clone)),
    () => time(() => floor(clone))
  )
  r.cloneVsCycle = await paired(
    () => time(() => cloneCopy(clone)),
    () => time(() => cycle(clone))
  )
  if (size >= 10000) {
    r.fullVsSparse = await paired(
      () => timedEnter(clone, {}),
      () => timedEnter(clone, { 'sparse-paths': 'd07' })
    )
    // Enter from the pool: each post parks the worktree again for the next take.
    const parkOne = job(clone)
    check('park', await parkOne.uses('.', { name: `park-${jobs}`, recycle: 'true' }))
    await parkOne.runPosts()
    r.freshVsPool = await paired(
      () => timedEnter(clone, {}),
      () => timedEnter(clone, { recycle: 'true' })
    )
  }
  clear(clone)
  results.sizes[size] = r
  console.log(label, r)
}

// N parallel legs against N sequential ones, on the smallest repository.
{
  const clone = repository(SIZES[0])
  const leg = async () => {
    const j = job(clone)
    check('leg', await j.uses('.', { name: `leg-${jobs}` }))
    const [post] = await j.runPosts()
    if (!post.stdout.includes('Removed')) throw new Error(`leg post: ${post.stdout}`)
  }
  const runs = []
  for (let i = 0; i < PAIRS; i++) {
    const seq = await time(async () => {
      for (let k = 0; k < LEGS; k++) await leg()
    })
    const par = await time(() => Promise.all(Array.from({ length: LEGS }, leg)))
    runs.push({ seq, par, ratio: par / seq })
  }
  results.parallel = {
    legs: LEGS,
    files: SIZES[0],
    sequential: median(runs.map(r => r.seq)),
    parallel: median(runs.map(r => r.par)),
    ratio: median(runs.map(r => r.ratio))
  }
  console.log('parallel', results.parallel)
}

/**
 * The sections of docs/benchmarks.md that this run does not write (a change measured paired against the code before
 * it, by hand): kept as they are, after this run's. @param {string[]} written
 */
function measuredApart(written) {
  const own = new Set(written.filter(line => line.startsWith('## ')).map(line => line.replace(/\(.*$/, '')))
  let old
  try {
    old = fs.readFileSync(path.join(ROOT, 'docs', 'benchmarks.md'), 'utf8')
  } catch {
    return []
  }
  const sections = old.split(/\n(?=## )/).slice(1)
  return sections.filter(section => !own.has(section.split('\n')[0].replace(/\(.*$/, ''))).flatMap(section => section.trimEnd().split('\n').concat(''))
}

/** KiB of the chunks beside dist/index.js, loaded on demand. */
function lazyChunks() {
  const dir = path.join(ROOT, 'dist')
  const bytes = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter(f => f.isFile() && f.name.endsWith('.js') && f.name !== 'index.js')
    .map(f => f.name)
    .reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0)
  return (bytes / 1024).toFixed(0)
}

// The report.
const s = results.stages
const mib = (/** @type {number | undefined} */ m) => (m === undefined ? 'n/a' : `${m.toFixed(0)} MiB`)
const lines = [
  '# Benchmarks',
  '',
  `A run of \`npm run bench\` on ${results.cores} cores, ${results.node}, ${results.git}, at ${SIZES.map(n => n.toLocaleString('en')).join(', ')} files (\`BENCH_SIZES\`); each ratio is the median of ${PAIRS} paired ratios, the two sides run back to back in alternating order.`,
  '',
  '## Fixed cost per stage (tiny repository), above `node -e 0`',
  '',
  '| stage | whole step, in `node -e 0` starts | above node -e 0 | fixed cost, in `node -e 0` starts | target | met | bundle | peak memory |',
  '|---|---|---|---|---|---|---|---|',
  ...['main', 'post', 'exit'].map(stage => {
    const fixed = s.ratios[stage] - 1
    return `| ${stage} | ${s.ratios[stage].toFixed(2)}× | ${ms(s[stage])} | ${fixed.toFixed(2)}× | ≤ ${STAGE_TARGET}× | ${fixed <= STAGE_TARGET ? 'yes' : '**no**'} | ${(s.bundles[stage] / 1024).toFixed(0)} KiB | ${mib(s.memory[stage])} |`
  }),
  '',
  `Each stage is a whole \`uses:\` step through the runner emulation (scripts/runner.mjs), its git the machine's own, each paired with a \`node -e 0\` started just before it; its fixed cost is the step less that start. \`node -e 0\` itself: ${ms(s.node)}. The artifact client a rescue uploads with is a chunk of its own (${lazyChunks()} KiB, shipped once for the three stages), loaded only when a rescue uploads: it is not part of any stage's start-up.`,
  '',
  '## Against the floor',
  '',
  'A and B are the medians of each side; the ratio is the median of the paired ratios A / B, which is not the one median divided by the other.',
  '',
  '| comparison | files | median A | median B | median of A / B | target | met |',
  '|---|---|---|---|---|---|---|'
]
for (const [size, r] of Object.entries(results.sizes)) {
  const n = Number(size)
  const label = n.toLocaleString('en')
  const cycleTarget = n >= 100000 ? 1.05 : n >= 10000 ? 1.3 : undefined
  row(
    'A: enter → exit through the bundles; B: raw git (worktree add -b, status, worktree remove, branch -D)',
    label,
    r.cycleVsFloor,
    cycleTarget ? `≤ ${cycleTarget}×` : '—',
    cycleTarget ? r.cycleVsFloor.ratio <= cycleTarget : undefined
  )
  row('A: isolation by clone (clone --no-hardlinks, delete); B: enter → exit', label, r.cloneVsCycle, '—', undefined)
  if (r.fullVsSparse)
    row(
      `A: full enter; B: sparse enter of one folder of ${FOLDERS}`,
      label,
      r.fullVsSparse,
      n === 10000 ? '≥ 10×' : '—',
      n === 10000 ? r.fullVsSparse.ratio >= 10 : undefined
    )
  if (r.freshVsPool) {
    const target = n >= 100000 ? 30 : 15
    row('A: fresh enter; B: enter from the pool', label, r.freshVsPool, `≥ ${target}×`, r.freshVsPool.ratio >= target)
  }
}
const cloneRatios = Object.values(results.sizes).map(r => r.cloneVsCycle.ratio)
const p = results.parallel
lines.push(
  ...rows,
  '',
  `A plain local clone (\`git clone --no-hardlinks\`, then deleted) took ${Math.min(...cloneRatios).toFixed(2)}× to ${Math.max(...cloneRatios).toFixed(2)}× the time of a worktree cycle at the sizes measured${Math.max(...cloneRatios) <= 1.05 ? ': it was never slower' : ''}. On small repositories the cycle's time is mostly the fixed cost of its two stages; on large ones both are writing the files. Worktrees win on disk use and shared objects, not on this clock.`,
  '',
  `## ${p.legs} legs on one repository (${p.files.toLocaleString('en')} files), enter → exit each`,
  '',
  '| sequential | parallel | parallel / sequential | target | met |',
  '|---|---|---|---|---|'
)
lines.push(`| ${ms(p.sequential)} | ${ms(p.parallel)} | ${p.ratio.toFixed(2)}× | ≤ 1× | ${p.ratio <= 1 ? 'yes' : '**no**'} |`, '')
fs.mkdirSync(CACHE, { recursive: true })
fs.writeFileSync(path.join(CACHE, 'results.json'), `${JSON.stringify(results, null, 2)}\n`)
fs.mkdirSync(path.join(ROOT, 'docs'), { recursive: true })
fs.writeFileSync(path.join(ROOT, 'docs', 'benchmarks.md'), `${[...lines, ...measuredApart(lines)].join('\n')}\n`)
console.log(lines.join('\n'))
fs.rmSync(path.join(os.tmpdir(), `aw-bench-${process.pid}`), { recursive: true, force: true })
