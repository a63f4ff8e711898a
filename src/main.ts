import { run } from './enter.js'

void run()
