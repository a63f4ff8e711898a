// The pull-request input: after the push, the exit (or the post) opens a pull request of the pushed branch, or takes
// the open one, and says exactly what to do when GitHub refuses. Through the committed bundles, with real git
// against a real bare origin; GitHub's REST API is a stand-in served on 127.0.0.1 (helpers/github-api.ts), which
// the real @actions/github client reaches through GITHUB_API_URL.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { escaped, quoted } from '../../src/os/quote.js'
import { commit, git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { REPOSITORY, startGitHubApi, type ApiOptions, type GitHubApi } from '../helpers/github-api.js'
import { warnings } from '../helpers/steps.js'

const TOKEN = 'ghs_standInToken0123456789abcdefABCDEF'

let repos: Repos
let api: GitHubApi | undefined

beforeEach(() => {
  repos = makeRepos()
})
afterEach(async () => {
  await api?.close()
  api = undefined
  repos.cleanup()
})

async function job(options: Partial<ApiOptions> = {}, env: Record<string, string> = {}): Promise<Job> {
  api = await startGitHubApi({ origin: repos.origin, token: TOKEN, ...options })
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', GITHUB_WORKFLOW: 'agents', RUNNER_NAME: 'runner-1', ...api.env, ...env }
  })
}

function created(): Record<string, unknown>[] {
  return api!.requests.filter(r => r.method === 'POST').map(r => r.body!)
}

function onOrigin(branch: string): string | undefined {
  try {
    return git(repos.origin, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`)
  } catch {
    return undefined
  }
}

function errors(step: StepResult): string[] {
  return step.annotations.filter(a => a.level === 'error').map(a => a.message)
}

describe('pull-request', () => {
  it("exit: opens one of the pushed branch into the default branch (from the API), titled by the agent's first commit, listing the commits and the run", async () => {
    const j = await job()
    const main = await j.uses('.', { name: 'docs', push: 'agent/docs' })
    expect(main.exitCode, main.stdout).toBe(0)
    const wt = main.outputs['worktree-path']
    const first = commit(wt, 'docs.md')
    const second = commit(wt, 'more.md')
    const exit = await j.uses('exit', { 'pull-request': 'true', 'github-token': TOKEN })
    expect(exit.exitCode, exit.stdout).toBe(0)
    expect(api!.pulls).toEqual([expect.objectContaining({ number: 1, head: 'agent/docs', base: 'main', draft: false, title: 'add docs.md', state: 'open' })])
    const body = api!.pulls[0].body
    expect(body).toContain(`- ${first.slice(0, 12)} \`add docs.md\`\n- ${second.slice(0, 12)} \`add more.md\``)
    expect(body).toContain('https://github.com/octo/agents/actions/runs/5/attempts/1 (the workflow `agents`, job `agents`)')
    expect(body).not.toContain('Not in this pull request')
    expect(api!.requests.map(r => `${r.method} ${r.path.replace(/\?.*/, '')}`)).toEqual([
      `GET /repos/${REPOSITORY}`,
      `GET /repos/${REPOSITORY}/pulls`,
      `POST /repos/${REPOSITORY}/pulls`
    ])
    const url = `https://github.com/${REPOSITORY}/pull/1`
    expect(exit.outputs).toMatchObject({ 'pull-request-number': '1', 'pull-request-url': url, pushed: 'true', removed: 'true' })
    expect(exit.outputs.message).toContain(`Opened the pull request #1 (\`${url}\`) of \`agent/docs\` into \`main\`.`)
    expect(exit.summary).toContain(`<a href="${url}">#1</a>`)
    expect(warnings(exit)).toEqual([])
  })

  it('post: a draft into the branch base-ref named on the remote, under the title given', async () => {
    git(repos.clone, 'push', '--quiet', 'origin', 'HEAD:refs/heads/release')
    git(repos.clone, 'fetch', '--quiet', 'origin')
    const j = await job()
    const main = await j.uses('.', {
      name: 'fix',
      'base-ref': 'origin/release',
      push: 'true',
      'pull-request': 'draft',
      'pull-request-title': 'Fix it',
      'github-token': TOKEN
    })
    expect(main.exitCode, main.stdout).toBe(0)
    commit(main.outputs['worktree-path'], 'fix.txt')
    const [post] = await j.runPosts()
    expect(warnings(post)).toEqual([])
    expect(api!.pulls).toEqual([expect.objectContaining({ head: 'worktree-fix', base: 'release', draft: true, title: 'Fix it' })])
    expect(post.stdout).toContain('Opened the draft pull request #1')
    // The base came from base-ref: no GET of the repository for its default branch.
    expect(api!.requests.some(r => r.path === `/repos/${REPOSITORY}`)).toBe(false)
  })

  it('takes the open pull request of that head: no second one', async () => {
    const j = await job()
    const main = await j.uses('.', { name: 'again', push: 'agent/again' })
    commit(main.outputs['worktree-path'], 'one.txt')
    const opened = await j.uses('exit', { 'pull-request': 'true', 'github-token': TOKEN, 'on-exit': 'keep' })
    expect(opened.outputs['pull-request-number']).toBe('1')
    const head = commit(main.outputs['worktree-path'], 'two.txt')
    const again = await j.uses('exit', { 'pull-request': 'true', 'github-token': TOKEN })
    expect(again.exitCode, again.stdout).toBe(0)
    expect(api!.pulls).toHaveLength(1)
    expect(created()).toHaveLength(1)
    expect(onOrigin('agent/again')).toBe(head)
    expect(again.outputs).toMatchObject({ 'pull-request-number': '1', 'pull-request-url': `https://github.com/${REPOSITORY}/pull/1` })
    expect(again.outputs.message).toContain('The pull request #1 (`https://github.com/octo/agents/pull/1`) of `agent/again` into `main` was open already')
  })

  it.each([
    [
      'permission',
      /the token may not open pull requests in `octo\/agents` \(GitHub answered 403 `Resource not accessible by integration`\): give the job `pull-requests: write`/
    ],
    [
      'setting',
      /GitHub Actions may not create pull requests in `octo\/agents` \(GitHub answered 403 `GitHub Actions is not permitted to create or approve pull requests\.`\): turn on "Allow GitHub Actions to create and approve pull requests"/
    ]
  ] as const)('403 (%s): the exit fails saying what to do; the pushed branch stays', async (refuse, said) => {
    const j = await job({ refuse })
    const main = await j.uses('.', { name: 'refused', push: 'agent/refused', 'pull-request': 'true', 'github-token': TOKEN })
    const head = commit(main.outputs['worktree-path'], 'work.txt')
    // The exit sub-action's own token: the main step's stays in the main step.
    const exit = await j.uses('exit', { 'github-token': TOKEN })
    expect(exit.exitCode).not.toBe(0)
    expect(errors(exit)).toEqual([expect.stringMatching(said)])
    expect(errors(exit)[0]).toContain('No pull request was opened for `agent/refused`: ')
    expect(errors(exit)[0]).toContain('The pushed branch stays')
    expect(exit.outputs).toMatchObject({ pushed: 'true', 'pull-request-number': '', 'pull-request-url': '', removed: 'true' })
    expect(exit.outputs.message).toMatch(said)
    expect(onOrigin('agent/refused')).toBe(head)
    expect(api!.pulls).toEqual([])
  })

  it("post: a base that does not exist (the event's payload names the default branch) is a warning that says what to do", async () => {
    const event = path.join(repos.root, 'event.json')
    fs.writeFileSync(event, JSON.stringify({ repository: { full_name: REPOSITORY, default_branch: 'trunk' } }))
    const j = await job({}, { GITHUB_EVENT_PATH: event })
    const main = await j.uses('.', { name: 'based', push: 'true', 'pull-request': 'true', 'github-token': TOKEN })
    commit(main.outputs['worktree-path'], 'work.txt')
    const [post] = await j.runPosts()
    expect(post.exitCode).toBe(0)
    expect(warnings(post)).toEqual([
      expect.stringMatching(
        /^No pull request was opened for `worktree-based`: the base branch `trunk` does not exist in `octo\/agents` \(GitHub answered 422 .*\): set base-ref to a branch the remote has/
      )
    ])
    expect(onOrigin('worktree-based')).toBeDefined()
    // The payload named the default branch: the repository was not asked for it.
    expect(api!.requests.some(r => r.path === `/repos/${REPOSITORY}`)).toBe(false)
  })

  it('422, no commits between: nothing to open, and the step is green', async () => {
    const j = await job()
    const main = await j.uses('.', { name: 'idle', push: 'agent/idle' })
    // The agent's commit is pushed (the base at enter lacks it), and has landed on main meanwhile: GitHub finds
    // no commits between.
    const head = commit(main.outputs['worktree-path'], 'landed.txt')
    git(main.outputs['worktree-path'], 'push', '--quiet', repos.origin, `${head}:refs/heads/main`)
    const exit = await j.uses('exit', { 'pull-request': 'true', 'github-token': TOKEN })
    expect(exit.exitCode, exit.stdout).toBe(0)
    expect(exit.outputs.message).toContain('No pull request: `agent/idle` has no commits that `main` lacks.')
    expect(exit.outputs['pull-request-number']).toBe('')
    expect(api!.pulls).toEqual([])
  })

  it('a worktree with no commit its base lacks pushes nothing, and asks GitHub nothing', async () => {
    const j = await job()
    await j.uses('.', { name: 'untouched', push: 'agent/untouched' })
    const exit = await j.uses('exit', { 'pull-request': 'true', 'github-token': TOKEN })
    expect(exit.exitCode, exit.stdout).toBe(0)
    expect(exit.outputs.message).toContain('No pull request: the worktree has no commit its base lacks, so nothing was pushed.')
    expect(api!.requests).toEqual([])
  })

  it('a push the remote refused opens nothing: GitHub is not asked, and the step fails', async () => {
    const j = await job()
    const main = await j.uses('.', { name: 'diverged', push: 'taken', 'pull-request': 'true', 'github-token': TOKEN })
    const other = path.join(repos.root, 'other')
    git(repos.root, 'clone', '--quiet', repos.origin, other)
    const theirs = commit(other, 'theirs.txt')
    git(other, 'push', '--quiet', 'origin', 'HEAD:refs/heads/taken')
    commit(main.outputs['worktree-path'], 'mine.txt')
    const exit = await j.uses('exit', { 'github-token': TOKEN })
    expect(exit.exitCode).not.toBe(0)
    expect(errors(exit)).toContain('No pull request was opened for `taken`: the branch was not pushed, so GitHub was not asked.')
    expect(onOrigin('taken')).toBe(theirs)
    expect(api!.requests).toEqual([])
  })

  it('the token appears in no line of the log, output, summary, state or record: only in the mask command', async () => {
    const j = await job({ refuse: 'permission' })
    const main = await j.uses('.', { name: 'secret', push: 'true', 'pull-request': 'true', 'github-token': TOKEN })
    commit(main.outputs['worktree-path'], 'work.txt')
    const gitDir = main.outputs['git-dir']
    const record = fs.readFileSync(path.join(gitDir, 'agent-worktree.json'), 'utf8')
    const exit = await j.uses('exit', { 'on-exit': 'keep', 'github-token': TOKEN })
    const [post] = await j.runPosts()
    for (const step of [main, exit, post]) {
      const lines = `${step.stdout}\n${step.stderr}`.split('\n').filter(line => line.includes(TOKEN))
      expect(lines.every(line => line === `::add-mask::${TOKEN}`)).toBe(true)
      for (const text of [JSON.stringify(step.outputs), JSON.stringify(step.state), JSON.stringify(step.env), step.summary, JSON.stringify(step.annotations)])
        expect(text).not.toContain(TOKEN)
    }
    expect(exit.stdout).toContain(`::add-mask::${TOKEN}`)
    expect(record).not.toContain(TOKEN)
    // It went where it belongs: to GitHub, as the header the client sends.
    expect(api!.requests[0].authorization).toBe(`token ${TOKEN}`)
  })

  it('a subject and a file name with backticks, `::` and newlines come through quoted, in the title, the body and the log', async () => {
    const j = await job()
    const main = await j.uses('.', { name: 'names', push: 'true', 'on-exit': 'keep' })
    const wt = main.outputs['worktree-path']
    const subject = '::error::forged `x` \r\u202e done'
    write(wt, 'a.txt', 'a\n')
    git(wt, 'add', 'a.txt')
    git(wt, 'commit', '--quiet', '-m', subject)
    const file = '::warning::x\n`y`.txt'
    write(wt, file, 'unsaved\n')
    const exit = await j.uses('exit', { 'pull-request': 'true', 'github-token': TOKEN })
    expect(exit.exitCode, exit.stdout).toBe(0)
    const [pull] = api!.pulls
    expect(pull.title).toBe(escaped(subject))
    // eslint-disable-next-line no-control-regex
    expect(pull.title).not.toMatch(/[\u0000-\u001f\u202e]/)
    expect(pull.body).toContain(quoted(subject))
    expect(pull.body).toContain(`the worktree ${quoted(wt)} was kept with 1 uncommitted file (?? ${quoted(file)})`)
    // eslint-disable-next-line no-control-regex
    expect(pull.body.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u202e]/)
    // No line of the log became an annotation of the names' making.
    expect(errors(exit)).toEqual([])
    expect(exit.annotations.filter(a => /^(forged|x)/.test(a.message))).toEqual([])
    expect(exit.stdout).toContain(`Opened the pull request #1`)
  })

  it('is checked before anything is created: it needs push, one of three values, and a title needs it', async () => {
    const j = await job()
    const noPush = await j.uses('.', { name: 'a', 'pull-request': 'true' })
    expect(noPush.annotations[0].message).toMatch(
      /^Input 'pull-request' has the value `true`: a pull request is opened for the branch that push sends, and nothing is pushed\. Add push: true/
    )
    const bad = await j.uses('.', { name: 'b', push: 'true', 'pull-request': 'yes' })
    expect(bad.annotations[0].message).toBe(
      "Input 'pull-request' has the value `yes`: it is neither true, false nor draft. Use true (a pull request ready for review), draft, or false."
    )
    const title = await j.uses('.', { name: 'c', push: 'true', 'pull-request-title': 'Title' })
    expect(title.annotations[0].message).toMatch(/^Input 'pull-request-title' has the value `Title`: no pull request is asked for\./)
    const main = await j.uses('.', { name: 'd' })
    commit(main.outputs['worktree-path'], 'work.txt')
    const exit = await j.uses('exit', { 'pull-request': 'draft', push: 'false' })
    expect(exit.exitCode).not.toBe(0)
    expect(exit.annotations[0].message).toMatch(/^Input 'pull-request' has the value `draft`: a pull request is opened for the branch that push sends/)
    expect(fs.existsSync(main.outputs['worktree-path'])).toBe(true)
    expect(api!.requests).toEqual([])
  })
})
