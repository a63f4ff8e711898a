// A full enter → agent edits → exit cycle through the committed bundles, run as the runner runs
// them, against a sample repository made here and removed at the end.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Job, ROOT } from './runner.mjs'

const identity = {
  GIT_AUTHOR_NAME: 'Demo Agent',
  GIT_AUTHOR_EMAIL: 'agent@example.com',
  GIT_COMMITTER_NAME: 'Demo Agent',
  GIT_COMMITTER_EMAIL: 'agent@example.com'
}
/** @param {string} cwd @param {string[]} args */
const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...identity }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()

/** @param {string} title @param {import('./runner.mjs').StepResult} step */
function show(title, step) {
  console.log(`\n=== ${title} (exit code ${step.exitCode})`)
  for (const a of step.annotations) console.log(`  ${a.level}: ${a.message.replace(/\n/g, '\n           ')}`)
  for (const [k, v] of Object.entries(step.outputs)) console.log(`  output ${k} = ${v}`)
  if (step.summary.trim()) console.log(`  job summary:\n    ${step.summary.trim().replace(/\n/g, '\n    ')}`)
}

if (!fs.existsSync(path.join(ROOT, 'dist', 'main', 'index.js'))) {
  console.error('dist/ is missing: run npm run build first.')
  process.exit(1)
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-demo-')))
try {
  // A bare "origin" and a clone of it, as actions/checkout leaves one.
  const origin = path.join(root, 'origin.git')
  const seed = path.join(root, 'seed')
  const workspace = path.join(root, 'work', 'demo', 'demo')
  git(root, 'init', '--quiet', '--bare', '-b', 'main', origin)
  git(root, 'init', '--quiet', '-b', 'main', seed)
  fs.writeFileSync(path.join(seed, 'README.md'), '# sample project\n')
  git(seed, 'add', '-A')
  git(seed, 'commit', '--quiet', '-m', 'initial')
  git(seed, 'push', '--quiet', origin, 'main')
  fs.mkdirSync(path.dirname(workspace), { recursive: true })
  git(root, 'clone', '--quiet', origin, workspace)
  console.log(`Sample repository: ${workspace}`)

  const job = new Job({
    workspace,
    temp: path.join(root, 'runner-temp'),
    env: { GITHUB_RUN_ID: '1', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'demo', RUNNER_NAME: 'local' }
  })
  // rescue: branch copies kept work to the remote; on a GitHub-hosted runner the default is an artifact.
  const enter = await job.uses('.', { name: 'demo-agent', rescue: 'branch' })
  show('uses: agent-worktree (main)', enter)
  const wt = enter.outputs['worktree-path']

  console.log('\n=== the agent works: commits feature.txt, leaves notes.txt uncommitted')
  fs.writeFileSync(path.join(wt, 'feature.txt'), 'a feature\n')
  git(wt, 'add', 'feature.txt')
  git(wt, 'commit', '--quiet', '-m', 'Add a feature')
  fs.writeFileSync(path.join(wt, 'notes.txt'), 'work in progress\n')

  const kept = await job.uses('exit')
  show('uses: agent-worktree/exit (unsaved work: kept, and rescued to a branch)', kept)

  const restored = path.join(root, 'restored')
  const branch = kept.outputs['rescue-ref']
  console.log(`\n=== restore the rescued work in a fresh clone: git fetch origin ${branch}`)
  git(root, 'clone', '--quiet', origin, restored)
  git(restored, 'fetch', '--quiet', 'origin', branch)
  git(restored, 'switch', '--quiet', '-c', 'rescued', 'FETCH_HEAD')
  console.log(`  files: ${git(restored, 'ls-files').split('\n').join(', ')}`)
  console.log(`  notes.txt: ${fs.readFileSync(path.join(restored, 'notes.txt'), 'utf8').trim()}`)
  git(restored, 'reset', '--quiet', '--soft', 'HEAD^')
  console.log(`  after git reset --soft HEAD^, as the agent left them: ${git(restored, 'status', '--short').replace(/\n/g, ', ')}`)

  console.log('\n=== the agent saves its work: pushes the commit, deletes its notes')
  git(wt, 'push', '--quiet', 'origin', 'HEAD:refs/heads/agent/demo')
  fs.rmSync(path.join(wt, 'notes.txt'))

  show('uses: agent-worktree/exit (all saved: removed)', await job.uses('exit', { 'on-exit': 'remove' }))
  for (const post of await job.runPosts()) show('post: agent-worktree', post)
  console.log(`\nWorktrees left: ${git(workspace, 'worktree', 'list')}`)
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}
