// Every git call of the action goes through here.
import { spawn } from 'node:child_process'
import { lockHeld, noteLockChild } from './repository-lock.js'

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
const GIT_ENV = { ...process.env, GIT_TERMINAL_PROMPT: '0' }

export class Git {
  /** `globalArgs` go before the command, e.g. --git-dir and --work-tree to pin a worktree's own git dir. */
  constructor(
    readonly cwd: string,
    private readonly globalArgs: string[] = []
  ) {}

  /**
   * Runs git, with `input` on its standard input, and returns its result whatever the exit code. While the repository lock is held, git runs in a
   * process group of its own and is recorded in the lock: a step killed mid-call then neither cuts git off
   * half-way, leaving its ref and packed-refs locks behind, nor lets the next step go ahead before git ends.
   */
  async run(args: string[], input?: string): Promise<GitResult> {
    const locked = lockHeld()
    const child = spawn('git', [...this.globalArgs, ...args], {
      cwd: this.cwd,
      env: GIT_ENV,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      detached: locked
    })
    child.stdin?.end(input)
    if (locked && child.pid) noteLockChild(child.pid)
    const stdout: Buffer[] = []
    const stderr: Buffer[] = []
    child.stdout!.on('data', (d: Buffer) => stdout.push(d))
    child.stderr!.on('data', (d: Buffer) => stderr.push(d))
    const exitCode = await new Promise<number>((resolve, reject) => {
      child.on('error', reject)
      child.on('close', code => resolve(code ?? 128))
    })
    return { exitCode, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }
  }

  /** Runs git; throws GitError unless it exits 0. Returns stdout. */
  async exec(args: string[], input?: string): Promise<string> {
    const result = await this.run(args, input)
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
