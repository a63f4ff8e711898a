// Covers: src/exit/push.ts, src/os/redact.ts and their words in src/runner/report.ts, through the committed bundles.
// A remote's URL may carry a credential (https://x-access-token:<token>@host/…, a token a run: step minted and
// masked nowhere): the push input names the remote, never its URL, and no git error or remote message we print
// keeps a URL's userinfo. Against a bare origin served over HTTP on 127.0.0.1 (http-origin.ts).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { serveOrigin, type HttpOrigin } from '../helpers/http-origin.js'
import { commit, git, makeRepos, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

const SECRET = 'ghs_minted0123456789abcdefSECRET'

let repos: Repos
let origin: HttpOrigin
let withToken: string
beforeEach(async () => {
  repos = makeRepos()
  origin = await serveOrigin(repos.origin, { open: true })
  withToken = origin.url.replace('http://', `http://x-access-token:${SECRET}@`)
  git(repos.clone, 'remote', 'set-url', 'origin', withToken)
})
afterEach(async () => {
  await origin.close()
  repos.cleanup()
})

function job(): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }
  })
}

/** Everything a step showed: its log, annotations, outputs and summary. */
function shown(step: StepResult): string {
  return [step.stdout, step.stderr, JSON.stringify(step.outputs ?? {}), step.summary ?? ''].join('\n')
}

describe('push names the remote, never its URL', () => {
  it('a push that went: the exit says the remote and the branch, nothing of the URL', async () => {
    const j = job()
    const wt = (await j.uses('.', { name: 'pushed' })).outputs['worktree-path']
    commit(wt, 'work.txt')
    const exit = await j.uses('exit', { push: 'true' })
    expect(exit.stdout).toContain('to the branch `worktree-pushed` of `origin`.')
    expect(shown(exit)).not.toContain(SECRET)
    expect(shown(exit)).not.toContain(origin.url)
  })

  it("a push the remote refused, with the URL in the remote's own words: the warning keeps what it said, without the credential", async () => {
    const hook = path.join(repos.origin, 'hooks', 'pre-receive')
    fs.writeFileSync(hook, `#!/bin/sh\necho "refused: push to ${withToken} instead"\nexit 1\n`, { mode: 0o755 })
    const j = job()
    const wt = (await j.uses('.', { name: 'refused', rescue: 'branch' })).outputs['worktree-path']
    commit(wt, 'work.txt')
    const exit = await j.uses('exit', { push: 'true' })
    const said = warnings(exit).join('\n')
    expect(said).toContain(`refused: push to ${origin.url} instead`)
    expect(said).toContain('git push `origin` `worktree-refused` failed')
    expect(shown(exit)).not.toContain(SECRET)
    const [post] = await j.runPosts()
    expect(shown(post)).not.toContain(SECRET)
  })
})
