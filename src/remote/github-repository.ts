// Which repository on GitHub a pull request of the remote of enter goes to: known at enter, where a remote that
// names none fails the main step, and again at exit.
import { quoted } from '../os/quote.js'

/** A repository on GitHub. */
export interface GitHubRepository {
  owner: string
  repo: string
}

/**
 * The repository the remote of enter names on this GitHub (GITHUB_SERVER_URL): https://github.com/o/r.git,
 * git@github.com:o/r.git, ssh://git@github.com/o/r; for a remote that is a folder (a mirror on the machine), the
 * workflow's own (GITHUB_REPOSITORY). Why not, as a sentence, when there is none.
 */
export function repositoryOf(url: string, env: NodeJS.ProcessEnv = process.env): GitHubRepository | string {
  const server = hostOf(env.GITHUB_SERVER_URL || 'https://github.com')
  const remote = hostAndPath(url)
  const named = remote
    ? remote.host === server
      ? /^\/*([^/]+)\/([^/]+?)(?:\.git)?\/*$/.exec(remote.path)
      : null
    : /^([^/]+)\/([^/]+)$/.exec(env.GITHUB_REPOSITORY ?? '')
  if (named) return { owner: named[1], repo: named[2] }
  if (!remote) return 'the remote of enter is a folder, and GITHUB_REPOSITORY does not name the repository to open a pull request in'
  // Only the host: a URL may carry credentials.
  return remote.host === server
    ? `the remote of enter does not name a repository of ${server} as owner/name`
    : `the remote of enter is on ${quoted(remote.host)}, not on ${quoted(server ?? '')}, where this workflow runs`
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase()
  } catch {
    return undefined
  }
}

/** The host and path of a remote's URL, or of git's scp-like form (user@host:path); none for a folder (a path, a file:// URL). */
function hostAndPath(url: string): { host: string; path: string } | undefined {
  const scp = /^(?:[^@/]+@)?([^:/]+):(.*)$/.exec(url)
  // A single letter before the colon is a drive (C:\repo), as git reads it.
  if (!url.includes('://') && scp && scp[1].length > 1) return { host: scp[1].toLowerCase(), path: scp[2] }
  try {
    const parsed = new URL(url)
    return parsed.protocol === 'file:' || !parsed.hostname ? undefined : { host: parsed.hostname.toLowerCase(), path: decodeURIComponent(parsed.pathname) }
  } catch {
    return undefined
  }
}
