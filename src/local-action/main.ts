// The main stage as `npm run local-action` runs it: @github/local-action stands in for @actions/core and keeps the
// state for the post itself, so the stage speaks through @actions/core here (the bundle writes the protocol itself).
import * as actionsCore from '@actions/core'
import { speakThrough } from '../runner/toolkit.js'
import { run as enter } from '../stages/main.js'

export async function run(): Promise<void> {
  speakThrough(actionsCore)
  await enter()
}
