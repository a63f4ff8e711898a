// npm run bench:run: what the run sub-action adds to a command. The main step enters a worktree (through the
// runner emulation); then the run stage's node process (dist/run/index.js, with the environment the runner gives
// that step) and the same command unconfined (bash as a run: step starts it) run in turn, each pair in alternating
// order. The figures are medians over the pairs: wall time of each side and of their difference, and on Linux the
// CPU time the difference took (user and system time of the reaped children, which a busy machine does not inflate).
//   BENCH_PAIRS=41 BENCH_COMMAND='git status' npm run bench:run
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { performance } from 'node:perf_hooks'
import { Job, ROOT } from './runner.mjs'

const PAIRS = Math.max(5, Number(process.env.BENCH_PAIRS ?? 21))
const COMMAND = process.env.BENCH_COMMAND ?? 'true'

/** @param {string} cwd @param {string[]} args */
const git = (cwd, ...args) => spawnSync('git', args, { cwd, encoding: 'utf8' }).stdout.trim()
/** @param {number[]} xs */
const median = xs => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** User and system time of this process's reaped children, in ms (Linux: /proc/self/stat's cutime and cstime). */
function childrenCpu() {
  if (process.platform !== 'linux') return 0
  const stat = fs.readFileSync('/proc/self/stat', 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-bench-run-')))
try {
  const origin = path.join(root, 'origin.git')
  const clone = path.join(root, 'clone')
  git(root, 'init', '--quiet', '--bare', '-b', 'main', origin)
  git(root, 'clone', '--quiet', origin, clone)
  git(clone, '-c', 'user.name=Bench', '-c', 'user.email=bench@example.com', 'commit', '--quiet', '--allow-empty', '-m', 'initial')
  git(clone, 'push', '--quiet', 'origin', 'HEAD:main')
  const job = new Job({ workspace: clone, temp: path.join(root, 'runner', '_temp'), env: { GITHUB_RUN_ID: '1', GITHUB_JOB: 'bench' }, shim: false })
  const main = await job.uses('.', {})
  if (main.exitCode !== 0) throw new Error(`the main step failed: ${main.stderr}`)
  // The run step's environment, as the runner builds it: an action of one line that writes it down.
  const probe = path.join(root, 'probe')
  fs.mkdirSync(probe)
  const run = fs.readFileSync(path.join(ROOT, 'run', 'action.yml'), 'utf8')
  fs.writeFileSync(path.join(probe, 'action.yml'), run.replace(/main: .*/, 'main: probe.mjs'))
  fs.writeFileSync(
    path.join(probe, 'probe.mjs'),
    `import fs from 'node:fs'\nfs.writeFileSync(${JSON.stringify(path.join(root, 'env.json'))}, JSON.stringify(process.env))\n`
  )
  await job.uses(probe, { command: COMMAND })
  const env = JSON.parse(fs.readFileSync(path.join(root, 'env.json'), 'utf8'))
  const cwd = env.GITHUB_WORKSPACE
  const worktree = main.outputs['worktree-path']
  const sides = {
    run: () => spawnSync(process.execPath, [path.join(ROOT, 'dist', 'run', 'index.js')], { cwd, env, stdio: 'ignore' }),
    bare: () => spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', COMMAND], { cwd: worktree, env, stdio: 'ignore' })
  }
  /** @param {'run' | 'bare'} side */
  const time = side => {
    const [start, cpu] = [performance.now(), childrenCpu()]
    const ended = sides[side]()
    if (ended.status !== 0) throw new Error(`${side} exited with ${ended.status}`)
    return { wall: performance.now() - start, cpu: childrenCpu() - cpu }
  }
  time('run')
  time('bare')
  const pairs = []
  for (let i = 0; i < PAIRS; i++) {
    const order = i % 2 ? ['bare', 'run'] : ['run', 'bare']
    const t = Object.fromEntries(order.map(side => [side, time(/** @type {'run' | 'bare'} */ (side))]))
    pairs.push({ run: t.run.wall, bare: t.bare.wall, added: t.run.wall - t.bare.wall, cpu: t.run.cpu - t.bare.cpu })
  }
  const ms = (/** @type {number} */ x) => `${x.toFixed(0)} ms`
  console.log(`${PAIRS} pairs, command ${JSON.stringify(COMMAND)}, ${os.cpus().length} cores, node ${process.version}`)
  console.log(
    `run: ${ms(median(pairs.map(p => p.run)))}, the command unconfined: ${ms(median(pairs.map(p => p.bare)))}, added: ${ms(median(pairs.map(p => p.added)))}`
  )
  if (process.platform === 'linux') console.log(`CPU time added: ${ms(median(pairs.map(p => p.cpu)))}`)
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
