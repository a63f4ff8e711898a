// Every git call of the action goes through here.
import * as exec from '@actions/exec'

export interface GitResult {
  exitCode: number
  stdout: string
  stderr: string
}

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly result: GitResult
  ) {
    const detail = result.stderr.trim() || result.stdout.trim() || `exit code ${result.exitCode}`
    super(`git ${args.join(' ')} failed: ${detail}`)
  }
}

// Never prompt for credentials: a prompt would hang an unattended job.
const GIT_ENV: Record<string, string> = { GIT_TERMINAL_PROMPT: '0' }

export class Git {
  /** `globalArgs` go before the command, e.g. --git-dir and --work-tree to pin a worktree's own git dir. */
  constructor(
    readonly cwd: string,
    private readonly globalArgs: string[] = []
  ) {}

  /** Runs git and returns its result whatever the exit code. */
  async run(args: string[]): Promise<GitResult> {
    const env: Record<string, string> = {}
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v
    return exec.getExecOutput('git', [...this.globalArgs, ...args], {
      cwd: this.cwd,
      env: { ...env, ...GIT_ENV },
      silent: true,
      ignoreReturnCode: true
    })
  }

  /** Runs git; throws GitError unless it exits 0. Returns stdout. */
  async exec(args: string[]): Promise<string> {
    const result = await this.run(args)
    if (result.exitCode !== 0) throw new GitError(args, result)
    return result.stdout
  }

  /** The commit a user-given ref names, or undefined. The ref is never read as an option. */
  async resolveCommit(ref: string): Promise<string | undefined> {
    const result = await this.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`])
    return result.exitCode === 0 ? result.stdout.trim() : undefined
  }

  async branchExists(branch: string): Promise<boolean> {
    const result = await this.run(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`])
    return result.exitCode === 0
  }

  async isValidBranchName(branch: string): Promise<boolean> {
    const result = await this.run(['check-ref-format', '--branch', branch])
    return result.exitCode === 0
  }
}
