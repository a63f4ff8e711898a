import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__tests__/**/*.test.ts'],
    // No test depends on the environment of whoever runs it (act, a GitHub Actions job, a git hook).
    setupFiles: ['__tests__/helpers/setup.ts'],
    // The end-to-end tests run dist/: it is built first when a source is newer.
    globalSetup: ['__tests__/helpers/fresh-bundle.ts'],
    // Real git in real repositories: slower than a unit test, still well under these.
    testTimeout: 60_000,
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
