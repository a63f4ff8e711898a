// Tools that some tests need and a fresh machine may lack: those tests are skipped, and say so.
import { spawnSync } from 'node:child_process'

/**
 * Whether `probe` runs; when it does not, prints one line naming the tests it skips and the tool to
 * install (vitest shows a test file's console output).
 */
export function available(tool: string, probe: string[], tests: string): boolean {
  const ok = spawnSync(probe[0], probe.slice(1), { stdio: 'ignore' }).status === 0
  if (!ok) console.warn(`Skipped ${tests}: they need ${tool}, which is not installed here.`)
  return ok
}
