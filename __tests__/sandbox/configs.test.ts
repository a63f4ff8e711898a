// Covers: src/sandbox/configs.ts.
// The ready-made sandbox configurations: a Codex permission profile and sandbox-runtime settings, from the lists.
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { codexConfig, CODEX_PROFILE, deniedReads, prepareSandbox, srtSettings, tmpIsFree } from '../../src/sandbox/configs.js'
import { filesystemOf } from '../../src/sandbox/run-confined.js'
import { sandboxPaths, type SandboxFacts } from '../../src/sandbox/paths.js'

const FACTS: SandboxFacts = {
  worktree: '/w/repo.worktrees/x',
  gitDir: '/w/repo/.git/worktrees/x',
  commonDir: '/w/repo/.git',
  otherGitDirs: ['/w/repo/.git/worktrees/y'],
  mainIndex: true
}
const PATHS = sandboxPaths(FACTS)

describe('codexConfig', () => {
  it('is a profile that reads everything, writes the write paths, and keeps the worktrees folder and every read-only path read-only', () => {
    const text = codexConfig(PATHS, '/w/repo/.git/worktrees', false)
    const lines = text.split('\n')
    expect(lines).toContain(`default_permissions = "${CODEX_PROFILE}"`)
    expect(lines).toContain(`[permissions.${CODEX_PROFILE}.filesystem]`)
    expect(lines).toContain('":root" = "read"')
    for (const p of PATHS.write) expect(lines).toContain(`"${p}" = "write"`)
    for (const p of [...PATHS.readOnly, '/w/repo/.git/worktrees']) expect(lines).toContain(`"${p}" = "read"`)
    expect(text).not.toContain('"/tmp"')
    expect(codexConfig(PATHS, '/w/repo/.git/worktrees', true).split('\n')).toContain('"/tmp" = "write"')
  })

  it('quotes a path as TOML reads it: quotes, backslashes and control characters escaped', () => {
    const odd = '/w/a "b"\\c\n'
    const text = codexConfig({ write: [odd], readOnly: [] }, '/w/.git/worktrees', false)
    expect(text).toContain('"/w/a \\"b\\"\\\\c\\n" = "write"')
  })
})

describe('srtSettings', () => {
  it('allows the write paths, denies the read-only ones (deny wins there), and lets only Claude Code’s API through', () => {
    expect(JSON.parse(srtSettings(PATHS))).toEqual({
      filesystem: { allowWrite: PATHS.write, denyWrite: PATHS.readOnly, denyRead: [] },
      network: { allowedDomains: ['api.anthropic.com'], deniedDomains: [] }
    })
  })

  it("denies reading what the run sub-action denies but its own folders: the runner's credentials, the job's ~/.npm/_logs and ~/.claude/debug", () => {
    const env = { RUNNER_TEMP: '/runner/_work/_temp', HOME: '/home/runner' }
    const { filesystem } = JSON.parse(srtSettings(PATHS, deniedReads(env))) as { filesystem: { denyRead: string[] } }
    expect(filesystem.denyRead).toEqual([
      ...['.credentials', '.credentials_rsaparams', '.runner', '.env', '_diag'].map(name => `/runner/${name}`),
      '/home/runner/.npm/_logs',
      '/home/runner/.claude/debug'
    ])
    const run = filesystemOf({ paths: PATHS }, { home: '/step/home', tmp: '/step/tmp' }, env)
    expect(run.denyRead).toEqual(['/runner/_work/_temp', ...filesystem.denyRead, '/tmp/claude'])
  })
})

describe('tmpIsFree', () => {
  it('is false when a folder of the job lies in /tmp', () => {
    expect(tmpIsFree(['/home/runner/work/_temp', '/home/runner/work/repo/repo'])).toBe(true)
    expect(tmpIsFree(['/home/runner/work/_temp', '/tmp/repo'])).toBe(false)
    expect(tmpIsFree(['/tmp'])).toBe(false)
    expect(tmpIsFree(['/tmpfiles/x'])).toBe(true)
  })
})

describe('prepareSandbox', () => {
  let temp: string
  beforeEach(() => {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-sandbox-'))
  })
  afterEach(() => fs.rmSync(temp, { recursive: true, force: true }))

  it('writes both into a folder of its own under RUNNER_TEMP, afresh: nothing of an earlier job stays', () => {
    const env = { RUNNER_TEMP: temp }
    const first = prepareSandbox(FACTS, '0123456789abcdef', env)
    fs.writeFileSync(path.join(first.codexHome, 'auth.json'), '{}')
    const again = prepareSandbox(FACTS, '0123456789abcdef', env)
    expect(again).toEqual(first)
    expect(path.dirname(again.codexHome)).toBe(path.join(temp, 'agent-worktree-0123456789abcdef-sandbox'))
    expect(fs.readdirSync(again.codexHome)).toEqual(['config.toml'])
    expect(fs.readFileSync(path.join(again.codexHome, 'config.toml'), 'utf8')).toBe(codexConfig(PATHS, '/w/repo/.git/worktrees', tmpIsFree([temp])))
    expect(fs.readFileSync(again.srtSettings, 'utf8')).toBe(srtSettings(PATHS, deniedReads(env)))
  })

  it('leaves /tmp read-only for Codex where the job keeps something in it', () => {
    const { codexHome } = prepareSandbox(FACTS, '0123456789abcdef', { RUNNER_TEMP: temp })
    expect(tmpIsFree([temp])).toBe(!temp.startsWith('/tmp/'))
    expect(fs.readFileSync(path.join(codexHome, 'config.toml'), 'utf8').includes('"/tmp" = "write"')).toBe(!temp.startsWith('/tmp/'))
  })
})
