import type {Agent, Diagnostic} from '../plan/types.js'
import type {HostsConfig} from '../executor/exec-config.js'
import type {HostRuntime} from '../hosts/host-runtime.js'

/** What a run's host setup (src/run/setup-hosts.ts) gives the run. */
export interface HostSetup {
  /** Placement for the executor; undefined when the plan declares no hosts (every agent runs here, as always). */
  config?: HostsConfig
  runtime?: HostRuntime
  /** Whether an agent may run on this machine (its runner's CLI is checked here only then). */
  runsHere: (agent: string) => boolean
  /** Remote hosts the launchable agents may use. */
  used: string[]
  /**
   * Why an agent's current definition cannot be placed in this run (its `host` names a host the run does not
   * have), or undefined: an agent edited so during the run is held, not launched, until a save fixes it.
   */
  unplaceable: (agent: Agent) => string | undefined
  problems: Diagnostic[]
  /** Said once the run holds the plan: a host of a pool that does not answer, files a host will not get. */
  warnings: string[]
}
