// The action's bundle, dist/index.js, for the main, post and exit stages. The runner starts each stage from the
// file action.yml or exit/action.yml names (dist/main/index.js, dist/post/index.js, dist/exit/index.js), a line
// that calls start() with its stage (written by scripts/bundle.mjs): the stages share nearly all their code, and
// each chunk ships once. The run sub-action has a bundle of its own (src/run.ts).
import { run as exitStep } from './stages/exit.js'
import { run as enter } from './stages/main.js'
import { run as post } from './stages/post.js'

const STAGES = { main: enter, post, exit: exitStep }

export type Stage = keyof typeof STAGES

/**
 * Runs one stage, then exits when it is done, whatever timers or sockets a client library left open:
 * an artifact upload that ran out of its time must not hold the step.
 */
export function start(stage: Stage): void {
  void STAGES[stage]().then(() => process.exit())
}
