import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    // Every run a test starts (in process or as a CLI) checks the executor's invariants after every step.
    env: {MDPLAN_CHECK_INVARIANTS: '1'},
    hookTimeout: 30_000
  }
})
