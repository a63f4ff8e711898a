// The pull request's words: its title and body (Markdown GitHub renders, every name in it quoted), and the
// sentences of the log, the message and the job summary about it.
import type { ExitResult } from '../../exit/exit-worktree.js'
import type { PullRequestOutcome } from '../../remote/pull-request.js'
import { escaped, quoted } from '../../os/quote.js'
import { describeCommit, describeFindings, describeNested, describeUncommitted, listed } from './words.js'

/** Commits the body lists at most: the rest are counted. */
const LISTED_COMMITS = 50
/** GitHub takes a title of at most 256 characters. */
const TITLE_MAX = 256

/**
 * The title: pull-request-title, or the subject of the branch's first commit (its hidden characters escaped:
 * one line, read as written), or the branch. The body: the commits, what the worktree was left with, the run.
 */
export function pullRequestText(result: ExitResult, base: string, title: string | undefined): { title: string; body: string } {
  const head = result.pushed?.branch ?? ''
  const commits = result.commits ?? []
  const subject = commits.length ? escaped(commits[0].subject) : ''
  const chars = [...(subject || escaped(head))]
  const derived = chars.length > TITLE_MAX ? `${chars.slice(0, TITLE_MAX - 1).join('')}…` : chars.join('')
  const listing = commits.slice(0, LISTED_COMMITS).map(commit => `- ${describeCommit(commit)}`)
  if (commits.length > LISTED_COMMITS) listing.push(`- … and ${commits.length - LISTED_COMMITS} more`)
  const body = [
    commits.length ? `The commits of ${quoted(head)} that ${quoted(base)} lacks (${commits.length}):` : `The branch ${quoted(head)}.`,
    listing.join('\n'),
    leftText(result),
    runText()
  ].filter(Boolean)
  return { title: title ?? derived, body: body.join('\n\n') }
}

/** What the worktree held that is not in the pull request: kept (and where a copy went), or discarded. */
function leftText(result: ExitResult): string {
  const findings = result.findings
  if (!findings || !(findings.uncommitted.length || findings.unsavedCommits.length || findings.nested.length)) return ''
  const items = [...findings.uncommitted.map(describeUncommitted), ...findings.unsavedCommits.map(describeCommit), ...findings.nested.map(describeNested)]
  if (result.removed) return `Discarded at exit, as discard-changes asked: ${describeFindings(findings)} (${listed(items)}).`
  const copies = [result.rescue?.branch?.name, result.rescue?.artifact?.name].filter((name): name is string => Boolean(name))
  const copy = copies.length ? ` A copy is in ${copies.map(quoted).join(' and ')}.` : ''
  return `Not in this pull request: the worktree ${quoted(result.path)} was kept with ${describeFindings(findings)} (${listed(items)}).${copy}`
}

/** The workflow run that opened it, as the runner names it. */
function runText(env: NodeJS.ProcessEnv = process.env): string {
  if (!env.GITHUB_RUN_ID || !env.GITHUB_REPOSITORY) return 'Opened by agent-worktree.'
  const server = env.GITHUB_SERVER_URL || 'https://github.com'
  const attempt = env.GITHUB_RUN_ATTEMPT ? `/attempts/${env.GITHUB_RUN_ATTEMPT}` : ''
  const names = [env.GITHUB_WORKFLOW && `the workflow ${quoted(env.GITHUB_WORKFLOW)}`, env.GITHUB_JOB && `job ${quoted(env.GITHUB_JOB)}`].filter(Boolean)
  return `Opened by agent-worktree in the workflow run ${server}/${env.GITHUB_REPOSITORY}/actions/runs/${env.GITHUB_RUN_ID}${attempt}${names.length ? ` (${names.join(', ')})` : ''}.`
}

/** The message's sentence about the pull request; '' when none was asked for. */
export function pullRequestSentence(result: ExitResult): string {
  const outcome = result.pullRequest
  if (!outcome) return ''
  if ('failed' in outcome) return pullRequestFailure(result, outcome)
  if ('nothing' in outcome) return `No pull request: ${outcome.nothing}.`
  const kind = outcome.draft ? 'draft pull request' : 'pull request'
  return outcome.existed
    ? `The ${kind} #${outcome.number} (${quoted(outcome.url)}) of ${quoted(outcome.head)} into ${quoted(outcome.base)} was open already: it has what was pushed.`
    : `Opened the ${kind} #${outcome.number} (${quoted(outcome.url)}) of ${quoted(outcome.head)} into ${quoted(outcome.base)}.`
}

/** Why no pull request was opened, and that the pushed branch stays. */
export function pullRequestFailure(result: ExitResult, outcome: Extract<PullRequestOutcome, { failed: string }>): string {
  const stays = result.pushed && 'commit' in result.pushed ? ' The pushed branch stays: open the pull request from it once that is done.' : ''
  return `No pull request was opened for ${quoted(outcome.head)}: ${outcome.failed}.${stays}`
}

/** The pull request that was asked for and not opened, when one was. */
export function unopened(result: ExitResult): Extract<PullRequestOutcome, { failed: string }> | undefined {
  return result.pullRequest && 'failed' in result.pullRequest ? result.pullRequest : undefined
}
