// npm run local-action [-- <env file>]: the TypeScript entry points, main (src/stages/main.ts) then post
// (src/stages/post.ts), through @github/local-action, with the inputs of the env file given, else of .env
// when there is one, else of .env.example.
//
// What a runner gives a job and takes back, this gives and takes back too: a RUNNER_TEMP of its own,
// removed afterwards (the main step keeps a snapshot of the checkout there), and the worktrees folder,
// when the run made it and left it empty. (The action itself leaves that folder: parallel legs share it.)
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * KEY=VALUE lines of an env file; # comments and blank lines skipped, quotes around a value removed.
 * @param {string} file
 * @returns {Record<string, string>}
 */
function readEnvFile(file) {
  /** @type {Record<string, string>} */
  const values = {}
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    const match = /^\s*([^#=\s][^=]*?)\s*=\s*(.*?)\s*$/.exec(line)
    if (match) values[match[1]] = match[2].replace(/^(['"])(.*)\1$/, '$2')
  }
  return values
}

/**
 * The folder the main step puts new worktrees in, as it works it out: worktrees-dir, else
 * <top level of repository-path>.worktrees; undefined when repository-path is not a repository.
 * @param {Record<string, string>} inputs
 */
function worktreesDir(inputs) {
  const base = process.env.GITHUB_WORKSPACE || ROOT
  if (inputs['INPUT_WORKTREES-DIR']) return path.resolve(base, inputs['INPUT_WORKTREES-DIR'])
  const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: path.resolve(base, inputs['INPUT_REPOSITORY-PATH'] || '.'), encoding: 'utf8' })
  return top.status === 0 ? `${path.resolve(top.stdout.trim())}.worktrees` : undefined
}

const envFile = process.argv[2] ?? (fs.existsSync(path.join(ROOT, '.env')) ? '.env' : '.env.example')
console.log(`Inputs from ${envFile}.`)
const dir = worktreesDir(readEnvFile(path.resolve(envFile)))
const dirExisted = dir !== undefined && fs.existsSync(dir)
const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-local-'))
try {
  const run = spawnSync('npx', ['local-action', 'run', '.', 'src/stages/main.ts', envFile, '--post', 'src/stages/post.ts'], {
    cwd: ROOT,
    env: { ...process.env, RUNNER_TEMP: temp },
    stdio: 'inherit',
    shell: process.platform === 'win32'
  })
  process.exitCode = run.status ?? 1
} finally {
  fs.rmSync(temp, { recursive: true, force: true })
  if (dir && !dirExisted) {
    try {
      fs.rmdirSync(dir) // only when empty: a kept worktree stays, and so does its folder
    } catch {
      // not empty, or not there
    }
  }
}
