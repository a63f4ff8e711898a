// The pull-request input: once the exit has pushed the branch and judged the worktree, a pull request of that
// branch (remote/pull-request.ts asks GitHub). What it lists is read right after the push, before a removal
// takes a clone's objects along.
import type { Git } from '../git/git-command-manager.js'
import { commitOf } from '../gate/git-answers.js'
import type { UnsavedCommit } from '../gate/findings.js'
import { repositoryOf } from '../remote/github-repository.js'
import type { PullRequestOutcome } from '../remote/pull-request.js'
import type { ExitResult } from './exit-worktree.js'
import type { Pushed } from './push.js'

/** What the workflow asked for, with the token to ask with and our words for the title and body. */
export interface PullRequestAsk {
  draft: boolean
  /** As pull-request-title gave it; none: from the commits. */
  title?: string
  /** The base branch; none: the repository's default branch. */
  base?: string
  token: string
  text: (result: ExitResult, base: string, title: string | undefined) => { title: string; body: string }
}

/**
 * The commits the pushed branch brings, oldest first: those its commit reaches and neither the base of enter nor
 * another branch of the remote (as this repository last heard from it) does.
 */
export async function branchCommits(git: Git, pushed: Extract<Pushed, { commit: string }>, base: string | undefined): Promise<UnsavedCommit[]> {
  const log = await git.run([
    'log',
    '--no-color',
    '--reverse',
    '--format=%H %s',
    pushed.commit,
    '--not',
    ...(base ? [base] : []),
    `--exclude=${pushed.remote}/${pushed.branch}`,
    `--remotes=${pushed.remote}`,
    '--'
  ])
  return log.exitCode === 0
    ? log.stdout
        .split('\n')
        .filter(Boolean)
        .map(line => commitOf(line, 12))
    : []
}

/** The pull request of what the exit pushed; none when nothing was to be pushed. */
export async function pullRequestAfter(result: ExitResult, ask: PullRequestAsk): Promise<PullRequestOutcome | undefined> {
  const pushed = result.pushed
  if (!pushed) return undefined
  const head = pushed.branch
  if ('failed' in pushed) return { head, base: ask.base, failed: 'the branch was not pushed, so GitHub was not asked' }
  if ('unneeded' in pushed) return { head, base: ask.base ?? '', nothing: 'the worktree has no commit its base lacks, so nothing was pushed' }
  const repository = repositoryOf(result.evidence.believed.push?.url ?? '')
  if (typeof repository === 'string') return { head, base: ask.base, failed: repository }
  const { openPullRequest } = await import(/* webpackChunkName: "pull-request" */ '../remote/pull-request.js')
  return openPullRequest({
    token: ask.token,
    repository,
    head,
    base: ask.base,
    draft: ask.draft,
    text: base => ask.text(result, base, ask.title)
  })
}
