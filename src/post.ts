import { run } from './post-step.js'

void run()
