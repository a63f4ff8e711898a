// Covers: __tests__/helpers/setup.ts.
// The suite runs the same wherever it is started: under act, inside a GitHub Actions job, from a git hook.
import { describe, expect, it } from 'vitest'
import { isCallerVariable } from '../helpers/environment.js'

describe("the tests' environment", () => {
  it("holds none of the caller's act, Actions, runner, job or git-repository variables", () => {
    expect(Object.keys(process.env).filter(isCallerVariable)).toEqual([])
  })

  it('keeps what is not a job or repository of the caller: the shell, git itself, the test knobs', () => {
    for (const name of ['PATH', 'HOME', 'CI', 'GIT_EXEC_PATH', 'AGENT_WORKTREE_ROUNDS', 'AGENT_WORKTREE_CASES', 'ACTOR'])
      expect(isCallerVariable(name), name).toBe(false)
    for (const name of ['ACT', 'GITHUB_WORKSPACE', 'RUNNER_TEMP', 'ACTIONS_RUNTIME_TOKEN', 'GIT_DIR', 'GIT_INDEX_FILE', 'AGENT_WORKTREE_PATH', 'INPUT_NAME'])
      expect(isCallerVariable(name), name).toBe(true)
  })
})
