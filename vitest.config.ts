import * as fs from 'node:fs'
import * as path from 'node:path'
import { defineConfig } from 'vitest/config'

// Two projects. `unit`: tests that import src/ alone and start at once (`npm run test:unit`). `e2e`: tests that run
// the bundles as the runner does (through scripts/runner.mjs, a helper that uses it, or dist/ itself), after the
// bundles are built again when a source is newer. A test file is end-to-end when its text names one of those.
const RUNS_BUNDLE = /scripts\/(runner|bundle|local-action|demo)\.mjs|helpers\/(restore|sandboxes)|'dist'|dist\//
const testFiles = (dir: string): string[] =>
  fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter(entry => entry.isFile() && entry.name.endsWith('.test.ts'))
    .map(entry =>
      path
        .relative(import.meta.dirname, path.join(entry.parentPath, entry.name))
        .split(path.sep)
        .join('/')
    )
// `long`: what runs many jobs over to find rare faults or works at full size (every git call cancelled, 24 legs at
// once, generated scenarios, 100,000 files): `npm run test:long`, which CI runs after `npm test`, whose ten
// minutes on two cores these would take a third of.
const LONG = [
  '__tests__/e2e/faults.test.ts',
  '__tests__/git/parallel.test.ts',
  '__tests__/exit/generated-scenarios.test.ts',
  '__tests__/e2e/reclaim-large.test.ts'
]
const files = testFiles(path.join(import.meta.dirname, '__tests__')).filter(file => !LONG.includes(file))
const endToEnd = files.filter(file => RUNS_BUNDLE.test(fs.readFileSync(path.join(import.meta.dirname, file), 'utf8')))

// @actions/workflow-parser (inlined below) ships source maps without their sources: Vite would warn once per
// file, some 70 lines a run about no code of ours. Its files are loaded without the map's comment.
const withoutSourceMaps = {
  name: 'without-missing-source-maps',
  enforce: 'pre' as const,
  load(id: string): string | undefined {
    if (!/[\\/]node_modules[\\/]@actions[\\/]workflow-parser[\\/].*\.js$/.test(id)) return undefined
    return fs.readFileSync(id, 'utf8').replace(/^\/\/# sourceMappingURL=.*$/m, '')
  }
}

export default defineConfig({
  plugins: [withoutSourceMaps],
  test: {
    // No test depends on the environment of whoever runs it (act, a GitHub Actions job, a git hook).
    setupFiles: ['__tests__/helpers/setup.ts'],
    // What a test's work needs on a loaded machine: a test runs a few steps of a job (each a node process and its
    // git calls), up to five at once in a describe.concurrent. Measured on two cores under a load of 13 to 17
    // (other work beside the tests): up to 46 s for a test of rescue-found.test that takes 2 s alone; the 60 s
    // this was ran out in a loaded run of the suite. A test that runs more at once (parallel.test) says its own.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    server: {
      deps: {
        // Its JSON schema import lacks the import attribute Node wants; bundled by Vite, it loads.
        inline: ['@actions/workflow-parser']
      }
    },
    // Real git and node processes wait on the disk, on stalled remotes and on the runner's signal delays more
    // than on the CPU: three files at a time keep two cores busy (a run takes 0.84 of the time two take).
    maxWorkers: 3,
    projects: [
      { extends: true, test: { name: 'unit', include: files.filter(file => !endToEnd.includes(file)) } },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: endToEnd,
          // The end-to-end tests run dist/: it is built first when a source is newer.
          globalSetup: ['__tests__/helpers/fresh-bundle.ts']
        }
      },
      { extends: true, test: { name: 'long', include: LONG, globalSetup: ['__tests__/helpers/fresh-bundle.ts'] } }
    ]
  }
})
