// Builds dist/: one ncc bundle of src/index.ts for the main, post and exit stages (dist/index.js, its lazily
// loaded chunks, licenses.txt) with the file the runner starts for each, as action.yml and exit/action.yml name
// it; and the run sub-action's own bundle of src/run.ts (dist/run/), which loads only what its command waits for.
// dist/ is committed and must be exactly what this writes.
import { execFileSync } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** Each stage's file, relative to dist/, and what it starts. */
export const STAGES = { main: 'main/index.js', post: 'post/index.js', exit: 'exit/index.js' }

const dist = path.join(ROOT, 'dist')
// Whatever an earlier build left (a chunk that no longer exists) must not stay.
fs.rmSync(dist, { recursive: true, force: true })
const ncc = createRequire(import.meta.url).resolve('@vercel/ncc/dist/ncc/cli.js')
/** @param {string} entry @param {string} out */
const build = (entry, out) =>
  execFileSync(process.execPath, [ncc, 'build', entry, '-o', out, '--license', 'licenses.txt', '-q', '-m'], { cwd: ROOT, stdio: 'inherit' })
build('src/index.ts', 'dist')
build('src/run.ts', 'dist/run')
// dist/package.json makes every file below it an ES module, this bundle's too.
fs.rmSync(path.join(dist, 'run', 'package.json'))
// sandbox-runtime's seccomp helper (it refuses Unix sockets and new namespaces inside the sandbox), where the
// bundled library looks for it: vendor/ beside its chunk, in the run bundle.
const vendor = path.join(path.dirname(createRequire(import.meta.url).resolve('@anthropic-ai/sandbox-runtime')), '..', 'vendor', 'seccomp')
for (const arch of ['x64', 'arm64']) {
  fs.mkdirSync(path.join(dist, 'run', 'vendor', 'seccomp', arch), { recursive: true })
  fs.copyFileSync(path.join(vendor, arch, 'apply-seccomp'), path.join(dist, 'run', 'vendor', 'seccomp', arch, 'apply-seccomp'))
  fs.chmodSync(path.join(dist, 'run', 'vendor', 'seccomp', arch, 'apply-seccomp'), 0o755)
}
for (const [stage, file] of Object.entries(STAGES)) {
  const target = path.join(dist, file)
  fs.mkdirSync(path.dirname(target), { recursive: true })
  const bundle = path.relative(path.dirname(target), path.join(dist, 'index.js')).split(path.sep).join('/')
  fs.writeFileSync(
    target,
    `// The ${stage} stage of agent-worktree: its code is the action's one bundle, dist/index.js.\nimport { start } from '${bundle}'\n\nstart('${stage}')\n`
  )
}
