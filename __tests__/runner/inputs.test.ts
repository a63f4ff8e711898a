// Covers: src/runner/inputs.ts (push, run's inputs too), src/record/names.ts, src/rescue/names.ts.
import * as fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { quoted } from '../../src/os/quote.js'
import { flattenName } from '../../src/record/names.js'
import { InputError } from '../../src/record/settings.js'
import {
  getEnterSettings,
  getExitSettings,
  getRunSettings,
  LEG_DEFAULT,
  nameProblem,
  parseBoolean,
  parseLeg,
  parseOnExit,
  parsePullRequest,
  parsePush,
  parseReclaim,
  parseRescue,
  parseRestore,
  parseSize
} from '../../src/runner/inputs.js'

describe('an input error', () => {
  it('quotes the value as every name is quoted: as it was typed, in a code span, its control characters escaped', () => {
    expect(new InputError('worktrees-dir', 'C:\\agents\\wt', 'a problem', 'A fix.').message).toBe(
      "Input 'worktrees-dir' has the value `C:\\agents\\wt`: a problem. A fix."
    )
    expect(new InputError('name', 'a"b\nc`', 'a problem', 'A fix.').message).toBe("Input 'name' has the value `` a\"b\\nc` ``: a problem. A fix.")
  })
})

describe('leg', () => {
  it('is the index of a matrix leg, and nothing outside a matrix or where the default was not evaluated', () => {
    expect(parseLeg('leg', '3/8')).toBe('3')
    expect(parseLeg('leg', '0/1')).toBeUndefined()
    expect(parseLeg('leg', '')).toBeUndefined()
    expect(parseLeg('leg', LEG_DEFAULT)).toBeUndefined()
    // nektos/act leaves the strategy context empty, in a matrix or not.
    expect(parseLeg('leg', '/')).toBeUndefined()
    expect(() => parseLeg('leg', 'x/2')).toThrow(/Input 'leg' has the value `x\/2`: it is not <index>\/<total>/)
    // The index counts from 0: 1/2 is the last of two legs.
    expect(parseLeg('leg', '1/2')).toBe('1')
    expect(() => parseLeg('leg', '3/2')).toThrow("Input 'leg' has the value `3/2`: a matrix of 2 leg(s) has no leg 3.")
    expect(() => parseLeg('leg', '2/2')).toThrow('has no leg 2')
  })

  it("is action.yml's default", () => {
    expect(fs.readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')).toContain(`default: ${LEG_DEFAULT}\n`)
  })
})

describe('the name rule', () => {
  it.each(['a', 'agent-1', 'team/agent_2', 'a.b/c-d/e_f', 'A9', 'x'.repeat(64), '...x', 'a..b'])('accepts %j', name => {
    expect(nameProblem(name)).toBeUndefined()
  })
  it.each([
    ['', 'empty segment'],
    ['/a', 'empty segment'],
    ['a/', 'empty segment'],
    ['a//b', 'empty segment'],
    ['.', '"." segment'],
    ['a/..', '".." segment'],
    ['a b', 'character other than'],
    ['a+b', 'character other than'],
    ['a\\b', 'character other than'],
    ['ünïcode', 'character other than'],
    ['x'.repeat(65), 'more than 64']
  ])('refuses %j', (name, problem) => {
    expect(nameProblem(name)).toContain(problem)
  })
  it('turns "/" into "+" for folder and branch names', () => {
    expect(flattenName('team/a/b')).toBe('team+a+b')
  })
})

describe('booleans, by the YAML 1.2 core schema', () => {
  it.each([
    ['true', true],
    ['True', true],
    ['TRUE', true],
    ['false', false],
    ['False', false],
    ['FALSE', false],
    ['', false]
  ])('%j is %j', (value, expected) => {
    expect(parseBoolean('discard-changes', value)).toBe(expected)
  })
  it.each(['yes', 'no', 'on', '1', '0', 'tRUE', ' true'])('refuses %j, naming the input, the value and the fix', value => {
    expect(() => parseBoolean('discard-changes', value)).toThrow(InputError)
    expect(() => parseBoolean('discard-changes', value)).toThrow(
      `Input 'discard-changes' has the value ${quoted(value)}: it is not a boolean. Use true or false.`
    )
  })
})

describe('on-exit', () => {
  it('takes keep, remove, or nothing', () => {
    expect(parseOnExit('on-exit', 'keep')).toBe('keep')
    expect(parseOnExit('on-exit', 'remove')).toBe('remove')
    expect(parseOnExit('on-exit', '')).toBeUndefined()
  })
  it.each(['kEEP', 'delete', 'discard'])('refuses %j', value => {
    expect(() => parseOnExit('on-exit', value)).toThrow("Input 'on-exit'")
  })
})

describe('one case rule for every keyword', () => {
  // As YAML 1.2's core schema writes true and false, and the toolkit reads them: lower, capitalised, upper.
  it.each([
    ['on-exit', 'Keep', () => parseOnExit('on-exit', 'Keep'), 'keep'],
    ['on-exit', 'REMOVE', () => parseOnExit('on-exit', 'REMOVE'), 'remove'],
    ['rescue', 'Artifact, BRANCH', () => parseRescue('rescue', 'Artifact, BRANCH'), ['artifact', 'branch']],
    ['rescue', 'None', () => parseRescue('rescue', 'None'), []],
    ['restore', 'Auto', () => parseRestore('restore', 'Auto'), 'auto'],
    ['push', 'TRUE', () => parsePush('push', 'TRUE'), {}]
  ])('%s: %j is taken', (_input, _value, parse, expected) => {
    expect(parse()).toEqual(expected)
  })
  it.each([
    ['on-exit', () => parseOnExit('on-exit', 'kEep')],
    ['rescue', () => parseRescue('rescue', 'arTifact')],
    ['discard-changes', () => parseBoolean('discard-changes', 'tRue')]
  ])('%s: a keyword in mixed case is refused', (input, parse) => {
    expect(parse).toThrow(`Input '${input}'`)
  })
})

describe('push', () => {
  it.each(['yes', 'no', 'on', 'off', 'y', 'n', 'Yes', 'NO', 'On', 'OFF'])('%j reads as a yes or no, never as the name of a branch', value => {
    expect(() => parsePush('push', value)).toThrow(
      `Input 'push' has the value ${quoted(value)}: it reads as a yes or no, not as the name of a branch. Use true (push to the worktree's own branch) or false;`
    )
  })
  it('takes a branch name that holds such a word', () => {
    expect(parsePush('push', 'agent/yes')).toEqual({ branch: 'agent/yes' })
    expect(parsePush('push', 'none')).toEqual({ branch: 'none' })
  })
})

describe('reclaim', () => {
  it('empty: the folders holding a CACHEDIR.TAG; none: nothing; patterns: those and the tagged ones', () => {
    expect(parseReclaim('reclaim', '')).toEqual({ patterns: [], tagged: true })
    expect(parseReclaim('reclaim', 'None')).toEqual({ patterns: [], tagged: false })
    expect(parseReclaim('reclaim', 'node_modules, target/\n packages/*/dist\n\n/.venv,node_modules')).toEqual({
      patterns: ['node_modules', 'target/', 'packages/*/dist', '/.venv'],
      tagged: true
    })
  })

  it.each([
    ['none, node_modules', 'none stands alone'],
    ['!node_modules', '`!node_modules` starts with !, which gitignore reads as a negation or a comment'],
    ['#cache', 'starts with #'],
    ['..\\build', 'has a backslash'],
    ['../outside', 'has a "." or ".." segment'],
    ['a/./b', 'has a "." or ".." segment']
  ])('refuses %j: %s', (value, problem) => {
    expect(() => parseReclaim('reclaim', value)).toThrow(`Input 'reclaim' has the value ${quoted(value)}: `)
    expect(() => parseReclaim('reclaim', value)).toThrow(problem)
    expect(() => parseReclaim('reclaim', value)).toThrow('Use none, or gitignore-style patterns of folders git ignores')
  })
})

describe('what an error quotes', () => {
  it('a long value: its first 200 characters, and how long it is', () => {
    const message = new InputError('branch', 'b'.repeat(100_000), 'a problem', 'A fix.').message
    expect(message).toBe(`Input 'branch' has the value \`${'b'.repeat(200)}\` (its first 200 characters of 100000): a problem. A fix.`)
  })
  it('a segment of a name as the name itself is quoted: a bidirectional override escaped', () => {
    expect(nameProblem('a/b\u202ec')).toBe('the segment `b\\u202ec` has a character other than letters, digits, ".", "_" and "-"')
  })
})

describe('reading the inputs as the runner passes them', () => {
  const saved = { ...process.env }
  afterEach(() => {
    process.env = { ...saved }
  })
  function inputs(values: Record<string, string>): void {
    for (const k of Object.keys(process.env)) if (k.startsWith('INPUT_')) delete process.env[k]
    for (const [k, v] of Object.entries(values)) process.env[`INPUT_${k.toUpperCase()}`] = v
  }

  it('fills in defaults and resolves paths against the workspace (worktrees-dir is resolved where it is checked)', () => {
    process.env.GITHUB_WORKSPACE = '/ws/repo'
    delete process.env.RUNNER_ENVIRONMENT
    inputs({ 'discard-changes': 'false', 'worktrees-dir': 'wts' })
    expect(getEnterSettings()).toEqual({
      name: undefined,
      path: undefined,
      baseRef: 'HEAD',
      branch: undefined,
      repositoryPath: '/ws/repo',
      worktreesDir: 'wts',
      onExit: undefined,
      discardChanges: false,
      fetch: false,
      includeFile: undefined,
      symlinkDirs: [],
      sparsePaths: [],
      recycle: false,
      rescue: [],
      rescueMaxBytes: 100 * 1024 * 1024,
      isolation: 'worktree',
      reclaim: { patterns: [], tagged: true }
    })
  })

  it('reads path lists separated by newlines or commas, tidied', () => {
    inputs({ 'symlink-dirs': 'node_modules/\n./.venv , node_modules\n\n', 'sparse-paths': 'packages/a,packages/b' })
    expect(getEnterSettings()).toMatchObject({ symlinkDirs: ['node_modules', '.venv'], sparsePaths: ['packages/a', 'packages/b'] })
  })

  it('reads reclaim: the exit step takes the main step’s when it has none of its own; a control character is refused in the main step', () => {
    inputs({})
    expect(getExitSettings().reclaim).toBeUndefined()
    inputs({ reclaim: 'none' })
    expect(getExitSettings().reclaim).toEqual({ patterns: [], tagged: false })
    inputs({ reclaim: 'node_modules\tx' })
    expect(() => getEnterSettings()).toThrow("Input 'reclaim' has the value `node_modules\\tx`: it contains a control character")
  })

  it("reads push: false or empty pushes nothing, true the worktree's own branch, anything else names one", () => {
    expect(parsePush('push', '')).toBe(false)
    expect(parsePush('push', 'False')).toBe(false)
    expect(parsePush('push', 'true')).toEqual({})
    expect(parsePush('push', 'agent/fix')).toEqual({ branch: 'agent/fix' })
    expect(() => parsePush('push', '--force')).toThrow(/^Input 'push' has the value `--force`: it is neither true, false nor a branch name/)
    inputs({ push: 'agent/fix' })
    expect(getEnterSettings().push).toEqual({ branch: 'agent/fix' })
    inputs({ push: 'false' })
    expect(getEnterSettings().push).toBeUndefined()
    expect(getExitSettings().push).toBe(false)
    inputs({})
    expect(getExitSettings().push).toBeUndefined()
  })

  it('reads pull-request: false, true or draft; it needs push and a token, and a title needs it', () => {
    expect(parsePullRequest('pull-request', '')).toBe(false)
    expect(parsePullRequest('pull-request', 'True')).toEqual({ draft: false })
    expect(parsePullRequest('pull-request', 'DRAFT')).toEqual({ draft: true })
    expect(() => parsePullRequest('pull-request', 'ready')).toThrow("Input 'pull-request' has the value `ready`: it is neither true, false nor draft.")
    inputs({ push: 'true', 'pull-request': 'draft', 'pull-request-title': 'Fix it', 'github-token': 'x' })
    expect(getEnterSettings().pullRequest).toEqual({ draft: true, title: 'Fix it' })
    inputs({ 'pull-request': 'true', 'github-token': 'x' })
    expect(() => getEnterSettings()).toThrow(
      /^Input 'pull-request' has the value `true`: a pull request is opened for the branch that push sends, and nothing is pushed/
    )
    inputs({ push: 'true', 'pull-request': 'true' })
    expect(() => getEnterSettings()).toThrow(/^Input 'github-token' has the value ``: a pull request needs a token to open it with/)
    inputs({ push: 'true', 'pull-request-title': 'Fix it' })
    expect(() => getEnterSettings()).toThrow(/^Input 'pull-request-title' has the value `Fix it`: no pull request is asked for/)
    inputs({ 'pull-request': 'false', 'pull-request-title': 'Mine' })
    expect(getExitSettings()).toMatchObject({ pullRequest: false, pullRequestTitle: 'Mine' })
    inputs({})
    expect(getExitSettings()).toMatchObject({ pullRequest: undefined, pullRequestTitle: undefined })
  })

  it('reads the inputs of the run sub-action', () => {
    process.env.GITHUB_WORKSPACE = '/ws/repo'
    inputs({ command: 'claude -p "go"\n', path: '../wt', 'allowed-domains': 'api.anthropic.com, *.github.com\nexample.com:443', 'allow-unconfined': 'false' })
    expect(getRunSettings()).toEqual({
      command: 'claude -p "go"',
      path: '/ws/wt',
      allowedDomains: ['api.anthropic.com', '*.github.com', 'example.com:443'],
      allowUnconfined: false
    })
    inputs({ command: '  ' })
    expect(() => getRunSettings()).toThrow(/^Input 'command' has the value ``: it is empty/)
    inputs({ command: 'true', 'allowed-domains': 'https://example.com' })
    expect(() => getRunSettings()).toThrow(/`https:\/\/example.com` is not a domain/)
  })

  it('reads every input of the exit sub-action', () => {
    process.env.GITHUB_WORKSPACE = '/ws/repo'
    inputs({ path: '../wt', 'on-exit': 'keep', 'discard-changes': 'TRUE' })
    expect(getExitSettings()).toEqual({ path: '/ws/wt', onExit: 'keep', discardChanges: true, rescue: undefined })
  })

  it('reads rescue: auto is an artifact on a GitHub-hosted runner only, and sizes take units', () => {
    expect(parseRescue('rescue', 'auto', { RUNNER_ENVIRONMENT: 'github-hosted' })).toEqual(['artifact'])
    expect(parseRescue('rescue', '', { RUNNER_ENVIRONMENT: 'self-hosted' })).toEqual([])
    expect(parseRescue('rescue', 'none', { RUNNER_ENVIRONMENT: 'github-hosted' })).toEqual([])
    expect(parseRescue('rescue', 'branch, artifact', {})).toEqual(['branch', 'artifact'])
    expect(() => parseRescue('rescue', 'auto, branch', {})).toThrow("Input 'rescue' has the value `auto, branch`: auto and none stand alone")
    expect(() => parseRescue('rescue', 'cloud', {})).toThrow('`cloud` is not a rescue target')
    expect(parseSize('rescue-max-size', '100MB')).toBe(100 * 1024 ** 2)
    expect(parseSize('rescue-max-size', '1.5 gb')).toBe(1.5 * 1024 ** 3)
    expect(parseSize('rescue-max-size', '512')).toBe(512)
    expect(() => parseSize('rescue-max-size', '-1MB')).toThrow('it is not a size')
    // Zero is no size for a rescue: the error names the input that rescues nothing.
    for (const zero of ['0', '0MB', '0.0001KB'])
      expect(() => parseSize('rescue-max-size', zero)).toThrow(
        `Input 'rescue-max-size' has the value \`${zero}\`: a rescue of no bytes would hold nothing. To rescue nothing, set rescue: none; else give a size such as 100MB.`
      )
  })

  it('reads restore: none, auto, or a rescue by the name its exit gave (an artifact, or a branch)', () => {
    expect(parseRestore('restore', '')).toBeUndefined()
    expect(parseRestore('restore', 'none')).toBeUndefined()
    expect(parseRestore('restore', 'auto')).toBe('auto')
    expect(parseRestore('restore', 'agent-worktree-rescue-agent+docs-agents-41-1-2')).toEqual({
      kind: 'artifact',
      name: 'agent-worktree-rescue-agent+docs-agents-41-1-2'
    })
    expect(parseRestore('restore', 'agent-worktree-rescue/fix/agents-41-1')).toEqual({ kind: 'branch', name: 'agent-worktree-rescue/fix/agents-41-1' })
    for (const value of [
      'main',
      'origin/agent-worktree-rescue/x/y',
      'agent-worktree-rescue/x',
      'agent-worktree-rescue/x/../y',
      'agent-worktree-rescue-a b',
      '-x'
    ])
      expect(() => parseRestore('restore', value), value).toThrow(
        `Input 'restore' has the value ${quoted(value)}: it is neither none, auto, nor the name of a rescue`
      )
  })

  it.each([
    [{ name: 'a', path: '/x' }, "Input 'path'"],
    [{ path: '/x', restore: 'auto' }, "Input 'restore' has the value `auto`: a rescue is restored only into a new worktree, and path enters an existing one"],
    [{ recycle: 'true', restore: 'agent-worktree-rescue-a-b-1-1' }, 'and recycle takes one from the pool'],
    [{ path: '/x', branch: 'b' }, "Input 'branch'"],
    [{ path: '/x', 'worktrees-dir': '/y' }, "Input 'worktrees-dir'"],
    [{ path: '/x', fetch: 'true' }, "Input 'fetch'"],
    [{ path: '/x', 'sparse-paths': 'a' }, "Input 'sparse-paths'"],
    [{ 'symlink-dirs': 'a/../../b' }, "Input 'symlink-dirs'"],
    [{ 'sparse-paths': '-x' }, "Input 'sparse-paths'"],
    [{ 'base-ref': 'main\nx=y' }, 'control character'],
    [{ 'repository-path': '/x\ry' }, 'control character']
  ])('refuses %j', (values, message) => {
    inputs(values)
    expect(() => getEnterSettings()).toThrow(message)
  })
})
