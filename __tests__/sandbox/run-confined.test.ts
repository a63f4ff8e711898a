// Covers: src/stages/run.ts, src/sandbox/run-confined.ts.
// The run sub-action, through the committed bundles, with the real sandbox (sandbox-runtime over bubblewrap):
// the agent's git work succeeds in the worktree; what would reach our steps or the job (the job's home, the
// file-command files, RUNNER_TEMP, hooks, the original checkout, the runtime token, a process left running) is
// refused or absent.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { git, makeRepos, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

/** Why the real sandbox cannot run here, or undefined when it can. */
function sandboxMissing(): string | undefined {
  for (const tool of ['bwrap', 'socat', 'rg']) if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`
  const probe = spawnSync('bwrap', ['--unshare-user', '--unshare-pid', '--ro-bind', '/', '/', 'true'], { encoding: 'utf8' })
  return probe.status === 0 ? undefined : `bubblewrap cannot make namespaces here: ${probe.stderr.trim()}`
}
const missing = sandboxMissing()
if (missing) console.warn(`run-confined.test: skipped, ${missing}`)

let repos: Repos
let home: string

beforeEach(() => {
  repos = makeRepos()
  // The job's home: what the agent must not write (its git config, its agents' settings).
  home = path.join(repos.root, 'home')
  fs.mkdirSync(home)
  fs.writeFileSync(path.join(home, '.gitconfig'), '[user]\n\tname = Workflow\n\temail = workflow@example.com\n')
})
afterEach(() => repos.cleanup())

function job(env: Record<string, string> = {}): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    watchChildren: true,
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1', HOME: home, ...env }
  })
}

/** Each line of the script's output that says how one attempt went: `<name> ok` or `<name> refused`. */
const TRY = 'try() { name=$1; shift; if ( "$@" ) >/dev/null 2>&1; then echo "$name ok"; else echo "$name refused"; fi; }\n'

describe.skipIf(missing !== undefined)('run', () => {
  it("inside, commit, branch and stash succeed; the job's home, hooks, the checkout and the file-command files are out of reach", async () => {
    fs.writeFileSync(path.join(repos.root, '.credentials'), '{"scheme": "OAuth"}\n')
    const j = job()
    const main = await j.uses('.', { name: 'confined' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const common = path.join(repos.clone, '.git')
    const files = path.join(repos.root, 'runner', '_temp')
    const script = `${TRY}
try commit sh -c 'echo work > work.txt && git add work.txt && git commit -qm work'
try branch git branch agent/side
try stash sh -c 'echo more >> work.txt && git stash -q && git stash pop -q'
try home-gitconfig sh -c 'echo "[core]" >> ${home}/.gitconfig'
try own-home sh -c 'echo x > "$HOME/.agentrc"'
try hook sh -c 'echo x > ${common}/hooks/pre-push'
try config sh -c 'echo x >> ${common}/config'
try checkout sh -c 'echo x >> ${repos.clone}/README.md'
try runner-temp sh -c 'echo x > ${files}/planted && test -s ${files}/planted'
try runner-credentials cat ${path.join(repos.root, '.credentials')}
for f in ${files}/*-github_env ${files}/*-github_path; do echo "PLANTED=1" >> "$f" 2>/dev/null; echo /planted >> "$f" 2>/dev/null; done
env | grep -q '^ACTIONS_' && echo "env-token found" || echo "env-token absent"
cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q emulated-runtime-token && echo "proc-token found" || echo "proc-token absent"
setsid sleep 3017 >/dev/null 2>&1 < /dev/null &
echo "pid-1 $(cat /proc/1/cmdline | tr '\\0' ' ')"
`
    const run = await j.uses('run', { command: script })
    expect(run.exitCode, run.stderr).toBe(0)
    const said = Object.fromEntries(
      run.stdout
        .split('\n')
        .map(line => line.split(' '))
        .filter(words => words.length >= 2 && /^(ok|refused|found|absent)$/.test(words[1]))
        .map(([name, how]) => [name, how])
    )
    expect(said).toEqual({
      commit: 'ok',
      branch: 'ok',
      stash: 'ok',
      'home-gitconfig': 'refused',
      'own-home': 'ok',
      hook: 'refused',
      config: 'refused',
      checkout: 'refused',
      // RUNNER_TEMP is an empty folder of the sandbox's: what goes there stays there.
      'runner-temp': 'ok',
      // A self-hosted runner's own key, beside its work folder.
      'runner-credentials': 'refused',
      'env-token': 'absent',
      'proc-token': 'absent'
    })
    // The commit is the workflow's identity, read from the job's git config.
    expect(git(wt, 'log', '-1', '--format=%an %s')).toBe('Workflow work')
    expect(git(wt, 'branch', '--list', 'agent/side')).toContain('agent/side')
    expect(fs.readFileSync(path.join(home, '.gitconfig'), 'utf8')).not.toContain('[core]')
    expect(fs.existsSync(path.join(common, 'hooks', 'pre-push'))).toBe(false)
    expect(fs.existsSync(path.join(files, 'planted'))).toBe(false)
    expect(git(repos.clone, 'status', '--porcelain')).toBe('')
    expect(j.exported.PLANTED).toBeUndefined()
    // No program the step started had the runtime token: neither the sandbox nor sandbox-runtime's helpers.
    expect(run.children?.length).toBeGreaterThan(0)
    expect(run.children?.filter(c => c.token)).toEqual([])
    // Its own pid namespace; and what it left running died with the step.
    expect(run.stdout).not.toMatch(/^pid-1 .*node/m)
    expect(spawnSync('pgrep', ['-f', 'sleep 3017']).status).toBe(1)
    expect(j.strays().filter(p => p.command.includes('sleep'))).toEqual([])
    const next = await j.uses('run', { command: 'echo "path=$PATH" "planted=${PLANTED:-}"' })
    expect(next.stdout).not.toContain('/planted')
    expect(next.stdout).toContain('planted=\n')
  })

  it('the network is open by default; allowed-domains leaves only those domains, through the proxy', async () => {
    const server = http.createServer((_req, res) => res.end('reached\n'))
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
      const j = job()
      await j.uses('.', { name: 'network' })
      const fetch = `node -e 'fetch(process.argv[1]).then(r => r.text()).then(t => process.stdout.write(t), e => { console.log("unreached " + e.cause?.code); process.exit(0) })' ${url}`
      const open = await j.uses('run', { command: fetch })
      expect(open.stdout).toContain('reached\n')
      // Inside, only the proxy is there: the server is not reachable, and the proxy refuses a domain not listed.
      const limited = await j.uses('run', {
        command: `${fetch}; curl -sS --max-time 5 -o /dev/null -w '%{http_code}\\n' http://not-listed.example.org/ || true`,
        'allowed-domains': 'example.com'
      })
      expect(limited.exitCode, limited.stderr).toBe(0)
      expect(limited.stdout).toMatch(/^unreached ECONNREFUSED\n403\n$/)
    } finally {
      server.close()
    }
  })

  it('a cancelled step stops the command and everything it started', async () => {
    const j = job()
    await j.uses('.', { name: 'cancelled' })
    const run = await j.uses('run', { command: 'setsid sleep 3019 & sleep 3019' }, { cancel: { afterMs: 2500 } })
    expect(run.exitCode).not.toBe(0)
    expect(run.durationMs).toBeLessThan(7500)
    expect(spawnSync('pgrep', ['-f', 'sleep 3019']).status).toBe(1)
  })

  it("its exit code is the step's, and a failing command fails it", async () => {
    const j = job()
    await j.uses('.', { name: 'exit-code' })
    const run = await j.uses('run', { command: 'echo before; exit 3' })
    expect(run.exitCode).toBe(3)
    expect(run.stdout).toContain('before')
    expect(run.annotations.map(a => a.message)).toContain('The command exited with code 3.')
    // bash -e, as a run: step: the first failing command ends it.
    const failing = await j.uses('run', { command: 'false\necho never' })
    expect(failing.exitCode).toBe(1)
    expect(failing.stdout).not.toContain('never')
  })

  it('a command whose output ends mid-line still fails the step with its annotation, on a line of its own', async () => {
    const j = job()
    await j.uses('.', { name: 'mid-line' })
    const run = await j.uses('run', { command: "printf 'no newline at the end'; exit 3" })
    expect(run.exitCode).toBe(3)
    expect(run.stdout).toContain('no newline at the end\n')
    expect(run.annotations).toEqual([{ level: 'error', message: 'The command exited with code 3.' }])
  })

  it('where the sandbox cannot start, the step fails with one line that says why and what to change; allow-unconfined runs it, with a warning', async () => {
    // A machine whose kernel refuses bubblewrap's namespaces (as Ubuntu 24.04's AppArmor default does): bwrap
    // stands in, saying what the real one says there.
    const bin = path.join(repos.root, 'bin')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 })
    const j = job({ PATH: `${bin}:${process.env.PATH}` })
    await j.uses('.', { name: 'no-userns' })
    const marker = path.join(repos.root, 'ran')
    const refused = await j.uses('run', { command: `touch ${marker}` })
    expect(refused.exitCode).not.toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
    const errors = refused.annotations.filter(a => a.level === 'error').map(a => a.message)
    expect(errors).toEqual([
      expect.stringMatching(/^The command cannot be confined here: bwrap: setting up uid map: Permission denied\. .*allow-unconfined: true/)
    ])
    // The fix the examples' install step applies (docs/sandboxes.md): bubblewrap tried first, AppArmor's profile only
    // where it fails (Ubuntu 24.04), never on 26.04 (ubuntu-latest), which enforces it already.
    expect(errors[0]).toContain('`bwrap --unshare-user --unshare-net --ro-bind / / true` fails: Ubuntu 24.04')
    expect(errors[0]).toContain('sudo apparmor_parser -r /etc/apparmor.d/bwrap-userns-restrict')
    expect(errors[0]).toContain('never on Ubuntu 25.04 and later (ubuntu-latest is 26.04)')
    const allowed = await j.uses('run', { command: `touch ${marker}`, 'allow-unconfined': 'true' })
    expect(allowed.exitCode).toBe(0)
    expect(fs.existsSync(marker)).toBe(true)
    expect(warnings(allowed)).toEqual([expect.stringMatching(/^The command ran unconfined \(allow-unconfined: true\): bwrap: setting up uid map/)])
  })

  it("refuses where git in the sandbox would read the job's token: actions/checkout before v6 kept it in the repository's config", async () => {
    const j = job()
    await j.uses('.', { name: 'legacy-credentials' })
    git(repos.clone, 'config', 'http.https://github.com/.extraheader', 'AUTHORIZATION: basic c2VjcmV0')
    const run = await j.uses('run', { command: 'git config --get-regexp extraheader' })
    expect(run.exitCode).not.toBe(0)
    expect(run.stdout).not.toContain('c2VjcmV0')
    expect(run.annotations[0].message).toMatch(/holds the job's credentials .*actions\/checkout@v6/)
  })

  it('leaves nothing of its own behind: no placeholder in the git dirs, no step folder', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'tidy' })
    const common = path.join(repos.clone, '.git')
    const listed = (): string[] => [...fs.readdirSync(common), ...fs.readdirSync(main.outputs['git-dir']).map(name => `worktree/${name}`)].sort()
    const before = listed()
    const run = await j.uses('run', { command: 'true' })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(listed()).toEqual(before)
    expect(fs.readdirSync(path.join(repos.root, 'runner', '_temp')).filter(name => name.startsWith('agent-worktree-run-'))).toEqual([])
  })

  it('runs the git of enter, never one an earlier step put on GITHUB_PATH', async () => {
    const j = job()
    await j.uses('.', { name: 'planted-git' })
    // An earlier, unconfined step: a git of its own first on PATH, which notes that it ran and passes the call on.
    const bin = path.join(repos.root, 'planted-bin')
    const ran = path.join(repos.root, 'planted-git-ran')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho "$*" >> ${ran}\nexec /usr/bin/git "$@"\n`, { mode: 0o755 })
    j.addPath(bin)
    const run = await j.uses('run', { command: 'true' })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(fs.existsSync(ran) ? fs.readFileSync(ran, 'utf8') : '').toBe('')
  })

  for (const domains of ['', 'example.com']) {
    it(`runs bubblewrap, socat, ripgrep and which of enter, never those an earlier step put on GITHUB_PATH; the command keeps its PATH (allowed-domains: ${domains || 'none'})`, async () => {
      const j = job()
      await j.uses('.', { name: 'planted-tools' })
      // An earlier, unconfined step: each program first on PATH, noting that it ran (and where) and passing the call on.
      const bin = path.join(repos.root, 'planted-bin')
      const ran = path.join(repos.root, 'planted-ran')
      fs.mkdirSync(bin)
      for (const tool of ['bwrap', 'socat', 'rg', 'which']) {
        const real = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim()
        fs.writeFileSync(path.join(bin, tool), `#!/bin/sh\necho ${tool} >> ${ran}\nexec ${real} "$@"\n`, { mode: 0o755 })
      }
      j.addPath(bin)
      const run = await j.uses('run', { command: 'echo "path=$PATH"', ...(domains && { 'allowed-domains': domains }) })
      expect(run.exitCode, run.stderr).toBe(0)
      expect(fs.existsSync(ran) ? fs.readFileSync(ran, 'utf8') : '').toBe('')
      // What the workflow added (setup-node's node, say) is still there for the command, inside.
      expect(run.stdout).toMatch(new RegExp(`^path=${bin}:`, 'm'))
    })
  }

  it('git add -A and stash -u work inside: nothing of the sandbox is left in the worktree', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'add-all' })
    const wt = main.outputs['worktree-path']
    const run = await j.uses('run', {
      command:
        'echo a > new.txt && git add -A && git commit -qm all && echo u > untracked.txt && git stash -u -q && git stash pop -q >/dev/null && git status --porcelain --ignored'
    })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toBe('?? untracked.txt\n')
    expect(git(wt, 'show', '--name-only', '--format=', 'HEAD')).toBe('new.txt')
    expect(git(wt, 'status', '--porcelain', '--ignored')).toBe('?? untracked.txt')
  })

  it('where the sandbox cannot be made for what the agent left, the step fails, and allow-unconfined never runs the command unconfined', async () => {
    const j = job()
    const main = await j.uses('.', { name: 'unwrappable' })
    // A confined agent leaves thousands of folders beside the worktrees' git dirs: each one more read-only
    // bind for the next run, more than bubblewrap takes.
    const worktrees = path.join(repos.clone, '.git', 'worktrees')
    const plant = await j.uses('run', { command: `cd ${worktrees} && mkdir x{1..3500}` })
    expect(plant.exitCode, plant.stderr).toBe(0)
    const marker = path.join(repos.root, 'ran')
    const next = await j.uses('run', { command: `touch ${marker}; echo "[alias]" >> ${home}/.gitconfig`, 'allow-unconfined': 'true' })
    expect(next.exitCode).not.toBe(0)
    expect(fs.existsSync(marker)).toBe(false)
    expect(fs.readFileSync(path.join(home, '.gitconfig'), 'utf8')).not.toContain('[alias]')
    expect(warnings(next)).toEqual([])
    const errors = next.annotations.filter(a => a.level === 'error').map(a => a.message)
    expect(errors).toEqual([expect.stringMatching(/^The command was not run: the sandbox could not be made for this worktree: /)])
    expect(main.exitCode).toBe(0)
  })

  for (const domains of ['', 'example.com']) {
    it(`the host's /tmp/claude is out of reach, and nothing the command writes there or in its TMPDIR stays (allowed-domains: ${domains || 'none'})`, async () => {
      fs.mkdirSync('/tmp/claude', { recursive: true })
      const name = `run-confined-${process.pid}-${domains ? 'limited' : 'open'}`
      const host = path.join('/tmp/claude', `${name}-host`)
      fs.writeFileSync(host, 'the host wrote this\n')
      try {
        const j = job()
        await j.uses('.', { name: 'tmp-claude' })
        const command = `${TRY}try read-host cat ${host}
try write sh -c 'echo x > /tmp/claude/${name}-inside'
f=$(mktemp) && echo x > "$f" && echo "made $f"
`
        const run = await j.uses('run', { command, ...(domains && { 'allowed-domains': domains }) })
        expect(run.exitCode, run.stderr).toBe(0)
        expect(run.stdout).toMatch(/^read-host refused$/m)
        const made = /^made (.+)$/m.exec(run.stdout)?.[1]
        expect(made).toBeDefined()
        expect(made).not.toMatch(/^\/tmp\/claude\//)
        expect(fs.existsSync(made!)).toBe(false)
        expect(fs.existsSync(path.join('/tmp/claude', `${name}-inside`))).toBe(false)
      } finally {
        fs.rmSync(host, { force: true })
        fs.rmSync(path.join('/tmp/claude', `${name}-inside`), { force: true })
      }
    })
  }

  it('takes every path as a name: a checkout whose folder holds glob characters is confined as any other', async () => {
    const clone = path.join(repos.root, 'work', 'my[1]*repo?')
    git(repos.root, 'clone', '--quiet', repos.origin, clone)
    const j = new Job({ workspace: clone, temp: path.join(repos.root, 'runner', '_temp'), env: { GITHUB_RUN_ID: '5', GITHUB_JOB: 'agents', HOME: home } })
    const main = await j.uses('.', { name: 'globbed' })
    const common = path.join(clone, '.git')
    const script =
      TRY +
      `try commit sh -c 'echo change > file.txt && git add file.txt && git commit -q -m work'
try common-config sh -c 'echo "[core]" >> ${common}/config'
try common-hooks touch ${common}/hooks/pre-push
try checkout touch ${clone}/planted
`
    const run = await j.uses('run', { command: script })
    expect(run.exitCode, run.stderr).toBe(0)
    expect(run.stdout).toBe('commit ok\ncommon-config refused\ncommon-hooks refused\ncheckout refused\n')
    expect(git(main.outputs['worktree-path'], 'log', '-1', '--format=%s')).toBe('work')
  })
})

describe.skipIf(missing !== undefined || process.platform !== 'linux')('the Linux wrapper', () => {
  it("gives bubblewrap what sandbox-runtime's SandboxManager gives it, for names that look like patterns too", async () => {
    const { filesystemOf, linuxWrapper, managerWrapper } = await import('../../src/sandbox/run-confined.js')
    const root = path.join(repos.root, 'a[1]*b?')
    for (const dir of ['worktree', 'git', 'common/hooks', 'home', 'tmp', 'temp']) fs.mkdirSync(path.join(root, dir), { recursive: true })
    fs.writeFileSync(path.join(root, 'common', 'config'), '')
    const filesystem = filesystemOf(
      {
        paths: {
          write: [path.join(root, 'worktree'), path.join(root, 'git'), path.join(root, 'common')],
          readOnly: [path.join(root, 'common', 'config'), path.join(root, 'common', 'hooks')]
        }
      },
      { home: path.join(root, 'home'), tmp: path.join(root, 'tmp') },
      { HOME: home, RUNNER_TEMP: path.join(root, 'temp') }
    )
    // As the step wraps: from its own temp folder.
    const cwd = process.cwd()
    process.chdir(path.join(root, 'tmp'))
    try {
      const wrapped = []
      for (const sandbox of [await linuxWrapper({}, undefined), await managerWrapper(undefined)]) {
        wrapped.push(await sandbox.wrap('true', filesystem))
        sandbox.cleanup()
      }
      // Only the names of the empty folders sandbox-runtime makes differ from one wrap to the next; and the manager
      // binds the host's /tmp/claude back over its read deny, where it exists, which the wrapper does not.
      const same = (command: string): string => command.replace(/claude-empty-[A-Za-z0-9]+/g, 'claude-empty-X')
      expect(wrapped[0]).not.toContain('--bind /tmp/claude ')
      expect(same(wrapped[0])).toBe(same(wrapped[1]).replace(/ --bind \/tmp\/claude \/tmp\/claude/g, ''))
      expect(wrapped[0]).toContain(`--ro-bind ${shellQuoted(path.join(root, 'common', 'config'))}`)
    } finally {
      process.chdir(cwd)
    }
  })
})

function shellQuoted(p: string): string {
  return `'${p.replace(/'/g, `'\\''`)}'`
}
