import { runPost } from './exit-step.js'

void runPost()
