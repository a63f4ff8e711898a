// Ready-made configuration for the sandboxes users run, from the lists of paths.ts, written by the main step
// into a folder of its own under RUNNER_TEMP, which neither sandbox lets the agent write:
// - a Codex home whose config.toml defines a permission profile (openai/codex-action's codex-home and
//   permission-profile inputs; `codex sandbox -P`), and
// - settings for Claude Code's sandbox, @anthropic-ai/sandbox-runtime (`srt -s <file>`).
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { sandboxPaths, type SandboxFacts, type SandboxPaths } from './paths.js'

/** The permission profile's name in the Codex home. */
export const CODEX_PROFILE = 'agent-worktree'

/** The network the sandbox-runtime settings let through: Claude Code's API, nothing else. */
export const SRT_DOMAINS = ['api.anthropic.com']

export interface PreparedSandbox {
  paths: SandboxPaths
  /** The Codex home: its config.toml defines CODEX_PROFILE. */
  codexHome: string
  /** The sandbox-runtime settings file. */
  srtSettings: string
}

/**
 * Codex's profile. Codex lets the most specific entry win, so it also keeps <common dir>/worktrees read-only
 * around the worktree's own git dir: a worktree another job adds while the agent runs is out of its reach
 * too. The folders of the common dir that hold read-only entries are named writable of their own: Codex then
 * mounts them, and a rename of one (with a new alternates or HEAD reflog inside) fails. /tmp is writable as
 * Codex's own :workspace makes it, unless something of the job lies in it.
 */
export function codexConfig(paths: SandboxPaths, worktrees: string, tmp: boolean): string {
  const entry = (p: string, access: string): string => `${JSON.stringify(p)} = "${access}"`
  return [
    '# Written by agent-worktree: the paths of its sandbox output as a Codex permission profile.',
    `default_permissions = "${CODEX_PROFILE}"`,
    '',
    `[permissions.${CODEX_PROFILE}.filesystem]`,
    entry(':root', 'read'),
    ...(tmp ? [entry('/tmp', 'write')] : []),
    ...paths.write.map(p => entry(p, 'write')),
    ...['objects', 'logs', 'refs'].map(folder => entry(path.join(path.dirname(worktrees), folder), 'write')),
    entry(worktrees, 'read'),
    ...paths.readOnly.map(p => entry(p, 'read')),
    ''
  ].join('\n')
}

/** What a self-hosted runner keeps in its own folder: its credentials (the key it gets jobs with) and its logs. */
const RUNNER_SECRETS = ['.credentials', '.credentials_rsaparams', '.runner', '.env', '_diag']

/**
 * What no agent of ours reads, in every sandbox that can deny it: the runner's own credentials, beside its work
 * folder (RUNNER_TEMP's parent) by default; and the two folders of the job's home that sandbox-runtime makes
 * writable for every command, which, denied, become empty folders that go with the sandbox.
 */
export function deniedReads(env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME ?? os.homedir()
  return [
    ...(env.RUNNER_TEMP ? RUNNER_SECRETS.map(name => path.join(env.RUNNER_TEMP!, '..', '..', name)) : []),
    path.join(home, '.npm', '_logs'),
    path.join(home, '.claude', 'debug')
  ]
}

/** sandbox-runtime's settings: denyWrite wins over allowWrite there, which the lists allow for. */
export function srtSettings(paths: SandboxPaths, denyRead: string[] = []): string {
  const settings = {
    filesystem: { allowWrite: paths.write, denyWrite: paths.readOnly, denyRead },
    network: { allowedDomains: SRT_DOMAINS, deniedDomains: [] }
  }
  return `${JSON.stringify(settings, null, 2)}\n`
}

/** Whether /tmp holds none of `folders` (the job's temp folder, its checkouts, the repository, the worktrees). */
export function tmpIsFree(folders: readonly string[]): boolean {
  return !folders.some(folder => folder === '/tmp' || folder.startsWith('/tmp/'))
}

/**
 * The lists for the worktree (as stand-ins.ts hands them out: `paths`), and both configurations written afresh into
 * `<RUNNER_TEMP>/agent-worktree-<token>-sandbox`.
 */
export function prepareSandbox(facts: SandboxFacts, token: string, env: NodeJS.ProcessEnv = process.env, paths = sandboxPaths(facts)): PreparedSandbox {
  const dir = path.join(env.RUNNER_TEMP || os.tmpdir(), `agent-worktree-${token}-sandbox`)
  fs.rmSync(dir, { recursive: true, force: true })
  const codexHome = path.join(dir, 'codex-home')
  fs.mkdirSync(codexHome, { recursive: true })
  const job = [env.RUNNER_TEMP, env.GITHUB_WORKSPACE, facts.commonDir, path.dirname(facts.worktree)].filter((f): f is string => !!f)
  // A clone's git folders are its own .git's, never the original's, whose objects it only reads.
  const gitRoot = facts.clone ? path.join(facts.worktree, '.git') : facts.commonDir
  fs.writeFileSync(path.join(codexHome, 'config.toml'), codexConfig(paths, path.join(gitRoot, 'worktrees'), tmpIsFree(job)))
  const srt = path.join(dir, 'srt-settings.json')
  fs.writeFileSync(srt, srtSettings(paths, deniedReads(env)))
  return { paths, codexHome, srtSettings: srt }
}
