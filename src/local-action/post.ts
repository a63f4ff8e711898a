// The post stage as `npm run local-action` runs it, speaking through local-action's @actions/core (see main.ts).
import * as actionsCore from '@actions/core'
import { speakThrough } from '../runner/toolkit.js'
import { run as post } from '../stages/post.js'

export async function run(): Promise<void> {
  speakThrough(actionsCore)
  await post()
}
