import { runExit } from './exit-step.js'

void runExit()
