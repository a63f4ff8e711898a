// npm run local-action [-- <env file>]: the TypeScript entry points, main (src/local-action/main.ts) then post
// (src/local-action/post.ts), through @github/local-action, with the inputs of the env file given, else of .env
// when there is one, else of .env.example.
//
// What a runner gives a job and takes back, this gives and takes back too: a RUNNER_TEMP of its own,
// removed afterwards (the main step keeps a snapshot of the checkout there).
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

const envFile = process.argv[2] ?? (fs.existsSync(path.join(ROOT, '.env')) ? '.env' : '.env.example')
console.log(`Inputs from ${envFile}.`)
// local-action's stand-in for @actions/artifact writes into this folder and fails with a stack trace where it is
// missing, as .local-artifacts is on a fresh clone: it is made first.
const artifacts = /^LOCAL_ACTION_ARTIFACT_PATH=(.+)$/m.exec(fs.readFileSync(path.resolve(ROOT, envFile), 'utf8'))?.[1].trim()
if (artifacts) fs.mkdirSync(path.resolve(ROOT, artifacts), { recursive: true })
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-local-'))
try {
  const run = spawnSync('npx', ['local-action', 'run', '.', 'src/local-action/main.ts', envFile, '--post', 'src/local-action/post.ts'], {
    cwd: ROOT,
    env: { ...process.env, RUNNER_TEMP: temp },
    stdio: 'inherit',
    shell: process.platform === 'win32'
  })
  process.exitCode = run.status ?? 1
} finally {
  fs.rmSync(temp, { recursive: true, force: true })
}
