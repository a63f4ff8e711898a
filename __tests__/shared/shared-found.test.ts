// Covers: src/shared/shared-refs.ts, src/shared/shared-state.ts.
// What an adversarial run found against the report of what every worktree shares (shared-refs.ts,
// shared-state.ts) after folders of many loose refs came to be recorded by name: each test failed on 10e4864.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { Job, type StepResult } from '../../scripts/runner.mjs'
import { Git } from '../../src/git/git-command-manager.js'
import { compareShared, readSharedState } from '../../src/shared/shared-state.js'
import { commit, git, makeRepos, type Repos } from '../helpers/repos.js'
import { warnings } from '../helpers/steps.js'

function reposFor(t: TestContext): Repos {
  const repos = makeRepos()
  t.onTestFinished(() => repos.cleanup())
  return repos
}

function job(workspace: string, root: string, runner: string): Job {
  return new Job({ workspace, temp: path.join(root, runner, '_temp'), env: { RUNNER_NAME: runner, GITHUB_RUN_ID: '7', GITHUB_JOB: runner } })
}

async function enter(j: Job, inputs: Record<string, string>): Promise<{ main: StepResult; wt: string }> {
  const main = await j.uses('.', inputs)
  expect(main.exitCode, main.stdout).toBe(0)
  return { main, wt: main.outputs['worktree-path'] }
}

const sharedWarnings = (step: StepResult): string[] => warnings(step).filter(w => w.startsWith('What every worktree of'))
const changesOf = (step: StepResult): { name: string; change: string; from?: string | null; to?: string }[] => JSON.parse(step.outputs['shared-changes'])

/** Enter and exit read directly, as the steps make them; the changes as "<ref> <kind> <from>><to>". */
async function direct(t: TestContext, repos: Repos, branch = 'worktree-x'): Promise<{ changes: () => Promise<string[]>; commonDir: string }> {
  const [repo, commonDir] = [new Git(repos.clone), path.join(repos.clone, '.git')]
  const own = { branch, token: `t${process.hrtime.bigint()}` }
  const before = await readSharedState(repo, commonDir, own)
  t.onTestFinished(() => before.refs.packed && fs.rmSync(before.refs.packed.file, { force: true }))
  const changes = async (): Promise<string[]> => {
    const after = await readSharedState(repo, commonDir, own, { before })
    return compareShared(before, after, branch, { commonDir }).map(c => `${c.name} ${c.change} ${c.from === null ? '?' : (c.from ?? '')}>${c.to ?? ''}`)
  }
  return { changes, commonDir }
}

function looseTags(cwd: string, n: number): void {
  execFileSync('git', ['update-ref', '--stdin'], { cwd, input: Array.from({ length: n }, (_, i) => `create refs/tags/t${i} HEAD\n`).join('') })
}

describe.concurrent('what every worktree shares: defects found', () => {
  it('a folder known by name in a repository copied with its times kept (cp -a, tar, a cache) reports every ref in it moved once one ref is added', async t => {
    // 1,500 loose tags (a fetch of every tag), then the repository copied as cp -a, tar, rsync -a or a cache
    // restore copies it: each file's mtime kept, its ctime the copy's; the folder's mtime kept, older.
    const repos = reposFor(t)
    looseTags(repos.clone, 1500)
    const copy = path.join(repos.root, 'copied', 'repo')
    fs.mkdirSync(path.dirname(copy), { recursive: true })
    execFileSync('cp', ['-a', repos.clone, copy])
    const j = job(copy, repos.root, 'copied')
    const { wt } = await enter(j, { name: 'copied' })
    // The agent makes one tag.
    git(wt, 'tag', 'release-candidate')
    const exit = await j.uses('exit')
    // One ref changed; git for-each-ref agrees that t0..t1499 are where they were.
    expect(changesOf(exit).map(c => c.name)).toEqual(['refs/tags/release-candidate'])
  })

  it('the same flood after a chmod -R or chown -R of the repository between the steps', async t => {
    const repos = reposFor(t)
    looseTags(repos.clone, 1500)
    const j = job(repos.clone, repos.root, 'chmod')
    const { wt } = await enter(j, { name: 'chmod' })
    // A step between (a container job's permission fix) changes no ref, only the files' ctime.
    execFileSync('chmod', ['-R', 'u+rw', path.join(repos.clone, '.git')])
    git(wt, 'tag', 'release-candidate')
    const exit = await j.uses('exit')
    expect(changesOf(exit).map(c => c.name)).toEqual(['refs/tags/release-candidate'])
  })

  it('does not read outside the repository through a refs folder replaced by a link', async t => {
    const repos = reposFor(t)
    const outside = path.join(repos.root, 'outside')
    fs.mkdirSync(outside)
    fs.writeFileSync(path.join(outside, 'credentials'), 'TOP-SECRET-VALUE\n')
    const j = job(repos.clone, repos.root, 'link')
    await enter(j, { name: 'link' })
    const tags = path.join(repos.clone, '.git', 'refs', 'tags')
    fs.rmSync(tags, { recursive: true })
    fs.symlinkSync(outside, tags)
    const exit = await j.uses('exit')
    // The file outside was read, and its content shown whole as a ref's id in the warning and the output.
    expect(exit.outputs['shared-changes']).not.toContain('TOP-SECRET-VALUE')
    expect(sharedWarnings(exit).join('\n')).not.toContain('TOP-SECRET-VALUE')
  })

  it('names a ref by its file, whatever the file holds after the id', async t => {
    const repos = reposFor(t)
    const { changes, commonDir } = await direct(t, repos)
    const head = git(repos.clone, 'rev-parse', 'HEAD')
    // git reads both as refs/tags/<name> at HEAD (an id followed by white space).
    fs.writeFileSync(path.join(commonDir, 'refs', 'tags', 'noted'), `${head} note\n`)
    fs.writeFileSync(path.join(commonDir, 'refs', 'tags', 'twice'), `${head}\n${head} refs/heads/fake\n`)
    expect(git(repos.clone, 'for-each-ref', '--format=%(refname)', 'refs/tags')).toBe('refs/tags/noted\nrefs/tags/twice')
    // Read as the id alone (it was "note refs/tags/noted" and "refs/heads/fake refs/tags/twice").
    expect((await changes()).map(c => c.split(' created')[0])).toEqual(['refs/tags/noted', 'refs/tags/twice'])
  })

  it('a ref file whose lines name a ref "__proto__/…" does not make the whole report vanish', async t => {
    const repos = reposFor(t)
    const j = job(repos.clone, repos.root, 'proto')
    const { wt } = await enter(j, { name: 'proto' })
    const head = git(repos.clone, 'rev-parse', 'HEAD')
    const moved = commit(wt, 'moved.txt')
    git(wt, 'branch', 'release', moved)
    git(wt, 'config', 'user.name', 'agent')
    // One hand-written ref file (git reads it as refs/tags/odd at HEAD).
    fs.writeFileSync(path.join(repos.clone, '.git', 'refs', 'tags', 'odd'), `${head}\nx __proto__/y\nz\n`)
    const exit = await j.uses('exit', { 'discard-changes': 'true' })
    // A candidate "__proto__/y" once found Object.prototype as a folder known by name, and the comparison threw:
    // nothing was reported, not the branch, not the config key.
    expect(changesOf(exit).map(c => c.name)).toEqual(expect.arrayContaining(['refs/heads/release', 'user.name']))
  })
})
