// The run stage of agent-worktree: its code is the action's one bundle, dist/index.js.
import { start } from '../index.js'

start('run')
