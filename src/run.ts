// The run sub-action's own bundle, dist/run/index.js: the command it runs waits for this process to start, so it
// loads only what the run stage uses (sandbox-runtime itself only when it confines), not the action's bundle.
import { run } from './stages/run.js'

void run().then(() => process.exit())
