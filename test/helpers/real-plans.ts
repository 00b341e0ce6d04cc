import {chmodSync, mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe} from 'vitest'
import {findRealPlansDir, realPlansMissing} from './find-real-plans.js'
import {root} from './run-cli.js'

export {findRealPlansDir, realPlansMissing}

/**
 * One folder of plans in the shapes hand-written plans have, by the part each plays in the tests
 * (file names relative to `dir`), and the facts about them the tests check.
 */
export interface PlanShapes {
  /** `own fixtures` or `real plans`: a describe block's title. */
  label: string
  /** The folder; undefined when the real plans are not beside the checkout. */
  dir: string | undefined
  /** Finished, Prettier-aligned table with a Duration column, 2-space prompts (4 agents: B needs A; D needs A and C). */
  finished: string
  /** The same plan, older: a compact table, 4-space prompts. */
  compact: string
  /** Finished, aligned, no Duration column, a `Tests:` line (6 agents, A–F). */
  noDuration: string
  /** Not started: every row pending, `blocked by:` notes (6 agents, A–F, three waves). */
  pending: string
  /** A folder holding a finished version of `pending` and the `.parallel-plan-state.json` beside it. */
  sideDir: string
  /** The plan in `sideDir`. */
  sidePlan: string
  facts: {
    /** `finished`: A's duration and agent ID, the wall-clock its stamps give, and the makespan of B and D alone. */
    finishedA: {durationMs: number; agentId: string}
    finishedWallClockMs: number
    finishedBDMakespan: string
    /** `noDuration`: its `Started:` and `Tests:` lines. */
    noDurationStarted: string
    noDurationTests: string
    /** `pending`: the first agent's heading, and the golden of its dry run (fixtures/dry-run/). */
    pendingFirst: string
    pendingGolden: string
    /** The side-file's agent ID for A. */
    sideAgentIdA: string
    /** The golden line diff of a run of `finished` (fixtures/store-aligned/). */
    alignedGolden: string
  }
}

const own: PlanShapes = {
  label: 'own fixtures',
  dir: join(root, 'fixtures', 'real-shapes'),
  finished: 'tollgate__docs__plans__tenant-rate-limits.md',
  compact: 'tollgate__docs__plans__tenant-rate-limits@5c2e9d1.md',
  noDuration: 'ledgerly__docs__plans__webhook-retries.md',
  pending: 'ledgerly__docs__plans__webhook-retries@8b41f0e.md',
  sideDir: 'ledgerly__docs__plans@c93d27a',
  sidePlan: 'webhook-retries.md',
  facts: {
    finishedA: {durationMs: 318_000, agentId: 'a3f7c21'},
    // Started 09:41:12, last updated 09:58:03.
    finishedWallClockMs: 1_011_000,
    // D (139s; B is 96s).
    finishedBDMakespan: '2m 19s',
    noDurationStarted: '2026-05-12 14:03:51',
    noDurationTests: '318/318 pass',
    pendingFirst: 'A: models-and-settings',
    pendingGolden: 'webhook-retries.txt',
    sideAgentIdA: 'ad51e07',
    alignedGolden: 'tenant-rate-limits.events.diff'
  }
}

const realDir = findRealPlansDir()
const real: PlanShapes = {
  label: realDir === undefined ? `real plans: ${realPlansMissing}` : 'real plans',
  dir: realDir,
  finished: 'ahoym__xrpl-dex-portal__docs__plans__credential-management.md',
  compact: 'ahoym__xrpl-dex-portal__docs__plans__credential-management@e45d31c.md',
  noDuration: 'ahoym__xrpl-dex-portal__docs__plans__permissioned-domain-trading.md',
  pending: 'ahoym__xrpl-dex-portal__docs__plans__permissioned-domain-trading@217ed54.md',
  sideDir: 'ahoym__xrpl-dex-portal__docs__plans@f8fe949',
  sidePlan: 'permissioned-domain-trading.md',
  facts: {
    finishedA: {durationMs: 242_000, agentId: 'a9a395b'},
    // Started 11:58:36, last updated 12:09:30.
    finishedWallClockMs: 654_000,
    // D (117s; B is 77s).
    finishedBDMakespan: '1m 57s',
    noDurationStarted: '2026-02-18 15:04:25',
    noDurationTests: '450/450 pass',
    pendingFirst: 'A: types-and-constants',
    pendingGolden: 'permissioned-domain-trading.txt',
    sideAgentIdA: 'ad3c4dd',
    alignedGolden: 'credential-management.events.diff'
  }
}

/** Our own plans in the real plans' shapes (always there), then the real plans (when beside the checkout). */
export const planShapes: readonly PlanShapes[] = [own, real]

/**
 * `body` once per folder of plans, each in a describe block of its own: the real plans' block is
 * skipped when they are absent (its title says why; test/global-setup.ts says it once for the run).
 */
export function forEachShapes(body: (shapes: PlanShapes & {dir: string}) => void): void {
  for (const shapes of planShapes) {
    describe.skipIf(shapes.dir === undefined)(shapes.label, () => {
      // A skipped block's body is still collected: give it a folder that exists, though nothing runs.
      body({...shapes, dir: shapes.dir ?? own.dir!})
    })
  }
}

/** `name` without its folder prefix and version: `credential-management.md`. */
export function shortName(name: string): string {
  return name.replace(/^.*__/, '').replace(/@[^.]*/, '')
}

/** A folder of stubs for the tools the plans' verification blocks call (`pnpm`, `cargo`, `uv`), to put first on PATH. */
export function stubTools(): string {
  const bin = mkdtempSync(join(tmpdir(), 'mdplan-stub-tools-'))
  for (const tool of ['pnpm', 'cargo', 'uv']) {
    writeFileSync(join(bin, tool), '#!/bin/sh\nexit 0\n')
    chmodSync(join(bin, tool), 0o755)
  }
  return bin
}
