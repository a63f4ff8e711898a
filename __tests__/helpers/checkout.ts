// What actions/checkout (v4 to v7, src/git-directory-helper.ts prepareExistingDirectory, then
// src/git-source-provider.ts getSource) does to the repository a self-hosted runner kept from an earlier
// job, replayed git call by git call: keep the repository when it can be cleaned, else delete every
// entry of the workspace folder (.git included) and clone again. The default inputs: clean: true,
// fetch-depth: 1, ref: the branch, lfs: false, submodules: false.
import { spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'

export interface CheckoutReplay {
  /** True when checkout deleted the folder's contents and cloned again. */
  recreated: boolean
  /** Every git call with its exit code, and what checkout would have warned. */
  log: string[]
}

export interface CheckoutOptions {
  /** The branch to check out (checkout's `ref`), default main. */
  branch?: string
  /** The environment of checkout's git calls. */
  env?: NodeJS.ProcessEnv
}

interface Result {
  exitCode: number
  stdout: string
  stderr: string
}

/**
 * Replays actions/checkout on `workspace` for the repository at `url` (the remote.origin.url the clone
 * has). Throws only when checkout itself would fail (the fetch or the final checkout).
 */
export function replayCheckout(workspace: string, url: string, options: CheckoutOptions = {}): CheckoutReplay {
  const branch = options.branch ?? 'main'
  const log: string[] = []
  // git-command-manager.ts: GIT_TERMINAL_PROMPT=0 and GCM_INTERACTIVE=Never in every git call.
  const env = { ...process.env, ...options.env, GIT_TERMINAL_PROMPT: '0', GCM_INTERACTIVE: 'Never' }
  const run = (args: string[]): Result => {
    const result = spawnSync('git', args, { cwd: workspace, env, encoding: 'utf8' })
    const exitCode = result.status ?? 128
    log.push(`git ${args.join(' ')} -> ${exitCode}${exitCode ? `: ${result.stderr.trim()}` : ''}`)
    return { exitCode, stdout: result.stdout ?? '', stderr: result.stderr ?? '' }
  }
  const exec = (args: string[]): string => {
    const result = run(args)
    if (result.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed with exit code ${result.exitCode}: ${result.stderr.trim()}`)
    return result.stdout
  }
  // branchList: `git rev-parse --symbolic-full-name --branches` (or --remotes=origin), prefixes stripped.
  const branchList = (remote: boolean): string[] =>
    exec(['rev-parse', '--symbolic-full-name', remote ? '--remotes=origin' : '--branches'])
      .trim()
      .split('\n')
      .map(b => b.trim())
      .filter(Boolean)
      .map(b => b.replace(/^refs\/heads\//, '').replace(/^refs\/remotes\//, ''))

  // prepareExistingDirectory
  let remove = false
  const dotGit = fs.statSync(path.join(workspace, '.git'), { throwIfNoEntry: false })
  // tryGetRemoteUrl: `git config --local --get remote.origin.url`, '' when it fails.
  const remote = dotGit?.isDirectory() ? run(['config', '--local', '--get', 'remote.origin.url']) : undefined
  const remoteUrl = remote && remote.exitCode === 0 ? remote.stdout.trim() : ''
  if (!dotGit?.isDirectory() || remoteUrl !== url) {
    remove = true
  } else {
    // Delete any index.lock and shallow.lock left by a previously canceled run or crashed git process.
    for (const lock of ['index.lock', 'shallow.lock']) fs.rmSync(path.join(workspace, '.git', lock), { recursive: true, force: true })
    try {
      // isDetached: HEAD's full name does not start with refs/heads/. checkoutDetach: `git checkout --detach`.
      const head = run(['rev-parse', '--symbolic-full-name', '--verify', '--quiet', 'HEAD'])
      if (head.stdout.trim().startsWith('refs/heads/')) exec(['checkout', '--detach'])
      // Remove all refs/heads/*
      for (const b of branchList(false)) exec(['branch', '--delete', '--force', b])
      // Remove all refs/remotes/origin/* to avoid conflicts
      for (const b of branchList(true)) exec(['branch', '--delete', '--force', '--remote', b])
      // Check for submodules and delete any existing files if submodules are present (a failing status).
      if (run(['submodule', 'status']).exitCode !== 0) {
        remove = true
        log.push('Bad Submodules found, removing existing files')
      }
      // Clean (clean: true)
      if (!remove) {
        if (run(['clean', '-ffdx']).exitCode !== 0) remove = true
        else if (run(['reset', '--hard', 'HEAD']).exitCode !== 0) remove = true
        if (remove) log.push('warning: Unable to clean or reset the repository. The repository will be recreated instead.')
      }
    } catch (error) {
      log.push(`warning: Unable to prepare the existing repository. The repository will be recreated instead. (${(error as Error).message})`)
      remove = true
    }
  }
  if (remove) {
    // Delete the contents of the directory. Don't delete the directory itself.
    log.push(`Deleting the contents of '${workspace}'`)
    for (const name of fs.readdirSync(workspace)) fs.rmSync(path.join(workspace, name), { recursive: true, force: true })
  }

  // getSource: initialize the repository when there is none.
  if (!fs.existsSync(path.join(workspace, '.git'))) {
    exec(['init', workspace])
    exec(['remote', 'add', 'origin', url])
  }
  // The commit of the ref (GITHUB_SHA), fetched by its id at depth 1 into the remote-tracking branch.
  const sha = spawnSync('git', ['ls-remote', url, `refs/heads/${branch}`], { env, encoding: 'utf8' }).stdout.split('\t')[0]
  if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`no branch ${branch} at ${url}`)
  exec(['-c', 'protocol.version=2', 'fetch', '--no-tags', '--prune', '--no-recurse-submodules', '--depth=1', 'origin', `+${sha}:refs/remotes/origin/${branch}`])
  exec(['checkout', '--progress', '--force', '-B', branch, `refs/remotes/origin/${branch}`])
  return { recreated: remove, log }
}
