// What actions/checkout v7.0.1 (src/git-source-provider.ts getSource, src/git-directory-helper.ts
// prepareExistingDirectory, src/git-command-manager.ts, src/git-auth-helper.ts) does to the repository a
// self-hosted runner kept from an earlier job, replayed git call by git call, with its default inputs (clean:
// true, fetch-depth: 1, lfs: false, submodules: false, persist-credentials: true, sparse-checkout: none):
// keep the repository when it can be cleaned (HEAD detached, every local branch deleted, the remote-tracking
// branches that clash with the ref deleted), else delete every entry of the workspace folder (.git included) and
// clone again; then gc.auto 0, credentials in a file of RUNNER_TEMP that includeIf entries for .git and
// .git/worktrees/* pull in, the fetch, `git sparse-checkout disable` and `--unset-all extensions.worktreeConfig`,
// and the checkout: a branch with -B, a pull request's merge commit detached. Its post removes the credentials.
// Left out, as they touch no worktree of ours: the temporary HOME of its safe.directory, the REST API fallback,
// the ref check after the fetch, and its post's `git submodule foreach` over the workspace's own submodules.
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

export interface CheckoutReplay {
  /** True when checkout deleted the folder's contents and cloned again. */
  recreated: boolean
  /** Every git call with its exit code, and what checkout would have warned. */
  log: string[]
  /** Checkout's post: removes the credentials it persisted. */
  post(): void
}

export interface CheckoutOptions {
  /** The branch to check out (checkout's `ref`: refs/heads/<branch>), default main. */
  branch?: string
  /** A pull_request run: checkout's `ref` is refs/pull/<n>/merge, the origin's ref of that name. */
  pullRequest?: number
  /** fetch-depth: 1 (the default) fetches the one commit; 0 every branch and tag. */
  fetchDepth?: number
  /** RUNNER_TEMP, where the file of credentials goes; default: a temporary folder of the replay's own. */
  temp?: string
  /** The server whose URLs the credentials are for (http.<origin>/.extraheader), default https://github.com. */
  serverUrl?: string
  /** The token of the credentials, default the one the tests' HTTP origin answers (http-origin.ts). */
  token?: string
  /** The environment of checkout's git calls. */
  env?: NodeJS.ProcessEnv
}

interface Result {
  exitCode: number
  stdout: string
  stderr: string
}

/**
 * Replays actions/checkout on `workspace` (GITHUB_WORKSPACE; checkout's `path` is its default, the workspace)
 * for the repository at `url` (the remote.origin.url the clone has). Throws only when checkout itself would fail.
 */
export function replayCheckout(workspace: string, url: string, options: CheckoutOptions = {}): CheckoutReplay {
  const ref = options.pullRequest === undefined ? `refs/heads/${options.branch ?? 'main'}` : `refs/pull/${options.pullRequest}/merge`
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
  const auth = authHelper(workspace, run, exec, options)

  const remove = prepareExistingDirectory(workspace, url, ref, run, exec, log)
  if (!fs.existsSync(path.join(workspace, '.git'))) {
    exec(['init', workspace])
    exec(['remote', 'add', 'origin', url])
  }
  // Disabling automatic garbage collection.
  run(['config', '--local', 'gc.auto', '0'])
  auth.configure()
  // The commit of the ref (GITHUB_SHA), fetched by its id at depth 1, or with every branch and tag at depth 0.
  const sha = spawnSync('git', ['ls-remote', url, ref], { env, encoding: 'utf8' }).stdout.split('\t')[0]
  if (!/^[0-9a-f]{40}$/.test(sha)) throw new Error(`no ${ref} at ${url}`)
  const target = ref.startsWith('refs/pull/') ? `refs/remotes/pull/${ref.slice('refs/pull/'.length)}` : `refs/remotes/origin/${ref.slice('refs/heads/'.length)}`
  const depth = options.fetchDepth ?? 1
  const shallow = depth <= 0 && fs.existsSync(path.join(workspace, '.git', 'shallow')) ? ['--unshallow'] : []
  const refSpec =
    depth > 0
      ? [`+${sha}:${target}`]
      : ['+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*', ...(ref.startsWith('refs/pull/') ? [`+${sha}:${target}`] : [])]
  exec([
    '-c',
    'protocol.version=2',
    'fetch',
    '--no-tags',
    '--prune',
    '--no-recurse-submodules',
    ...(depth > 0 ? [`--depth=${depth}`] : shallow),
    'origin',
    ...refSpec
  ])
  // No sparse-checkout input: sparse checkout is disabled, and with it the per-worktree configuration.
  exec(['sparse-checkout', 'disable'])
  run(['config', '--local', '--unset-all', 'extensions.worktreeConfig'])
  // getCheckoutInfo: a branch is checked out with -B from its remote-tracking branch, a pull request detached.
  if (ref.startsWith('refs/heads/')) exec(['checkout', '--progress', '--force', '-B', ref.slice('refs/heads/'.length), target])
  else exec(['checkout', '--progress', '--force', target])
  return { recreated: remove, log, post: () => auth.remove() }
}

/** prepareExistingDirectory: returns true when it deleted the folder's contents. */
function prepareExistingDirectory(
  workspace: string,
  url: string,
  ref: string,
  run: (args: string[]) => Result,
  exec: (args: string[]) => string,
  log: string[]
): boolean {
  // branchList: `git rev-parse --symbolic-full-name --branches` (or --remotes=origin), prefixes stripped.
  const branchList = (remote: boolean): string[] =>
    exec(['rev-parse', '--symbolic-full-name', remote ? '--remotes=origin' : '--branches'])
      .split('\n')
      .map(b => b.trim())
      .filter(Boolean)
      .map(b => b.replace(/^refs\/heads\//, '').replace(/^refs\/remotes\//, ''))
  let remove = false
  const dotGit = fs.statSync(path.join(workspace, '.git'), { throwIfNoEntry: false })
  // tryGetFetchUrl: `git config --local --get remote.origin.url`, '' when it fails or gives several.
  const remote = dotGit?.isDirectory() ? run(['config', '--local', '--get', 'remote.origin.url']) : undefined
  const remoteUrl = remote && remote.exitCode === 0 && !remote.stdout.trim().includes('\n') ? remote.stdout.trim() : ''
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
      // Remove any conflicting refs/remotes/origin/*: a branch foo against origin/foo/bar, foo/bar against origin/foo.
      if (ref.startsWith('refs/heads/')) {
        const wanted = ref.slice('refs/heads/'.length).toUpperCase()
        for (const b of branchList(true)) {
          const other = b.slice('origin/'.length).toUpperCase()
          if (wanted.startsWith(`${other}/`) || other.startsWith(`${wanted}/`)) exec(['branch', '--delete', '--force', '--remote', b])
        }
      }
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
  return remove
}

/** git-auth-helper.ts with a token and no ssh-key: configureAuth (removeAuth first, then configureToken) and removeAuth. */
function authHelper(
  workspace: string,
  run: (args: string[]) => Result,
  exec: (args: string[]) => string,
  options: CheckoutOptions
): { configure(): void; remove(): void } {
  const server = new URL(options.serverUrl ?? 'https://github.com').origin
  const headerKey = `http.${server}/.extraheader`
  const temp = options.temp ?? fs.mkdtempSync(path.join(os.tmpdir(), 'checkout-temp-'))
  fs.mkdirSync(temp, { recursive: true })
  const credentials = path.join(temp, `git-credentials-${randomUUID()}.config`)
  const basic = Buffer.from(`x-access-token:${options.token ?? 'emulated'}`).toString('base64')
  const remove = (): void => {
    if (run(['config', '--local', '--name-only', '--get-regexp', headerKey.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')]).exitCode === 0)
      run(['config', '--local', '--unset-all', headerKey])
    // removeIncludeIfCredentials: only the values that name a git-credentials-<uuid>.config file.
    const keys = run(['config', '--local', '--name-only', '--get-regexp', '^includeIf\\.gitdir:']).stdout.split('\n').filter(Boolean)
    const files = new Set<string>()
    for (const key of new Set(keys)) {
      for (const value of run(['config', '--local', '--get-all', key]).stdout.split('\n').filter(Boolean)) {
        if (!/git-credentials-[0-9a-f-]+\.config$/i.test(value)) continue
        files.add(value)
        run(['config', '--local', '--unset', key, value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')])
      }
    }
    for (const file of files) if (file.startsWith(temp)) fs.rmSync(file, { force: true })
  }
  const configure = (): void => {
    remove()
    exec(['config', '--file', credentials, headerKey, 'AUTHORIZATION: basic ***'])
    fs.writeFileSync(credentials, fs.readFileSync(credentials, 'utf8').replace('AUTHORIZATION: basic ***', `AUTHORIZATION: basic ${basic}`))
    const gitDir = path.join(workspace, '.git').replace(/\\/g, '/')
    exec(['config', '--local', `includeIf.gitdir:${gitDir}.path`, credentials])
    exec(['config', '--local', `includeIf.gitdir:${gitDir}/worktrees/*.path`, credentials])
    // The same for the paths a container job sees (/github/workspace, /github/runner_temp).
    const container = path.posix.join('/github/workspace', '.git')
    const containerCredentials = path.posix.join('/github/runner_temp', path.basename(credentials))
    exec(['config', '--local', `includeIf.gitdir:${container}.path`, containerCredentials])
    exec(['config', '--local', `includeIf.gitdir:${container}/worktrees/*.path`, containerCredentials])
  }
  return { configure, remove }
}
