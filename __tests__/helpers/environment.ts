// What of the caller's environment the tests must not see; setup.ts takes it out before every test file
// (vitest.config.ts setupFiles). Under act (ACT=true), inside a GitHub Actions job (GITHUB_*, RUNNER_*,
// ACTIONS_*), or in a job that used agent-worktree itself (AGENT_WORKTREE_PATH), these variables would
// otherwise reach the code under test and the steps the runner emulation starts, and change what they do.

/** Whether a variable of the caller's environment must not reach the tests. */
export function isCallerVariable(name: string): boolean {
  return (
    name === 'ACT' ||
    /^(GITHUB|RUNNER|ACTIONS|INPUT|STATE)_/.test(name) ||
    name === 'AGENT_WORKTREE_PATH' ||
    name === 'AGENT_WORKTREE_ORIGINAL_PATH' ||
    // A repository the caller's git is pointed at (a hook sets GIT_DIR and GIT_INDEX_FILE).
    (name.startsWith('GIT_') && name !== 'GIT_EXEC_PATH')
  )
}
