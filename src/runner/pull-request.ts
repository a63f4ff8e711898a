// The pull request an exit step or the post opens: what was asked, the token github-token gives (masked before
// anything could show it), and our words for the title and body.
import { core } from './toolkit.js'
import type { PullRequestAsk } from '../exit/pull-request.js'
import type { PullRequestRequest } from '../record/settings.js'
import { githubToken } from './inputs.js'
import { pullRequestText } from './report/pull-request.js'

export function pullRequestAsk(asked: PullRequestRequest | undefined, base: string | undefined): PullRequestAsk | undefined {
  if (!asked) return undefined
  const token = githubToken()
  if (token) core.setSecret(token)
  return { ...asked, base, token, text: pullRequestText }
}
