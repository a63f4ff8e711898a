// A node_modules as a package manager leaves one, for the tests of reclaim.
import * as fs from 'node:fs'
import * as path from 'node:path'

/** `count` files in 1,000 folders, as a package manager leaves node_modules. */
export function nodeModules(wt: string, count: number): void {
  const perFolder = Math.ceil(count / 1000)
  for (let p = 0; p * perFolder < count; p++) {
    const dir = path.join(wt, 'node_modules', `pkg-${p}`, 'lib')
    fs.mkdirSync(dir, { recursive: true })
    for (let f = 0; f < perFolder && p * perFolder + f < count; f++) fs.writeFileSync(path.join(dir, `m${f}.js`), 'module.exports = 1\n')
  }
}
