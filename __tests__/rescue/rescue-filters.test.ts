// Covers: src/rescue/snapshot.ts (clean filters of enter) through the bundles.
// A rescue sends what the gate counted as the repository stores it: a file under a clean filter the workflow set up
// before the main step (an encrypting one, as git-crypt and transcrypt are) goes as that filter stores it, never as
// the plaintext on disk, also when the agent takes the attribute away. Through the committed bundles.
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Job } from '../../scripts/runner.mjs'
import { git, makeRepos, write, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

let repos: Repos

beforeEach(() => {
  repos = makeRepos()
  // The workflow's encryption, set up before the main step: the repository holds only "ENC:" lines.
  git(repos.clone, 'config', 'filter.crypt.clean', 'sed s/^/ENC:/')
  git(repos.clone, 'config', 'filter.crypt.smudge', 'sed s/^ENC://')
  git(repos.clone, 'config', 'filter.crypt.required', 'true')
  write(repos.clone, '.gitattributes', 'secret.txt filter=crypt\n')
  write(repos.clone, 'secret.txt', 'the old plan\n')
  git(repos.clone, 'add', '-A')
  git(repos.clone, 'commit', '--quiet', '-m', 'an encrypted file')
  git(repos.clone, 'push', '--quiet', 'origin', 'main')
})
afterEach(() => repos.cleanup())

function job(): Job {
  return new Job({
    workspace: repos.clone,
    temp: path.join(repos.root, 'runner', '_temp'),
    env: { GITHUB_RUN_ID: '5', GITHUB_RUN_ATTEMPT: '1', GITHUB_JOB: 'agents', RUNNER_NAME: 'runner-1' }
  })
}

describe('files under a clean filter of enter are rescued as the filter stores them', () => {
  it.for([
    ['as the attributes have it', false],
    ['after the agent took the attribute away', true]
  ] as const)('an edit of an encrypted file: the rescue branch holds its ciphertext, %s', async ([, unattributed]) => {
    expect(git(repos.origin, 'show', 'main:secret.txt')).toBe('ENC:the old plan')
    const j = job()
    const main = await j.uses('.', { name: 'crypt', rescue: 'branch' })
    const wt = main.outputs['worktree-path']
    expect(git(wt, 'show', 'HEAD:secret.txt')).toBe('ENC:the old plan')
    write(wt, 'secret.txt', 'the new plan\n')
    if (unattributed) write(wt, '.gitattributes', '')
    const [post] = await j.runPosts()
    expect(warnings(post).join('\n')).toContain('pushed to the branch `agent-worktree-rescue/crypt/agents-5-1')
    expect(git(repos.origin, 'show', 'agent-worktree-rescue/crypt/agents-5-1:secret.txt')).toBe('ENC:the new plan')
  })
})
