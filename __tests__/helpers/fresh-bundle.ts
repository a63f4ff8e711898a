// The end-to-end tests run the committed bundles, as the runner does: after an edit of a source they would
// test the old code. Before any test runs, the bundles are built again when a source is newer than they are.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const INPUTS = ['src', 'scripts/bundle.mjs', 'package-lock.json']

function newest(p: string): number {
  const stat = fs.statSync(p)
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(stat.mtimeMs, ...fs.readdirSync(p).map(name => newest(path.join(p, name))))
}

export default function setup(): void {
  const bundle = path.join(ROOT, 'dist', 'index.js')
  const built = fs.existsSync(bundle) ? fs.statSync(bundle).mtimeMs : 0
  const source = Math.max(...INPUTS.map(p => newest(path.join(ROOT, p))))
  if (source <= built) return
  console.log('A source is newer than dist/: building the bundles first (npm run bundle).')
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'bundle.mjs')], { cwd: ROOT, stdio: 'inherit' })
}
