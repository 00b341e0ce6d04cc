import type {Agent, Plan} from '../plan/types.js'
import type {TableState} from '../store/table-state.js'
import type {JournalEntry} from '../store/journal-lines.js'
import type {ExecState} from '../executor/exec-state.js'
import type {PlanStore} from '../store/plan-store.js'
import type {Runner} from '../runners/runner.js'
import type {GitRoot} from '../git/git-root.js'
import type {Emitted} from '../executor/exec-effect.js'
import type {HostSetup} from './setup-hosts.js'
import type {LockWatch} from './take-run-lock.js'
import type {RunPlanOptions} from './run-options.js'

/** What a run's setup phases (src/run/run-plan.ts) hand to the phases that run the agents. */
export interface RunSetup {
  options: RunPlanOptions
  /** The plan file, resolved. */
  file: string
  /** Where agents run, resolved. */
  cwd: string
  /** `gitRoot(cwd)`, started before the plan was read. */
  root: Promise<GitRoot | undefined>
  store: PlanStore
  plan: Plan
  emit: (event: Emitted) => void
  runnerOf: (agent: Agent) => Runner
  hosts: HostSetup
  /** The plan's lock, held. */
  lock: LockWatch
  /** A traced run's (src/trace/): the variables each attempt's agent gets. */
  traceEnv?: (attempt: {agent: string; attempt: number; runner: string; host?: string}) => Record<string, string>
}

/** The run as it starts (src/run/execute-run.ts): its state, the plan as the answers left it, its journal's seed. */
export interface StartedRun {
  state: ExecState
  current: Plan
  journal: JournalEntry[]
  table: TableState
  runnerFor: (id: string) => Runner
  concurrency: number
  runStart: number
}
