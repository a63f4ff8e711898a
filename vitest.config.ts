import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    // No test depends on the environment of whoever runs it (act, a GitHub Actions job, a git hook).
    setupFiles: ['__tests__/helpers/setup.ts'],
    // The end-to-end tests run dist/: it is built first when a source is newer.
    globalSetup: ['__tests__/helpers/fresh-bundle.ts'],
    // What a test's work needs on a loaded machine: a test runs a few steps of a job (each a node process and its
    // git calls), up to five at once in a describe.concurrent. Measured on two cores under a load of 13 to 17
    // (other work beside the tests): up to 46 s for a test of rescue-found.test that takes 2 s alone; the 60 s
    // this was ran out in a loaded run of the suite. A test that runs more at once (parallel.test) says its own.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Real git and node processes wait on the disk, on stalled remotes and on the runner's signal delays more
    // than on the CPU: three files at a time keep two cores busy (a run takes 0.84 of the time two take).
    maxWorkers: 3,
    server: {
      deps: {
        // Its JSON schema import lacks the import attribute Node wants; bundled by Vite, it loads.
        inline: ['@actions/workflow-parser']
      }
    }
  }
})
