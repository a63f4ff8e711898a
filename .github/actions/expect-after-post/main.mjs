// Registered before agent-worktree, so that its post runs after agent-worktree's post (posts run last-in first-out).
console.log(`Will check after agent-worktree's post that the worktree was ${process.env['INPUT_EXPECT']}.`)
