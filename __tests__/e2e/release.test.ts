// Covers: scripts/release.mjs, .github/workflows/release.yml.
// The release: .github/workflows/release.yml replayed step by step against a real origin, with a stand-in
// for gh that records what it was asked and makes the tag as GitHub's API does. The rules: a prerelease
// never moves the major tag, an older release never moves it back, dist/ is checked before anything is
// published, and the major tag names the release's commit.
import { execFileSync, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { compareVersions, parseVersion, planMajor } from '../../scripts/release.mjs'
import { parseFileCommands, ROOT } from '../../scripts/runner.mjs'

interface Step {
  id?: string
  name?: string
  uses?: string
  run?: string
  with?: Record<string, unknown>
  env?: Record<string, string>
}
interface Job {
  needs?: string
  permissions?: Record<string, string>
  outputs?: Record<string, string>
  steps: Step[]
}
const workflow = parse(fs.readFileSync(path.join(ROOT, '.github', 'workflows', 'release.yml'), 'utf8')) as {
  on: Record<string, unknown>
  permissions: Record<string, string>
  jobs: Record<string, Job>
}

const IDENTITY = { GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' }

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...IDENTITY }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim()
}

// gh as the workflow uses it: `release view <tag>` fails when there is no release; `release create` makes
// the tag at --target through the API (here: a push), or requires it with --verify-tag.
const GH = `#!/bin/sh
printf '%s\\n' "$*" >>"$GH_LOG"
[ "$1" = release ] || exit 2
tag=$3
case "$2" in
view) [ -e "$GH_RELEASES/$tag" ] ;;
create)
  shift 3
  target=
  while [ $# -gt 0 ]; do
    case "$1" in
    --target) target=$2; shift ;;
    --verify-tag) git ls-remote --exit-code --tags origin "refs/tags/$tag" >/dev/null || exit 1 ;;
    esac
    shift
  done
  if [ -n "$target" ]; then git push --quiet origin "$target:refs/tags/$tag" || exit 1; fi
  : >"$GH_RELEASES/$tag" ;;
*) exit 2 ;;
esac
`

let root: string
let origin: string
let clone: string
let bin: string
let commits: string[]

/** An origin with four commits and the releases v1.0.0 and v1.2.0, and a clone of it: the project. */
function setUp(): void {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-worktree-release-')))
  origin = path.join(root, 'origin.git')
  clone = path.join(root, 'clone')
  bin = path.join(root, 'bin')
  fs.mkdirSync(bin)
  fs.mkdirSync(path.join(root, 'releases'))
  fs.writeFileSync(path.join(bin, 'gh'), GH, { mode: 0o755 })
  git(root, 'init', '--quiet', '--bare', '-b', 'main', origin)
  git(root, 'clone', '--quiet', origin, clone)
  // The project's release script, in a history of four commits.
  fs.mkdirSync(path.join(clone, 'scripts'))
  fs.copyFileSync(path.join(ROOT, 'scripts', 'release.mjs'), path.join(clone, 'scripts', 'release.mjs'))
  commits = []
  for (let i = 1; i <= 4; i++) {
    fs.writeFileSync(path.join(clone, 'file.txt'), `${i}\n`)
    git(clone, 'add', '-A')
    git(clone, 'commit', '--quiet', '-m', `commit ${i}`)
    commits.push(git(clone, 'rev-parse', 'HEAD'))
  }
  git(clone, 'push', '--quiet', 'origin', 'main')
  // Released so far: v1.0.0 (annotated) and v1.2.0, and v1 as the old workflow left it: a tag of the tag.
  git(clone, 'tag', '-a', '-m', 'v1.0.0', 'v1.0.0', commits[0])
  git(clone, 'tag', '-a', '-m', 'v1.2.0', 'v1.2.0', commits[1])
  git(clone, 'tag', 'v1', 'v1.2.0')
  git(clone, 'push', '--quiet', 'origin', '--tags')
  for (const tag of ['v1.0.0', 'v1.2.0']) fs.writeFileSync(path.join(root, 'releases', tag), '')
}

/** What a tag of the origin holds: [type of the object, the commit it names]. */
function originTag(tag: string): [string, string] | undefined {
  const object = spawnSync('git', ['rev-parse', '--verify', '--quiet', `refs/tags/${tag}`], { cwd: origin, encoding: 'utf8' }).stdout.trim()
  if (!object) return undefined
  return [git(origin, 'cat-file', '-t', object), git(origin, 'rev-parse', `${object}^{commit}`)]
}

function ghCalls(): string[] {
  const log = path.join(root, 'gh.log')
  return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []
}

/** The value of a `${{ }}` expression in the env of a step of this workflow. */
function evaluate(value: string, context: Record<string, string>): string {
  return value.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
    if (!(expression in context)) throw new Error(`the replay does not know ${expression}`)
    return context[expression]
  })
}

interface StepRun {
  status: number
  stdout: string
  stderr: string
  outputs: Record<string, string>
}

/** Runs a `run:` step of the workflow in the clone, as the runner does: bash, the step's env, GITHUB_OUTPUT. */
function runStep(step: Step, context: Record<string, string>): StepRun {
  const output = path.join(root, `output-${Math.random().toString(16).slice(2)}`)
  fs.writeFileSync(output, '')
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...IDENTITY,
    PATH: `${bin}${path.delimiter}${process.env.PATH}`,
    GH_LOG: path.join(root, 'gh.log'),
    GH_RELEASES: path.join(root, 'releases'),
    GITHUB_OUTPUT: output
  }
  for (const [name, value] of Object.entries(step.env ?? {})) env[name] = evaluate(value, context)
  const result = spawnSync('bash', ['-e', '-c', step.run!], { cwd: clone, env, encoding: 'utf8' })
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr, outputs: parseFileCommands(fs.readFileSync(output, 'utf8')) }
}

/**
 * The workflow, from the check's version step on (the build and the dist/ comparison before it are the
 * project's own CI commands), with `ref` checked out as the checkout steps do.
 */
function release(version: string, ref: string): { check: StepRun; publish?: StepRun } {
  git(clone, 'checkout', '--quiet', '--detach', ref)
  const inputs = { 'inputs.version': version, 'inputs.ref': ref, 'github.token': 'a-token' }
  const check = runStep(
    workflow.jobs.check.steps.find(s => s.id === 'version')!,
    inputs
  )
  if (check.status !== 0) return { check }
  const sha = evaluate(workflow.jobs.check.outputs!.sha, { 'steps.version.outputs.sha': check.outputs.sha })
  const checkout = workflow.jobs.publish.steps[0]
  git(clone, 'checkout', '--quiet', '--detach', evaluate(String(checkout.with!.ref), { 'needs.check.outputs.sha': sha }))
  const publish = runStep(workflow.jobs.publish.steps.at(-1)!, { ...inputs, 'needs.check.outputs.sha': sha })
  return { check, publish }
}

describe('the release workflow', () => {
  beforeEach(setUp)
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

  it('runs by hand only, checks dist/ before anything is published, and writes only in a job that needs the check', () => {
    expect(Object.keys(workflow.on)).toEqual(['workflow_dispatch'])
    expect(workflow.permissions).toEqual({ contents: 'read' })
    const check = workflow.jobs.check.steps
    const build = check.findIndex(s => s.run === 'npm run build')
    const compare = check.findIndex(s => s.run?.includes('git status --porcelain -- dist/'))
    const version = check.findIndex(s => s.id === 'version')
    expect(build).toBeGreaterThan(0)
    expect(compare).toBeGreaterThan(build)
    expect(version).toBeGreaterThan(compare)
    expect(workflow.jobs.check.permissions).toBeUndefined()
    expect(workflow.jobs.publish.needs).toBe('check')
    expect(workflow.jobs.publish.permissions).toEqual({ contents: 'write' })
    // The publish job releases the commit the check checked, and nothing else.
    expect(workflow.jobs.publish.steps[0].with?.ref).toBe('${{ needs.check.outputs.sha }}')
    expect(workflow.jobs.publish.steps.filter(s => s.run)).toHaveLength(1)
  })

  it('publishes the newest release and moves v1 to its commit, not to a tag object', () => {
    expect(originTag('v1')).toEqual(['tag', commits[1]])
    const { check, publish } = release('v1.3.0', commits[2])
    expect(check.status, check.stderr).toBe(0)
    expect(check.outputs).toMatchObject({ sha: commits[2], prerelease: 'false', 'move-major': 'true' })
    expect(publish?.status, publish?.stderr).toBe(0)
    expect(ghCalls()).toContain(`release create v1.3.0 --target ${commits[2]} --title v1.3.0 --generate-notes`)
    expect(originTag('v1.3.0')).toEqual(['commit', commits[2]])
    expect(originTag('v1')).toEqual(['commit', commits[2]])
  })

  it('never moves v1 for a prerelease, and marks the release as one', () => {
    const { publish } = release('v1.4.0-rc.1', commits[3])
    expect(publish?.status, publish?.stderr).toBe(0)
    expect(ghCalls()).toContain(`release create v1.4.0-rc.1 --target ${commits[3]} --title v1.4.0-rc.1 --generate-notes --prerelease`)
    expect(originTag('v1.4.0-rc.1')).toEqual(['commit', commits[3]])
    expect(originTag('v1')).toEqual(['tag', commits[1]])
    expect(publish?.stderr).toContain('v1.4.0-rc.1 is a prerelease: v1 stays where it is')
  })

  it('never moves v1 back: a patch of an older minor is published, not made the latest, and v1 stays', () => {
    expect(release('v1.3.0', commits[2]).publish?.status).toBe(0)
    const { publish } = release('v1.2.1', commits[3])
    expect(publish?.status, publish?.stderr).toBe(0)
    expect(ghCalls()).toContain(`release create v1.2.1 --target ${commits[3]} --title v1.2.1 --generate-notes --latest=false`)
    expect(originTag('v1')).toEqual(['commit', commits[2]])
    expect(publish?.stderr).toContain('v1.3.0 is newer than v1.2.1: v1 stays with it, it never goes back')
  })

  it('starts a new major tag with a new major version, and leaves the old one', () => {
    const { publish } = release('v2.0.0', commits[3])
    expect(publish?.status, publish?.stderr).toBe(0)
    expect(originTag('v2')).toEqual(['commit', commits[3]])
    expect(originTag('v1')).toEqual(['tag', commits[1]])
  })

  it('finishes a release that was cut short when run again, and publishes nothing twice', () => {
    // The tag was made (annotated, by hand) and the release is missing.
    git(clone, 'tag', '-a', '-m', 'v1.3.0', 'v1.3.0', commits[2])
    git(clone, 'push', '--quiet', 'origin', 'refs/tags/v1.3.0')
    const first = release('v1.3.0', commits[2])
    expect(first.publish?.status, first.publish?.stderr).toBe(0)
    expect(ghCalls()).toContain('release create v1.3.0 --verify-tag --title v1.3.0 --generate-notes')
    expect(originTag('v1')).toEqual(['commit', commits[2]])
    const again = release('v1.3.0', commits[2])
    expect(again.publish?.status, again.publish?.stderr).toBe(0)
    expect(ghCalls().filter(call => call.startsWith('release create'))).toHaveLength(1)
    expect(again.publish?.stderr).toContain('exists already')
  })

  it('refuses a version that is not vMAJOR.MINOR.PATCH, or that was released at another commit, before anything is published', () => {
    for (const version of ['v1.3', '1.3.0', 'v1.03.0', 'v1.3.0+build', 'latest']) {
      const { check, publish } = release(version, commits[2])
      expect(check.status, version).toBe(1)
      expect(check.stderr, version).toContain(`::error::"${version}" is not a version`)
      expect(check.outputs, version).toEqual({})
      expect(publish).toBeUndefined()
    }
    const { check } = release('v1.2.0', commits[3])
    expect(check.status).toBe(1)
    expect(check.stderr).toContain('the tag v1.2.0 exists already')
    expect(ghCalls()).toEqual([])
    expect(originTag('v1')).toEqual(['tag', commits[1]])
  })
})

describe('versions', () => {
  it('orders as semver does, prereleases before their release', () => {
    const order = [
      'v1.0.0-alpha',
      'v1.0.0-alpha.1',
      'v1.0.0-alpha.beta',
      'v1.0.0-beta',
      'v1.0.0-beta.2',
      'v1.0.0-beta.11',
      'v1.0.0-rc.1',
      'v1.0.0',
      'v1.0.1',
      'v1.2.0',
      'v1.10.0',
      'v2.0.0'
    ]
    const versions = order.map(v => parseVersion(v)!)
    for (let i = 1; i < versions.length; i++) {
      expect(compareVersions(versions[i - 1], versions[i]), `${order[i - 1]} < ${order[i]}`).toBeLessThan(0)
      expect(compareVersions(versions[i], versions[i - 1])).toBeGreaterThan(0)
    }
    expect(compareVersions(parseVersion('v1.2.3')!, parseVersion('v1.2.3')!)).toBe(0)
  })

  it('plans the major tag from the tags that exist', () => {
    const tags = ['v1.0.0', 'v1.2.0', 'v1.3.0-rc.1', 'v2.0.0', 'v1', 'v2', 'nightly'].map(name => ({ name, object: name, commit: name }))
    expect(planMajor(parseVersion('v1.3.0')!, tags)).toMatchObject({ major: 'v1', move: true, latest: false })
    expect(planMajor(parseVersion('v1.1.5')!, tags)).toMatchObject({ move: false, latest: false })
    expect(planMajor(parseVersion('v2.1.0')!, tags)).toMatchObject({ major: 'v2', move: true, latest: true })
    expect(planMajor(parseVersion('v2.1.0-beta.1')!, tags)).toMatchObject({ move: false })
    // A release candidate of a newer version does not hold back its own major's release.
    expect(planMajor(parseVersion('v1.2.1')!, [{ name: 'v1.3.0-rc.1', object: 'x', commit: 'x' }])).toMatchObject({ move: true, latest: true })
  })
})
