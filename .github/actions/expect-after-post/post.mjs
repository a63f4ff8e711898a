import { existsSync } from 'node:fs'

const expected = process.env['INPUT_EXPECT']
const worktree = process.env['AGENT_WORKTREE_PATH']
if (!worktree) {
  console.log('::error::AGENT_WORKTREE_PATH is not set: agent-worktree did not export it')
  process.exit(1)
}
const actual = existsSync(worktree) ? 'kept' : 'removed'
if (actual !== expected) {
  console.log(`::error::expected the worktree ${worktree} to be ${expected}, but it was ${actual}`)
  process.exit(1)
}
console.log(`The worktree ${worktree} was ${actual}, as expected.`)
