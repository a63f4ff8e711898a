// Covers: eslint.config.js (the layer rule).
// The layer rule resolves what an import names, however it is spelled.
import * as path from 'node:path'
import { ESLint } from 'eslint'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const eslint = new ESLint({ cwd: ROOT })

async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) })
  return result.messages.filter(m => m.ruleId === 'layers/only-below').map(m => m.message)
}

describe('a layer imports only itself and the layers below it', () => {
  it.each([
    ['a plain import from a layer above', 'src/os/quote.ts', "import { run } from '../stages/main.js'\nvoid run\n"],
    ['a dynamic import()', 'src/git/porcelain.ts', "export const later = (): Promise<unknown> => import('../exit/exit-worktree.js')\n"],
    ['a roundabout spelling', 'src/record/names.ts', "import { report } from './../../src/runner/report/exit.js'\nvoid report\n"],
    ['from a subfolder of a layer, upwards', 'src/runner/report/exit.ts', "import { enter } from '../../enter/enter.js'\nvoid enter\n"],
    ['an entry of src/', 'src/gate/findings.ts', "export * from '../index.js'\n"]
  ])('refuses %s', async (_title, file, code) => {
    expect(await layerErrors(file, code)).toHaveLength(1)
  })
  it.each([
    ['a layer below', 'src/exit/push.ts', "import { quoted } from '../os/quote.js'\nvoid quoted\n"],
    ['its own layer, from a subfolder', 'src/runner/report/exit.ts', "import { getExitSettings } from '../inputs.js'\nvoid getExitSettings\n"],
    ['a package', 'src/os/quote.ts', "import * as fs from 'node:fs'\nvoid fs\n"]
  ])('takes %s', async (_title, file, code) => {
    expect(await layerErrors(file, code)).toEqual([])
  })
})
