// A pull request of the branch the exit pushed, through GitHub's REST API: the open one that already has that head,
// or a new one; and, when GitHub refuses, what to do about it. This module and @actions/github are loaded only when
// a pull request is asked for: no other step waits for them.
import { quoted } from '../os/quote.js'
import type { GitHubRepository } from './github-repository.js'

export interface PullRequestCall {
  /** Never shown: the caller has masked it. */
  token: string
  repository: GitHubRepository
  /** The branch that was pushed. */
  head: string
  /** The base branch; none: the repository's default branch. */
  base?: string
  draft: boolean
  /** The title and body, for the base taken. */
  text: (base: string) => { title: string; body: string }
}

/** What came of it: a pull request (opened now, or the open one that had that head), nothing to open, or why not. */
export type PullRequestOutcome =
  | { head: string; base: string; number: number; url: string; draft: boolean; existed: boolean }
  | { head: string; base: string; nothing: string }
  | { head: string; base?: string; failed: string }

/** The requests of one pull request together may take this long: a post after a cancel has little time, and no answer may hold the step. */
const TIME_LIMIT_MS = 30_000

/** Takes the open pull request of `head`, or opens one. Never throws: a refusal comes back as what to do. */
export async function openPullRequest(call: PullRequestCall): Promise<PullRequestOutcome> {
  const { owner, repo } = call.repository
  const { head } = call
  let base = call.base
  try {
    const github = await import('@actions/github')
    const octokit = github.getOctokit(call.token)
    const request = { signal: AbortSignal.timeout(TIME_LIMIT_MS) }
    const fromEvent = github.context.payload.repository
    base ??=
      fromEvent?.full_name?.toLowerCase() === `${owner}/${repo}`.toLowerCase() && typeof fromEvent.default_branch === 'string'
        ? fromEvent.default_branch
        : (await octokit.rest.repos.get({ owner, repo, request })).data.default_branch
    const [open] = (await octokit.rest.pulls.list({ owner, repo, head: `${owner}:${head}`, state: 'open', per_page: 1, request })).data
    if (open) return { head, base: open.base.ref, number: open.number, url: open.html_url, draft: open.draft === true, existed: true }
    const { title, body } = call.text(base)
    const { data } = await octokit.rest.pulls.create({ owner, repo, head, base, title, body, draft: call.draft, request })
    return { head, base, number: data.number, url: data.html_url, draft: data.draft === true, existed: false }
  } catch (error) {
    return refused(error, call, base)
  }
}

interface Answer {
  status?: number
  message?: string
  response?: { data?: { message?: string; errors?: ({ field?: string; code?: string; message?: string } | string)[] } }
}

/** GitHub's refusal, in its words, and what to do about it. */
function refused(error: unknown, call: PullRequestCall, base: string | undefined): PullRequestOutcome {
  const { head } = call
  const repository = quoted(`${call.repository.owner}/${call.repository.repo}`)
  const answer = error as Answer
  const data = answer.response?.data
  if (!answer.response) {
    const api = process.env.GITHUB_API_URL || 'https://api.github.com'
    return { head, base, failed: `GitHub's API at ${quoted(api)} did not answer (${answer.message ?? String(error)}); open it by hand, or re-run the job` }
  }
  const errors = (data?.errors ?? []).map(e => (typeof e === 'string' ? { message: e } : e))
  const said = [data?.message, ...errors.map(e => e.message ?? [e.field, e.code].filter(Boolean).join(' '))].filter(Boolean).join(': ')
  const answered = `GitHub answered ${answer.status} ${quoted(said || 'nothing more')}`
  const invalid = (field: string): boolean => errors.some(e => e.field === field && e.code === 'invalid')
  if (answer.status === 422 && base && /no commits between/i.test(said))
    return { head, base, nothing: `${quoted(head)} has no commits that ${quoted(base)} lacks` }
  const failed = accessProblem(answer.status, said, answered, repository) ?? requestProblem(answer.status, said, answered, { head, base, repository, invalid })
  return { head, base, failed: failed ?? answered }
}

/** What a refusal for the token or the repository's settings asks of the workflow; undefined: not one of those. */
function accessProblem(status: number | undefined, said: string, answered: string, repository: string): string | undefined {
  if (status === 403 && /not permitted to create or approve pull requests/i.test(said))
    return `GitHub Actions may not create pull requests in ${repository} (${answered}): turn on "Allow GitHub Actions to create and approve pull requests" in the repository's Settings, Actions, General, Workflow permissions (where the organization's setting is off, there first), or give github-token a GitHub App's token or a personal access token`
  if (status === 403 && /resource not accessible/i.test(said))
    return `the token may not open pull requests in ${repository} (${answered}): give the job \`pull-requests: write\` in its permissions, beside \`contents: write\` (a token given as github-token needs the same: a GitHub App's or a fine-grained token's "Pull requests: Read and write")`
  if (status === 401) return `GitHub refused the token (${answered}): give github-token a valid token, or leave it out for the job's GITHUB_TOKEN`
  if (status === 404)
    return `GitHub shows this token no repository ${repository} (${answered}): check that the remote of enter is that repository, and that the token may read it`
  return undefined
}

/** What a refusal of the request itself (its base, its head, a draft) asks of the workflow; undefined: not one of those. */
function requestProblem(
  status: number | undefined,
  said: string,
  answered: string,
  context: { head: string; base: string | undefined; repository: string; invalid: (field: string) => boolean }
): string | undefined {
  if (status === 422 && context.invalid('base'))
    return `the base branch ${quoted(context.base ?? '')} does not exist in ${context.repository} (${answered}): set base-ref to a branch the remote has (origin/<branch>), or push that branch first`
  if (status === 422 && context.invalid('head'))
    return `GitHub does not take the pushed branch ${quoted(context.head)} of ${context.repository} as a head (${answered}): the remote of enter must be ${context.repository} itself, and the push must have reached it`
  if (status === 422 && /draft/i.test(said)) return `GitHub takes no draft pull request in ${context.repository} (${answered}): use pull-request: true`
  return undefined
}
