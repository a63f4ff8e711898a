// Covers: scripts/local-action.mjs, src/local-action/main.ts, src/local-action/post.ts, src/stages/main.ts, src/stages/post.ts.
// `npm run local-action`: the TypeScript entry points run by @github/local-action, main then post,
// cleaned up after as a runner cleans up after a job.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../../scripts/runner.mjs'
import { git, makeRepos, worktreePaths, write, type Repos } from '../helpers/repos.js'

let repos: Repos
let tmp: string
beforeEach(() => {
  repos = makeRepos()
  tmp = path.join(repos.root, 'tmp')
  fs.mkdirSync(tmp)
})
afterEach(() => repos.cleanup())

/** `npm run local-action -- <env file>`, with a temp folder of its own to see what it leaves there. */
function localAction(envFile: string): string {
  return execFileSync(process.execPath, ['scripts/local-action.mjs', envFile], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: tmp },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe']
  })
}

it('.env.example names every input of action.yml, each once', () => {
  const action = parse(fs.readFileSync(path.join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> }
  // The runner's names: upper case, hyphens kept.
  const expected = Object.keys(action.inputs).map(input => `INPUT_${input.toUpperCase()}`)
  const named = [...fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8').matchAll(/^(INPUT_[^=\s]+)=/gm)].map(m => m[1])
  expect([...named].sort()).toEqual([...expected].sort())
})

it('runs main and post from .env.example, against the repository it names', () => {
  const env = path.join(repos.root, '.env')
  fs.writeFileSync(env, fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8').replace('INPUT_REPOSITORY-PATH=.', `INPUT_REPOSITORY-PATH=${repos.clone}`))
  const out = localAction(env)
  const worktree = path.join(`${repos.clone}.worktrees`, 'local-demo')
  expect(out).toContain(`Created worktree \`${worktree}\` on branch \`worktree-local-demo\``)
  expect(out).toContain(`Removed \`${worktree}\` and deleted its branch \`worktree-local-demo\`: nothing unsaved was found.`)
  expect(worktreePaths(repos.clone)).toEqual([repos.clone])
  // Nothing of the action left behind: no snapshot of the checkout in the temp folder (tsx, which runs
  // the TypeScript, keeps a cache there), and no empty worktrees folder.
  expect(fs.readdirSync(tmp).filter(name => name.startsWith('agent-worktree'))).toEqual([])
  expect(fs.existsSync(`${repos.clone}.worktrees`)).toBe(false)
}, 60_000)

it('rescues kept work as an artifact through its stand-in for @actions/artifact, into a folder it makes', () => {
  // A worktree with unsaved work, entered by path (kept by default), rescued to an artifact.
  const wt = path.join(repos.root, 'agent-wt')
  git(repos.clone, 'worktree', 'add', '--quiet', '-b', 'agent', wt)
  write(wt, 'work.txt', 'unsaved work\n')
  // Not made here: on a fresh clone .local-artifacts does not exist either.
  const artifacts = path.join(repos.root, 'artifacts')
  const example = fs.readFileSync(path.join(ROOT, '.env.example'), 'utf8')
  const env = path.join(repos.root, '.env')
  fs.writeFileSync(
    env,
    example
      .replace('INPUT_REPOSITORY-PATH=.', `INPUT_REPOSITORY-PATH=${repos.clone}`)
      .replace('INPUT_NAME=local-demo', 'INPUT_NAME=')
      .replace('INPUT_PATH=', `INPUT_PATH=${wt}`)
      .replace('INPUT_ON-EXIT=remove', 'INPUT_ON-EXIT=')
      .replace('INPUT_RESCUE=auto', 'INPUT_RESCUE=artifact')
      .replace('LOCAL_ACTION_WORKSPACE=.', `LOCAL_ACTION_WORKSPACE=${repos.root}`)
      .replace('LOCAL_ACTION_ARTIFACT_PATH=.local-artifacts', `LOCAL_ACTION_ARTIFACT_PATH=${artifacts}`)
  )
  const out = localAction(env)
  expect(out).toContain('uploaded as the artifact `agent-worktree-rescue-agent-wt-')
  const [zip] = fs.readdirSync(artifacts)
  expect(zip).toMatch(/^agent-worktree-rescue-agent-wt-.*\.zip$/)
  const listing = execFileSync('unzip', ['-l', path.join(artifacts, zip)], { encoding: 'utf8' })
  for (const file of ['rescue.bundle', 'rescue.patch', 'README.txt']) expect(listing).toContain(file)
  expect(fs.readFileSync(path.join(wt, 'work.txt'), 'utf8')).toBe('unsaved work\n')
}, 60_000)
