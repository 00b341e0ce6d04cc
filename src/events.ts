/**
 * Events of a run: what `mdplan run --json` prints, one JSON object a line,
 * and what the live view and the scorecard are computed from.
 * Bump `eventSchemaVersion` on any incompatible change.
 */
export const eventSchemaVersion = 1

interface Base {
  /** ISO 8601 UTC. */
  time: string
}

export type RunEvent = Base &
  (
    | {type: 'run-started'; plan: string; agents: number; concurrency: number; resumed: boolean; accounts?: string[]}
    | {type: 'verification-started'; phase: 'pre' | 'build' | 'integration'; command: string}
    | {type: 'verification-finished'; phase: 'pre' | 'build' | 'integration'; ok: boolean; attempts: number; log?: string}
    | {type: 'launched'; agent: string; agentId?: string; attempt: number; resumed: boolean; log: string; host?: string; job?: string}
    | {type: 'agent-id'; agent: string; agentId: string}
    | {type: 'completed'; agent: string; agentId?: string; attempt: number; durationMs: number; note?: string; costUsd?: number; tokens?: number}
    | {type: 'failed'; agent: string; agentId?: string; attempt: number; durationMs: number; reason: string; willRetry: boolean}
    | {type: 'question'; agent: string; agentId?: string; attempt?: number; question: string}
    /** It completed and its work waits for a person's review (its `review:` gate): `mdplan review` approves or rejects it. */
    | {type: 'awaiting-review'; agent: string; agentId?: string; attempt: number; durationMs: number; note?: string}
    /** A person approved its work, and it is merged (or committed) now: its dependants may start. */
    | {type: 'approved'; agent: string}
    | {type: 'blocked'; agent: string; by: string[]}
    /** `untilMs`: epoch milliseconds when launches resume; `account`: only that account's (a usage limit), else all. */
    | {type: 'paused'; reason: string; untilMs: number; account?: string}
    /**
     * The plan's budget (docs/limits.md, "Budgets"): its warning share spent (`reached: false`), or all of it
     * (`reached: true`: nothing more launches). Each is said once a run; `line` is the line under the table.
     */
    | {type: 'budget'; reached: boolean; line: string; spent: {tokens: number; usd: number}; budget: {tokens?: number; usd?: number}}
    | {type: 'human-edit'; agent: string; column: string; value: string}
    | {type: 'state-written'; file: string; bytes: number; ms: number}
    | {type: 'warning'; message: string}
    /** An event of a child plan (an agent whose definition names a plan), as that plan's own run emitted it. */
    | {type: 'child'; agent: string; plan: string; event: RunEvent}
    | {type: 'run-finished'; exitCode: number; scorecard: Scorecard}
  )

export type RunEventType = RunEvent['type']

export interface ScorecardAgent {
  id: string
  name: string
  status: string
  attempts: number
  durationMs?: number
  costUsd?: number
  /** Tokens it used in all (its Notes' `tokens:`). */
  tokens?: number
  /** Where it runs (the Notes' `job: <host> …`) or last ran (`host:`), in a plan that runs agents on hosts. */
  host?: string
}

export interface Scorecard {
  agents: ScorecardAgent[]
  /** First launch to last event. */
  wallClockMs?: number
  /** Sum of agent durations. */
  sumOfPartsMs: number
  /** sumOfParts / wallClock. */
  speedup?: number
  peakConcurrency?: number
  /** Nothing launched in this run (every agent was done, blocked or waiting): no times of its own. */
  nothingRan?: boolean
  /** The build's result (`pass`, `fail (2 attempts)`, `not yet run`); absent when the plan has no build. */
  build?: string
  /** Integration tests' result; absent when the plan has none. */
  integration?: string
  /** A `Tests:` line the plan records (a count such as `450/450 pass`), as written. */
  tests?: string
  costUsd?: number
  /** Tokens every agent used in all (the Notes' `tokens:`). */
  tokens?: number
  /** The budget the spend is against (the plan's, or the run's `--budget`); absent when there is none. */
  budget?: {tokens?: number; usd?: number}
  /** What the agents of each runner spent (`claude`, `codex`, …), when the run knows their runners. */
  spentByRunner?: Record<string, {tokens?: number; usd?: number}>
  counts: Record<string, number>
  discoveries?: string[]
}
