import { run } from './exit-step.js'

void run()
