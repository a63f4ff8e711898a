// Covers: scripts/bundle.mjs, src/index.ts, src/run.ts: dist/ and the stage files action.yml names.
// dist/ as the runner gets it: one bundle for the three stages, each chunk once, and the file action.yml
// and exit/action.yml name for each stage starting that stage of the bundle; the run sub-action's own bundle.
import { createHash } from 'node:crypto'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from '../../scripts/runner.mjs'

const dist = path.join(ROOT, 'dist')

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(e => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
}

/** The stage files the runner starts: [action file, key, path relative to the repository]. */
function stageFiles(): [string, string, string][] {
  const out: [string, string, string][] = []
  for (const file of ['action.yml', 'exit/action.yml']) {
    const runs = (parse(fs.readFileSync(path.join(ROOT, file), 'utf8')) as { runs: Record<string, string> }).runs
    for (const key of ['main', 'post'] as const) {
      if (runs[key]) out.push([file, key, path.relative(ROOT, path.resolve(ROOT, path.dirname(file), runs[key]))])
    }
  }
  return out
}

describe('dist/', () => {
  it('ships each chunk once: no two files hold the same bytes', () => {
    const byHash = new Map<string, string[]>()
    for (const file of files(dist)) {
      const hash = createHash('sha256').update(fs.readFileSync(file)).digest('hex')
      byHash.set(hash, [...(byHash.get(hash) ?? []), path.relative(ROOT, file)])
    }
    expect([...byHash.values()].filter(same => same.length > 1)).toEqual([])
  })

  it('starts each stage the action files name from the one bundle, which is an ES module', () => {
    const stages = stageFiles()
    expect(stages.map(([file, key, target]) => `${file} ${key}: ${target}`)).toEqual([
      'action.yml main: dist/main/index.js',
      'action.yml post: dist/post/index.js',
      'exit/action.yml main: dist/exit/index.js'
    ])
    for (const [, , target] of stages) {
      const stage = path.basename(path.dirname(target))
      expect(fs.readFileSync(path.join(ROOT, target), 'utf8')).toContain(`import { start } from '../index.js'\n\nstart('${stage}')\n`)
    }
    expect(JSON.parse(fs.readFileSync(path.join(dist, 'package.json'), 'utf8'))).toEqual({ type: 'module' })
    expect(fs.readFileSync(path.join(dist, 'index.js'), 'utf8')).toMatch(/export\s*\{[^}]*\bstart\b[^}]*\}/)
  })

  it('starts the main, post and exit stages without an HTTP client: it loads with a rescue, a restore or a pull request', () => {
    const bundle = fs.readFileSync(path.join(dist, 'index.js'), 'utf8')
    // undici (@actions/http-client's), or @actions/core, which loads it for its OIDC client at import.
    for (const heavy of ['undici', 'ACTIONS_ID_TOKEN_REQUEST_URL']) expect(bundle.includes(heavy), heavy).toBe(false)
  })

  it("gives the run sub-action a bundle of its own, which loads neither @actions/core nor sandbox-runtime's manager before the command", () => {
    const runs = (parse(fs.readFileSync(path.join(ROOT, 'run', 'action.yml'), 'utf8')) as { runs: Record<string, string> }).runs
    expect(path.relative(ROOT, path.resolve(ROOT, 'run', runs.main))).toBe('dist/run/index.js')
    const bundle = fs.readFileSync(path.join(dist, 'run', 'index.js'), 'utf8')
    // What node loads with it: node's own modules, nothing of the action's bundle.
    expect([...bundle.matchAll(/\bimport\s*[^;()]*?from\s*["']([^"']+)["']/g)].map(m => m[1])).toEqual(['module'])
    // Its chunks load through import(), when the stage asks for them: none of these is in what node loads first.
    // undici (@actions/core's HTTP client), node-forge (sandbox-runtime's TLS), zod (its config schemas).
    for (const heavy of ['undici', 'Digital Bazaar', 'ZodError']) expect(bundle.includes(heavy), heavy).toBe(false)
    // What it says goes through runner/toolkit.ts: no chunk holds @actions/core's OIDC client.
    for (const chunk of fs.readdirSync(path.join(dist, 'run')).filter(f => f.endsWith('.js')))
      expect(fs.readFileSync(path.join(dist, 'run', chunk), 'utf8').includes('ACTIONS_ID_TOKEN_REQUEST_URL'), chunk).toBe(false)
    // sandbox-runtime's seccomp helper, where the bundled library looks for it: beside its chunks.
    for (const arch of ['x64', 'arm64']) expect(fs.statSync(path.join(dist, 'run', 'vendor', 'seccomp', arch, 'apply-seccomp')).mode & 0o111).toBeTruthy()
  })
})
