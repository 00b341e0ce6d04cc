import type {Agent, Plan} from '../plan/types.js'
import type {Runner, RunnerOptions} from '../runners/runner.js'
import type {GitGuard} from '../git/git-guard.js'
import type {PlanStore} from '../store/plan-store.js'
import type {TableState} from '../store/table-state.js'
import type {HostRuntime} from '../hosts/host-runtime.js'
import type {LocalJobs} from '../hosts/local-jobs.js'
import type {JobRef} from '../hosts/host.js'
import {localHostName} from '../hosts/host-spec.js'
import type {ExecConfig} from './exec-config.js'
import type {Emitted} from './exec-effect.js'
import type {Input} from './exec-event.js'
import type {ExecState} from './exec-state.js'
import type {JournalKeeper} from './journal-keeper.js'
import type {PlanWatch} from './watch-plan.js'

/** Everything the driver needs to perform effects: the edges of the run. */
export interface DriverInput {
  state: ExecState
  config: ExecConfig
  store: PlanStore
  /** The plan as read (the watch keeps it current when a person edits the agents). */
  plan: Plan
  runnerFor: (agent: string) => Runner
  optionsFor: (plan: Plan, agent: Agent) => RunnerOptions
  git: GitGuard | undefined
  file: string
  cwd: string
  timeoutMs: number | undefined
  pollMs: number
  /** Keep the Mermaid picture under `## DAG Visualization` current. */
  onWritten?: () => Promise<void>
  emit: (event: Emitted) => void
  signal?: AbortSignal
  /** The parent run's flags a child plan's run inherits. */
  childArgs?: readonly string[]
  /** Remote hosts' jobs (src/hosts/), when the plan declares hosts. */
  hosts?: HostRuntime
  /** This machine's jobs (src/hosts/local/): without them an attempt here is a plain process of the run. */
  local?: LocalJobs
  /**
   * The run lock: looked at before every spawn, every write and every commit or merge (a lock lost since its last refresh launches,
   * writes and commits nothing), and
   * `onLost` tells the run as soon as its refresh finds it gone.
   */
  lock?: {check(): Error | undefined; onLost(listener: (error: Error) => void): void}
  /** Journals, in the step that learns it, what a failing write leaves unrecorded. */
  journal?: JournalKeeper
  /** A traced run (src/trace/): starts the attempt's span, and gives the variables its agent gets (`TRACEPARENT`). */
  traceEnv?: (attempt: {agent: string; attempt: number; runner: string; host?: string}) => Record<string, string>
  /** Check the invariants after every step (tests; cheap enough to leave on). */
  checkInvariants?: boolean
  now?: () => number
}

/** What performing an effect needs: the run's edges, and the driver's own bookkeeping. */
export interface Driver {
  readonly input: DriverInput
  readonly now: () => number
  /** The state as the last step left it. */
  state(): ExecState
  /** Queue an event (stepped after this turn of the event loop). */
  dispatch(event: Input): void
  /** Perform async work; its result comes back as events, in order. */
  later(work: () => Promise<Input | Input[]>): void
  readonly watch: PlanWatch
  /** Where the rows holding a status mdplan does not know are in the file (held-places.ts). */
  readonly held: (table: TableState) => ReadonlyMap<string, string> | undefined
  /** Each running agent's abort: Ctrl-C, a lost lock. */
  readonly controllers: Map<string, AbortController>
  /** When each agent's last process ended: its git check may share a snapshot started since. */
  readonly endedAt: Map<string, number>
  /** Pending ticks: cleared when the run finishes, so a pause never keeps an interrupted run's process alive. */
  readonly timers: Set<NodeJS.Timeout>
  /** The run is over: resolve with the final state. */
  finish(): void
}

/** A job on another machine (its code shipped there, its work brought back), not one of this machine's. */
export function remote(job: JobRef): boolean {
  return job.host !== localHostName
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
