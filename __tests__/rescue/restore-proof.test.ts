// Covers: src/rescue/find-rescue.ts (restore: auto) through the bundles.
// restore: auto restores only a rescue it can prove is this step's. The proof is the artifact service, which holds
// the artifacts of this run alone and takes uploads only from a step with the job's runtime token: a branch anyone
// who may push could have made (a forged `-take9`), and two rescues of one name, job and leg (a reusable workflow
// called twice in one job) are named and left, and the step goes on from its base. Through the committed bundles;
// the artifact service is the stand-in (results-service.ts), the forged rescue is made by hand (helpers/craft.ts).
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it, type TestContext } from 'vitest'
import { blob, entriesOf, rawTree, scratch, snapshotCommit } from '../helpers/craft.js'
import { git, write } from '../helpers/repos.js'
import { checkout, hostedJob, lab, type Lab } from '../helpers/restore.js'
import { startResultsService, type ResultsService } from '../helpers/results-service.js'
import { warnings } from '../helpers/steps.js'

let machines = 0

/** One job of attempt 1 (its own machine) with `inputs`, whose agent leaves `file`; its post rescues. */
async function rescuedJob(l: Lab, service: ResultsService, inputs: Record<string, string>, file: string) {
  const workspace = checkout(l, path.join(l.repos.root, `machine-${++machines}`, 'sample', 'sample'))
  const j = hostedJob(l, service.env, workspace)
  const main = await j.uses('.', inputs)
  expect(main.exitCode, main.stdout).toBe(0)
  write(main.outputs['worktree-path'], file, `${file}\n`)
  const [post] = await j.runPosts()
  return post
}

/** The re-run (attempt 2) of the job, on a machine of its own. */
async function rerun(l: Lab, service: ResultsService, inputs: Record<string, string>) {
  const workspace = checkout(l, path.join(l.repos.root, `machine-${++machines}`, 'sample', 'sample'))
  return hostedJob(l, { ...service.env, GITHUB_RUN_ATTEMPT: '2' }, workspace).uses('.', { restore: 'auto', ...inputs })
}

/** A snapshot of the repository's base with a new workflow file, pushed by someone who may push, as `branch`. */
function pushForged(l: Lab, branch: string): void {
  const { repo, base, baseTree } = scratch(l, 'forger')
  const workflows = rawTree(repo, [['100644', 'evil.yml', blob(repo, 'on: push\n')]])
  const github = rawTree(repo, [['040000', 'workflows', workflows]])
  const tree = rawTree(repo, [['040000', '.github', github], ...entriesOf(repo, baseTree)])
  git(repo, 'push', '--quiet', 'origin', `${snapshotCommit(repo, { tree, index: baseTree, head: base }).commit}:refs/heads/${branch}`)
}

async function setUp(t: TestContext) {
  const l = lab(t, 'push')
  const service = await startResultsService()
  t.onTestFinished(() => service.close())
  return { l, service }
}

// Each case runs two or three hosted jobs with artifact uploads: minutes on a loaded machine.
describe.concurrent('restore: auto takes only a rescue it can prove is this step’s', { timeout: 180_000 }, () => {
  it('a forged snapshot pushed as -take9 beside the real rescue: the real one (its artifact) is restored', async t => {
    const { l, service } = await setUp(t)
    const post = await rescuedJob(l, service, { name: 'fix', rescue: 'artifact,branch' }, 'src/real.txt')
    expect(post.stdout).toContain('pushed to the branch `agent-worktree-rescue/fix/agents-41-1` of `origin`')
    pushForged(l, 'agent-worktree-rescue/fix/agents-41-1-take9')
    const main = await rerun(l, service, { name: 'fix', rescue: 'artifact,branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(main.outputs['restored-from']).toBe('agent-worktree-rescue-fix-agents-41-1')
    expect(fs.existsSync(path.join(main.outputs['worktree-path'], 'src/real.txt'))).toBe(true)
    expect(fs.existsSync(path.join(main.outputs['worktree-path'], '.github/workflows/evil.yml'))).toBe(false)
  })

  it('a forged snapshot where a branch rescue of this step would be, and no artifact: named and left', async t => {
    const { l, service } = await setUp(t)
    pushForged(l, 'agent-worktree-rescue/fix/agents-41-1')
    const main = await rerun(l, service, { name: 'fix', rescue: 'branch' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(main.outputs.restored).toBe('false')
    expect(fs.existsSync(path.join(main.outputs['worktree-path'], '.github/workflows/evil.yml'))).toBe(false)
    expect(warnings(main).join('\n')).toMatch(/restore: auto restored nothing: attempt 1 left the branch `agent-worktree-rescue\/fix\/agents-41-1`/)
  })

  it('a reusable workflow called twice in one job (one name, job, run and leg): neither call’s re-run takes the other’s rescue', async t => {
    const { l, service } = await setUp(t)
    await rescuedJob(l, service, { name: 'fix', rescue: 'artifact' }, 'src/call-a.txt')
    await rescuedJob(l, service, { name: 'fix', rescue: 'artifact' }, 'src/call-b.txt')
    expect([...service.artifacts.keys()].sort()).toEqual(['agent-worktree-rescue-fix-agents-41-1', 'agent-worktree-rescue-fix-agents-41-1-take2'])
    const main = await rerun(l, service, { name: 'fix', rescue: 'artifact' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(main.outputs.restored).toBe('false')
    const said = warnings(main).join('\n')
    expect(said).toContain('`agent-worktree-rescue-fix-agents-41-1`')
    expect(said).toContain('`agent-worktree-rescue-fix-agents-41-1-take2`')
  })

  it('the same with generated names: the re-run’s main step does not fail, and names both', async t => {
    const { l, service } = await setUp(t)
    await rescuedJob(l, service, { rescue: 'artifact' }, 'src/call-a.txt')
    await rescuedJob(l, service, { rescue: 'artifact' }, 'src/call-b.txt')
    expect(service.artifacts.size).toBe(2)
    const main = await rerun(l, service, { rescue: 'artifact' })
    expect(main.exitCode, main.stdout).toBe(0)
    expect(main.outputs.restored).toBe('false')
    for (const name of service.artifacts.keys()) expect(warnings(main).join('\n')).toContain(`\`${name}\``)
  })
})
