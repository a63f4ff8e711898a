// Covers: src/sandbox/run-confined.ts (what it takes from @anthropic-ai/sandbox-runtime), package.json's pin.
// sandbox-runtime is 0.0.x: any release may move a file or drop an export, and run-confined.ts imports two of its
// internal modules (dist/sandbox/…) besides its entry. The pin is exact; and this test names, loudly, whatever
// run-confined.ts takes from it that an update moved.
import * as fs from 'node:fs'
import * as path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../scripts/runner.mjs'

const PACKAGE = '@anthropic-ai/sandbox-runtime'

/** Each module run-confined.ts imports, with the name it binds it to there and what it reads of it. */
const USED: Record<string, { as: string[]; uses: string[] }> = {
  [`${PACKAGE}/dist/sandbox/linux-sandbox-utils.js`]: {
    as: ['linux'],
    uses: ['wrapCommandWithSandboxLinux', 'cleanupBwrapMountPoints', 'checkLinuxDependencies']
  },
  [`${PACKAGE}/dist/sandbox/sandbox-utils.js`]: { as: ['utils'], uses: ['getDefaultWritePaths'] },
  [PACKAGE]: { as: ['m', 'SandboxManager', 'manager'], uses: ['SandboxManager'] }
}

/** What run-confined.ts calls on SandboxManager. */
const MANAGER = [
  ...['initialize', 'reset', 'wrapWithSandbox', 'cleanupAfterCommand', 'checkDependencies', 'getProxyPort', 'getSocksProxyPort', 'getProxyAuthToken'],
  ...['getLinuxHttpSocketPath', 'getLinuxSocksSocketPath']
]

const source = fs.readFileSync(path.join(ROOT, 'src', 'sandbox', 'run-confined.ts'), 'utf8')

describe('@anthropic-ai/sandbox-runtime, as run-confined.ts uses it', () => {
  it('is pinned exactly, and the installed one is the pinned one', () => {
    // A devDependency: the bundle carries it.
    const pinned = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies[
      PACKAGE
    ]
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/)
    const installed = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', PACKAGE, 'package.json'), 'utf8')) as { version: string }
    expect(installed.version).toBe(pinned)
  })

  it('has every module and export run-confined.ts takes from it', async () => {
    const moved: string[] = []
    for (const [module, { uses }] of Object.entries(USED)) {
      let loaded: Record<string, unknown>
      try {
        loaded = (await import(module)) as Record<string, unknown>
      } catch (error) {
        moved.push(`${module} cannot be imported (${(error as Error).message.split('\n')[0]})`)
        continue
      }
      for (const name of uses) if (loaded[name] === undefined) moved.push(`${module} exports no ${name}`)
    }
    const { SandboxManager } = (await import(PACKAGE)) as { SandboxManager?: Record<string, unknown> }
    for (const name of MANAGER) if (typeof SandboxManager?.[name] !== 'function') moved.push(`${PACKAGE}'s SandboxManager has no ${name}()`)
    expect(moved, `sandbox-runtime moved what src/sandbox/run-confined.ts uses: ${moved.join('; ')}`).toEqual([])
  })

  it('lists here everything run-confined.ts takes from it: the modules it imports and what it reads of each', () => {
    const imported = [...source.matchAll(/import\('(@anthropic-ai\/sandbox-runtime[^']*)'\)/g)].map(m => m[1])
    expect([...new Set(imported)].sort()).toEqual(Object.keys(USED).sort())
    const names = Object.values(USED).flatMap(u => u.as)
    const code = source.replace(/import\('[^']*'\)/g, '')
    const read = [...code.matchAll(/\b(\w+)!?\.(\w+)\(?/g)].filter(m => names.includes(m[1]) && m[1] !== 'm').map(m => `${m[1]}.${m[2]}`)
    const known = [
      ...Object.values(USED).flatMap(u => u.as.flatMap(as => u.uses.map(name => `${as}.${name}`))),
      ...['manager', 'SandboxManager'].flatMap(as => MANAGER.map(name => `${as}.${name}`))
    ]
    expect(read.length).toBeGreaterThan(10)
    expect(read.filter(r => !known.includes(r))).toEqual([])
  })
})
