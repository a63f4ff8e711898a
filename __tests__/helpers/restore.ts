// Runs the restore commands a kept worktree's message prints, in a fresh clone, as a person pastes them
// into a shell. `gh run download` is the one part that cannot be real here: a stand-in `gh` on PATH unzips
// the artifact the stand-in artifact service was given (see results-service.ts).
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'

/** The commands in a message ("To bring it back into a clone, run `a`, or `b`."), in the order given. */
export function restoreCommandsOf(message: string): string[] {
  const sentence = /To bring it back into a clone, run (.*?)\. The commit's files/s.exec(message)?.[1] ?? ''
  return [...sentence.matchAll(/`([^`]+)`/g)].map(match => match[1])
}

const STAND_IN_GH = `#!/bin/sh
# Stand-in for "gh run download <run> [--repo R] --name N --dir D": unzips $ARTIFACTS/N.zip into D.
name= dir=
while [ $# -gt 0 ]; do
  case "$1" in
    --name) name=$2; shift ;;
    --dir) dir=$2; shift ;;
  esac
  shift
done
[ -f "$ARTIFACTS/$name.zip" ] || { echo "no artifact $name" >&2; exit 1; }
mkdir -p "$dir" && unzip -q "$ARTIFACTS/$name.zip" -d "$dir"
`

export interface RestoreOptions {
  /** The remote to clone, as a person who restores has it. */
  origin: string
  /** The folder of the fresh clone. */
  into: string
  /** Extra arguments for the clone (e.g. --depth 1, as actions/checkout clones). */
  cloneArgs?: string[]
  /** The artifacts the stand-in service holds, by name. */
  artifacts?: Map<string, Buffer>
  /** More environment for the clone and the commands (e.g. HOME with git-lfs set up). */
  env?: NodeJS.ProcessEnv
}

/** Clones `origin` and runs `command` in it with sh; returns HEAD after it. Throws with git's words when a step fails. */
export function runRestore(command: string, options: RestoreOptions): string {
  const { origin, into, cloneArgs = [], artifacts = new Map<string, Buffer>() } = options
  const tools = `${into}.tools`
  const store = `${into}.artifacts`
  const env = { ...process.env, ...options.env, PATH: `${tools}${path.delimiter}${process.env.PATH}`, ARTIFACTS: store, GIT_TERMINAL_PROMPT: '0' }
  fs.mkdirSync(tools, { recursive: true })
  fs.mkdirSync(store, { recursive: true })
  fs.writeFileSync(path.join(tools, 'gh'), STAND_IN_GH, { mode: 0o755 })
  for (const [name, zip] of artifacts) fs.writeFileSync(path.join(store, `${name}.zip`), zip)
  const fileUrl = /^[a-z]+:\/\//.test(origin) ? origin : `file://${origin}`
  execFileSync('git', ['clone', '--quiet', ...cloneArgs, fileUrl, into], { stdio: 'pipe', env })
  execFileSync('sh', ['-ec', command], { cwd: into, stdio: 'pipe', env })
  return execFileSync('git', ['-C', into, 'rev-parse', 'HEAD'], { encoding: 'utf8', env }).trim()
}
