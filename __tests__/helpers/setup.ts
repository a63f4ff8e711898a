// Runs before every test file (vitest.config.ts setupFiles): the tests see none of the environment of
// whoever runs them (see environment.ts).
import { isCallerVariable } from './environment.js'

for (const name of Object.keys(process.env)) {
  if (isCallerVariable(name)) delete process.env[name]
}
