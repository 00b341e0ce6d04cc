import {defineConfig} from 'vitest/config'

// Two tiers (docs/development.md, "Tests"): `npm test` runs both, `npm run test:unit` and `npm run test:e2e` one.
//   unit  test/unit/<src folder>/  in process: no CLI spawned, no dist/, no sshd, podman, Slurm or fake CLIs
//   e2e   test/e2e/<theme>/        bin/mdplan.js spawned (dist/ built first), real repositories with runs, hosts
// scripts/classify-tests.js says which tier a test file belongs to.
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
          // CPU-bound: one worker a core.
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
          // One file at a time, as the suite always ran: many of these tests time real processes (a SIGKILL at a
          // random moment, a lease, a stuck engine's bound) against 30-60 s timeouts that two cores shared by three
          // workers overran (e2e-dag, run-lock-loss, 2026-11-28). Raise it only with five green full runs to show for it.
          maxWorkers: 1,
          // After the unit tier (a different maxWorkers needs its own group).
          sequence: {groupOrder: 1}
        }
      }
    ]
  }
})
