// The agents' real sandboxes, run as users run them: Claude Code's (@anthropic-ai/sandbox-runtime's srt),
// Codex's (`codex sandbox`, the sandbox codex exec runs its commands in) and plain bubblewrap. All three need
// bubblewrap and a kernel that lets an unprivileged process make user namespaces; where either is missing
// the tests that use them are skipped, and say why.
import { spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { ROOT } from '../../scripts/runner.mjs'

const BIN = path.join(ROOT, 'node_modules', '.bin')

export interface Ran {
  status: number | null
  stdout: string
  stderr: string
}

/** Why the real sandboxes cannot run here, or undefined when they can. */
export function sandboxesUnavailable(): string | undefined {
  if (process.platform !== 'linux') return 'they run on Linux only here'
  for (const [tool, pkg] of [
    ['bwrap', 'bubblewrap'],
    ['socat', 'socat'],
    ['rg', 'ripgrep']
  ])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed (Debian package ${pkg})`
  // As sandbox-runtime starts it: a user namespace and a network namespace of its own, with loopback (where
  // Ubuntu 24.04's AppArmor restriction refuses it).
  const probe = spawnSync('bwrap', ['--unshare-user', '--unshare-net', '--ro-bind', '/', '/', 'true'], { encoding: 'utf8' })
  if (probe.status !== 0) return `the kernel refuses bubblewrap a user namespace: ${probe.stderr.trim()}`
  return undefined
}

/** Prints why the tests of `what` are skipped, once; returns whether they can run. */
export function sandboxesHere(what: string): boolean {
  const why = sandboxesUnavailable()
  if (why) console.warn(`Skipped ${what}: ${why}.`)
  return why === undefined
}

function ran(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Ran {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 60_000 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/**
 * As a kernel that lets no unprivileged process make a user namespace (Ubuntu 24.04's AppArmor default):
 * the command runs in a user namespace of its own whose limit of nested user namespaces is 0.
 */
export function refusingUserNamespaces(command: string[]): string[] {
  return ['unshare', '--user', '--map-root-user', 'sh', '-c', 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', 'sh', ...command]
}

export interface SandboxRun {
  /** sh script, run in `cwd`. */
  script: string
  cwd: string
  env: NodeJS.ProcessEnv
  /** Wraps the whole command (refusingUserNamespaces). */
  wrap?: (command: string[]) => string[]
}

/**
 * Under sandbox-runtime with `settings`. srt is started from `from`, as a workflow step starts it from the
 * checkout: in the folder it starts in, srt keeps absent dotfiles (.bashrc, .gitmodules) absent with
 * placeholders git cannot add, so it is never started in the worktree itself.
 */
export function inSrt(settings: string, from: string, run: SandboxRun): Ran {
  const command = [path.join(BIN, 'srt'), '-s', settings, '-c', `cd "$AGENT_CWD" && ${run.script}`]
  const [program, ...args] = (run.wrap ?? (c => c))(command)
  return ran(program, args, from, { ...run.env, AGENT_CWD: run.cwd })
}

/**
 * Under Codex's sandbox with the default permission profile of `codexHome`. Codex refuses a home inside the
 * temp folder (TMPDIR), where the tests' RUNNER_TEMP lies: TMPDIR is `tmp` for it.
 */
export function inCodex(codexHome: string, tmp: string, run: SandboxRun): Ran {
  fs.mkdirSync(tmp, { recursive: true })
  const command = [path.join(BIN, 'codex'), 'sandbox', '--', 'sh', '-c', run.script]
  const [program, ...args] = (run.wrap ?? (c => c))(command)
  return ran(program, args, run.cwd, { ...run.env, CODEX_HOME: codexHome, TMPDIR: tmp })
}

/**
 * Under plain bubblewrap, from the sandbox output as a user would take it: the root read-only, the write
 * paths bound writable, the read-only paths bound read-only over them. Bubblewrap keeps an absent path absent
 * only with something bound in its place, for which it makes an empty file there (on the host): /dev/null
 * goes on each absent one, and the empty files are removed afterwards, as sandbox-runtime and Codex do.
 */
export function inBwrap(sandbox: { write: string[]; readOnly: string[] }, run: SandboxRun): Ran {
  const absent = sandbox.readOnly.filter(p => !fs.existsSync(p) && fs.existsSync(path.dirname(p)))
  const binds = [
    ...sandbox.write.flatMap(p => ['--bind', p, p]),
    ...sandbox.readOnly.flatMap(p => (fs.existsSync(p) ? ['--ro-bind', p, p] : absent.includes(p) ? ['--ro-bind', '/dev/null', p] : []))
  ]
  const command = ['bwrap', '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-user', ...binds, '--chdir', run.cwd, 'sh', '-c', run.script]
  const [program, ...args] = (run.wrap ?? (c => c))(command)
  try {
    return ran(program, args, run.cwd, run.env)
  } finally {
    for (const p of absent) if (fs.statSync(p, { throwIfNoEntry: false })?.size === 0) fs.rmSync(p)
  }
}

/**
 * Stands in for OpenAI's Responses API (there is no network here), as Codex 0.171 talks to it: the first
 * turn answers with one call of Codex's `exec` tool running `command` through `exec_command`, the next
 * with a closing message. Resolves to its base URL; `outputs` collects what the tool call returned.
 */
export async function fakeResponses(command: string): Promise<{ url: string; outputs: string[]; close(): Promise<void> }> {
  const { createServer } = await import('node:http')
  const outputs: string[] = []
  const server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk: Buffer) => (body += chunk.toString()))
    request.on('end', () => {
      const input = ((JSON.parse(body || '{}') as { input?: { type: string }[] }).input ?? []).filter(i => i.type === 'custom_tool_call_output')
      for (const item of input) outputs.push(JSON.stringify(item))
      const item = input.length
        ? { type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text: 'done' }] }
        : {
            type: 'custom_tool_call',
            id: 'ctc_1',
            call_id: 'call_1',
            name: 'exec',
            input: `const r = await tools.exec_command({ cmd: ${JSON.stringify(command)} }); text(typeof r === 'string' ? r : JSON.stringify(r))`
          }
      response.writeHead(200, { 'content-type': 'text/event-stream' })
      const send = (type: string, data: object): void => void response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
      send('response.created', { response: { id: 'resp' } })
      send('response.output_item.done', { item })
      send('response.completed', { response: { id: 'resp', usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } } })
      response.end()
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}/v1`, outputs, close: () => new Promise(resolve => server.close(() => resolve())) }
}

/** Runs a command without blocking the event loop (a stand-in server in this process answers it). */
export function spawnAsync(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', status => resolve({ status, stdout, stderr }))
    child.stdin.end(options.input ?? '')
  })
}

/** codex's path in node_modules. */
export const CODEX = path.join(BIN, 'codex')

/**
 * Writes a `bwrap` into `dir` that stands in for bubblewrap 0.12 and later (upstream 0.12.0, Ubuntu 24.04's
 * 0.9.0-1ubuntu0.2; the fix of CVE-2026-87766), which this machine's bubblewrap predates: before a mount it opens
 * every folder above the destination for reading ("Can't mkdir parents for …: Permission denied" where the user may
 * enter a folder but not read it) and refuses a destination on or across a symbolic link. It checks the mounts as
 * that bubblewrap does, on the host's paths (where the real one walks its new root: the same folders here), says what
 * it says, and passes a command that passes on to the real bubblewrap. `drop`: the mounts of destinations containing
 * it are left out, as a sandbox that skipped them.
 */
export function standInBwrap(dir: string, options: { drop?: string } = {}): string {
  fs.mkdirSync(dir, { recursive: true })
  const real = spawnSync('sh', ['-c', 'command -v bwrap'], { encoding: 'utf8' }).stdout.trim()
  const check = path.join(dir, 'bwrap-0.12-checks.mjs')
  fs.writeFileSync(check, BWRAP_012_CHECKS)
  const drop = options.drop
    ? `n=$#; i=0; skip=0
while [ $i -lt $n ]; do
  i=$((i + 1)); a=$1; shift
  if [ $skip -gt 0 ]; then skip=$((skip - 1)); continue; fi
  case "$a" in --bind|--ro-bind) case "$1" in *${options.drop}*) skip=2; continue ;; esac ;; esac
  set -- "$@" "$a"
done
`
    : ''
  const bwrap = path.join(dir, 'bwrap')
  fs.writeFileSync(
    bwrap,
    `#!/bin/sh\n${drop}${JSON.stringify(process.execPath)} ${JSON.stringify(check)} "$@" || exit 1\nexec ${JSON.stringify(real)} "$@"\n`,
    {
      mode: 0o755
    }
  )
  return bwrap
}

const BWRAP_012_CHECKS = `import fs from 'node:fs'
import path from 'node:path'
const MOUNT_2 = ['--bind', '--bind-try', '--ro-bind', '--ro-bind-try', '--dev-bind', '--dev-bind-try', '--file', '--bind-data', '--ro-bind-data', '--bind-fd', '--ro-bind-fd']
const MOUNT_1 = ['--tmpfs', '--dev', '--proc', '--mqueue']
const ARG_1 = ['--chdir', '--unsetenv', '--uid', '--gid', '--hostname', '--lock-file', '--sync-fd', '--info-fd', '--json-status-fd', '--block-fd',
  '--userns-block-fd', '--seccomp', '--add-seccomp-fd', '--exec-label', '--file-label', '--cap-add', '--cap-drop', '--perms', '--size', '--userns',
  '--userns2', '--pidns', '--argv0', '--remount-ro']
const args = process.argv.slice(2)
const destinations = []
for (let i = 0; i < args.length && args[i].startsWith('--'); i++) {
  const a = args[i]
  if (a === '--args') args.splice(i + 2, 0, ...fs.readFileSync('/proc/self/fd/' + args[i + 1], 'utf8').split('\\0').filter(Boolean))
  if (MOUNT_2.includes(a)) destinations.push({ dest: args[i + 2], mount: true }), (i += 2)
  else if (a === '--symlink') destinations.push({ dest: args[i + 2], mount: false }), (i += 2)
  else if (a === '--dir') destinations.push({ dest: args[++i], mount: false })
  else if (MOUNT_1.includes(a)) destinations.push({ dest: args[++i], mount: true })
  else if (a === '--setenv' || a === '--chmod') i += 2
  else if (ARG_1.includes(a) || a === '--args') i += 1
}
const fail = message => {
  process.stderr.write('bwrap: ' + message + '\\n')
  process.exit(1)
}
for (const { dest, mount } of destinations) {
  const parts = path.resolve(dest).split('/').filter(Boolean)
  for (let n = 1; n < parts.length; n++) {
    const folder = '/' + parts.slice(0, n).join('/')
    const stat = fs.lstatSync(folder, { throwIfNoEntry: false })
    if (!stat) break
    if (stat.isSymbolicLink()) fail("Can't mkdir parents for " + dest + ': Too many levels of symbolic links')
    try {
      fs.accessSync(folder, fs.constants.R_OK)
    } catch {
      fail("Can't mkdir parents for " + dest + ': Permission denied')
    }
  }
  if (mount && fs.lstatSync(dest, { throwIfNoEntry: false })?.isSymbolicLink()) fail("Can't mount on symlink destination " + dest)
}
`
