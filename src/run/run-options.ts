import type {RunEvent} from '../events.js'
import type {Budget, Plan} from '../plan/types.js'
import type {RunnerOptions} from '../runners/runner.js'
import type {SideStateChoice} from '../store/read-side-state.js'

export interface RunPlanOptions {
  file: string
  /** Where agents and verification commands run (default: the process's cwd). */
  cwd?: string
  concurrency?: number
  /** Overrides every agent's runner. */
  runner?: string
  maxAttempts?: number
  agentTimeoutMs?: number
  /** The most one agent may keep the run paused in total (rate limits, network trouble); default 30 minutes. */
  maxPauseMs?: number
  /** When only a usage limit's reset stands before the next launch: wait for it in the foreground, not end the run (`limited`). */
  waitForReset?: boolean
  failFast?: boolean
  /** The budget of this run (`--budget`), instead of the front matter's `budget`. */
  budget?: Budget
  /** A change to a file another agent owns fails the agent (in a git repository). */
  strictScope?: boolean
  /** A `.parallel-plan-state.json` whose progress the table lacks: take it, or run from the table (unset: stop and ask). */
  sideState?: SideStateChoice
  runnerOptions?: RunnerOptions
  /** Aborting stops launching and ends running agents; their rows stay `in_progress`. */
  signal?: AbortSignal
  onEvent?: (event: RunEvent) => void
  /** Called once the plan is read and valid, before any event (live views show every agent from the start). */
  onPlan?: (plan: Plan) => void
  /** How long a rate or usage limit pauses launches (first pause; doubles, capped at 15 minutes). */
  rateLimitPauseMs?: number
  /** How often to look for a person's edits while nothing else happens. */
  pollMs?: number
  /** Check the executor's invariants after every step (tests). */
  checkInvariants?: boolean
  /** Where agents run unless their own `host` field says otherwise (`--host`): a host name or a pool. */
  host?: string
}
