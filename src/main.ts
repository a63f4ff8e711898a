import { run } from './enter.js'

// Exit when done, whatever timers or sockets a client library left open.
void run().then(() => process.exit())
