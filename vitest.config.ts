import {defineConfig} from 'vitest/config'

// Two tiers (docs/development.md, "Tests"): `npm test` runs both, `npm run test:unit` and `npm run test:e2e` one.
//   unit  test/unit/<src folder>/  in process: no CLI spawned, no dist/, no sshd, podman, Slurm or fake CLIs
//   e2e   test/e2e/<theme>/        bin/mdplan.js spawned (dist/ built first), real repositories with runs, hosts
// scripts/classify-tests.js says which tier a test file belongs to.
/** Unit files that mock or spy (vi.mock, vi.spyOn, fake timers): a module they replace must not be shared. */
const isolated = [
  'test/unit/plan/watch-plan-sections.test.ts',
  'test/unit/report/progress.test.ts',
  'test/unit/run/finish-run-clock.test.ts',
  'test/unit/store/store-atomic.test.ts',
  'test/unit/store/store-save-after-rename.test.ts',
  'test/unit/store/store-save-in-rename-window.test.ts',
  'test/unit/store/store-save-interleavings.test.ts',
  'test/unit/store/store-save-over-pending-save.test.ts',
  'test/unit/store/store-write-mutex.test.ts',
  'test/unit/store/stress-store-late-edit.test.ts'
]

export default defineConfig({
  test: {
    testTimeout: 30_000,
    // Every run a test starts (in process or as a CLI) checks the executor's invariants after every step.
    env: {MDPLAN_CHECK_INVARIANTS: '1'},
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: isolated,
          // CPU-bound: one worker a core. Files share a worker's module graph (not isolated): importing src/
          // once a worker, not once a file, was half of this tier's time.
          maxWorkers: 2,
          isolate: false,
          sequence: {groupOrder: 0}
        }
      },
      {
        extends: true,
        test: {
          name: 'unit-isolated',
          // Files that mock or spy on modules, timers or fs: each in a module graph of its own.
          include: isolated,
          maxWorkers: 2,
          sequence: {groupOrder: 0}
        }
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // Tests that spawn bin/mdplan.js need a fresh dist/: only this tier builds it.
          globalSetup: ['test/e2e/global-setup.ts'],
          // Files share a worker's modules, as the unit tier's do: a fresh worker a file cost each file a second
          // of CPU before its first test. Each file still starts from the worker's first environment.
          isolate: false,
          setupFiles: ['test/helpers/restore-env.ts'],
          // Its files mostly wait on child processes (agents that sleep, sshd, podman, git), not on the CPU: three
          // at once on two cores. MDPLAN_E2E_WORKERS=1 runs them one at a time (a machine shared with other work).
          maxWorkers: Number(process.env.MDPLAN_E2E_WORKERS ?? 3),
          // After the unit tier (a different maxWorkers needs its own group).
          sequence: {groupOrder: 1}
        }
      }
    ]
  }
})
