// A stand-in for GitHub's REST API, the one part of a pull request that cannot be real here: the real
// @actions/github client talks to it on 127.0.0.1 as to api.github.com (GITHUB_API_URL, which it reads). It
// answers GET /repos/{owner}/{repo}, GET and POST /repos/{owner}/{repo}/pulls as GitHub does, in GitHub's words:
// 401 for another token; 403 for a job without pull-requests: write, or with the repository setting "Allow
// GitHub Actions to create and approve pull requests" off; 422 for a base or head the repository does not have,
// a head with no commits the base lacks, or a second open pull request of one head and base. Which branches
// exist and what they hold it reads from the real bare origin the test pushes to.
import { execFileSync } from 'node:child_process'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

export interface PullRequest {
  number: number
  state: 'open' | 'closed'
  draft: boolean
  title: string
  body: string
  head: string
  base: string
  html_url: string
}

export interface GitHubApi {
  /** What points the client at this stand-in, and names the repository, as the runner gives a step. */
  env: Record<string, string>
  /** Every pull request of the repository, by the order they were opened. */
  pulls: PullRequest[]
  /** Every request: method, path with its query, the Authorization header, the JSON body. */
  requests: { method: string; path: string; authorization?: string; body?: Record<string, unknown> }[]
  close(): Promise<void>
}

export interface ApiOptions {
  /** The bare repository pushes go to: its branches are the repository's. */
  origin: string
  /** The only token it takes. */
  token: string
  /** The repository's default branch. */
  defaultBranch?: string
  /** 403, as GitHub answers a job token without pull-requests: write, or one when the repository setting is off. */
  refuse?: 'permission' | 'setting'
}

export const REPOSITORY = 'octo/agents'

export async function startGitHubApi(options: ApiOptions): Promise<GitHubApi> {
  const pulls: PullRequest[] = []
  const requests: GitHubApi['requests'] = []
  const branch = (name: string): string | undefined => {
    try {
      return execFileSync('git', ['rev-parse', '--verify', '--quiet', `refs/heads/${name}`], { cwd: options.origin, encoding: 'utf8' }).trim()
    } catch {
      return undefined
    }
  }
  const ahead = (base: string, head: string): number =>
    Number(execFileSync('git', ['rev-list', '--count', `${base}..${head}`], { cwd: options.origin, encoding: 'utf8' }).trim())
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost')
      const text = Buffer.concat(chunks).toString('utf8')
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined
      requests.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, authorization: req.headers.authorization, body })
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
        res.end(JSON.stringify(value))
      }
      const documentation = { documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request' }
      const invalid = (field: string): void =>
        json(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', field, code: 'invalid' }], ...documentation })
      const custom = (message: string): void =>
        json(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message }], ...documentation })
      if (req.headers.authorization !== `token ${options.token}`) return json(401, { message: 'Bad credentials', ...documentation })
      if (url.pathname === `/repos/${REPOSITORY}` && req.method === 'GET')
        return json(200, { full_name: REPOSITORY, default_branch: options.defaultBranch ?? 'main' })
      if (url.pathname !== `/repos/${REPOSITORY}/pulls`) return json(404, { message: 'Not Found', ...documentation })
      if (req.method === 'GET') {
        const head = url.searchParams.get('head')
        const state = url.searchParams.get('state') ?? 'open'
        return json(
          200,
          pulls
            .filter(p => (head === null || `${REPOSITORY.split('/')[0]}:${p.head}` === head) && (state === 'all' || p.state === state))
            .map(p => ({ ...p, head: { ref: p.head }, base: { ref: p.base } }))
        )
      }
      if (options.refuse === 'permission') return json(403, { message: 'Resource not accessible by integration', ...documentation })
      if (options.refuse === 'setting') return json(403, { message: 'GitHub Actions is not permitted to create or approve pull requests.', ...documentation })
      const { head, base, title, body: description, draft } = body as { head: string; base: string; title: string; body: string; draft?: boolean }
      if (!branch(base)) return invalid('base')
      if (!branch(head)) return invalid('head')
      if (pulls.some(p => p.state === 'open' && p.head === head && p.base === base))
        return custom(`A pull request already exists for ${REPOSITORY.split('/')[0]}:${head}.`)
      if (!ahead(base, head)) return custom(`No commits between ${base} and ${head}`)
      const number = pulls.length + 1
      const pull: PullRequest = {
        number,
        state: 'open',
        draft: draft === true,
        title,
        body: description,
        head,
        base,
        html_url: `https://github.com/${REPOSITORY}/pull/${number}`
      }
      pulls.push(pull)
      return json(201, { ...pull, head: { ref: head }, base: { ref: base } })
    })
  })
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    env: { GITHUB_API_URL: `http://127.0.0.1:${port}`, GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: REPOSITORY },
    pulls,
    requests,
    close: () => new Promise(resolve => server.close(() => resolve()))
  }
}
