// Covers: src/remote/github-repository.ts, which repository a pull request goes to (the REST call,
// src/remote/pull-request.ts: __tests__/exit/pull-request.test.ts, against a stand-in of GitHub's API).
import { describe, expect, it } from 'vitest'
import { repositoryOf } from '../../src/remote/github-repository.js'

const GITHUB = { GITHUB_SERVER_URL: 'https://github.com', GITHUB_REPOSITORY: 'octo/workflow' }

describe('the repository of a pull request', () => {
  it.each([
    ['https://github.com/octo/agents', GITHUB],
    ['https://github.com/octo/agents.git', GITHUB],
    ['https://x-access-token:secret@github.com/octo/agents.git/', GITHUB],
    ['git@github.com:octo/agents.git', GITHUB],
    ['ssh://git@github.com/octo/agents', GITHUB],
    ['https://ghe.example.com/octo/agents.git', { GITHUB_SERVER_URL: 'https://ghe.example.com' }]
  ])('is the one the remote of enter names on the server: %s', (url, env) => {
    expect(repositoryOf(url, env)).toEqual({ owner: 'octo', repo: 'agents' })
  })

  it("is the workflow's own for a remote that is a folder", () => {
    expect(repositoryOf('/srv/mirror.git', GITHUB)).toEqual({ owner: 'octo', repo: 'workflow' })
    expect(repositoryOf('file:///srv/mirror.git', GITHUB)).toEqual({ owner: 'octo', repo: 'workflow' })
    expect(repositoryOf('C:\\mirror.git', GITHUB)).toEqual({ owner: 'octo', repo: 'workflow' })
    expect(repositoryOf('/srv/mirror.git', {})).toMatch(/GITHUB_REPOSITORY does not name/)
  })

  it('is none elsewhere, and the reason names the host only, never the URL with its credentials', () => {
    const why = repositoryOf('https://user:secret@gitlab.com/octo/agents.git', GITHUB)
    expect(why).toBe('the remote of enter is on `gitlab.com`, not on `github.com`, where this workflow runs')
    expect(repositoryOf('https://github.com/octo', GITHUB)).toBe('the remote of enter does not name a repository of github.com as owner/name')
  })
})
