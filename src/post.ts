import { run } from './post-step.js'

// Exit when done: an artifact upload that ran out of its time must not hold the step.
void run().then(() => process.exit())
