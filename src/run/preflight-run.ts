import type {Agent, Plan} from '../plan/types.js'
import {PlanError} from '../plan/plan-error.js'
import type {PlanStore} from '../store/plan-store.js'
import type {Runner} from '../runners/runner.js'
import {resolveRunner} from '../runners/resolve-runner.js'
import {runnerMap} from '../nested/runner-map.js'
import {preflightRunners} from '../runners/preflight-runners.js'
import {agentOptions} from '../runners/agent-options.js'
import type {GitRoot} from '../git/git-root.js'
import {setupHosts, type HostSetup} from './setup-hosts.js'
import type {RunPlanOptions} from './run-options.js'

/**
 * A run's preflight, before it takes the lock: each agent's runner, the hosts (src/run/setup-hosts.ts), and
 * the runners' CLIs here. Any problem stops the run (PlanError), with the hosts' connections closed.
 */
export async function preflightRun(input: {
  options: RunPlanOptions
  plan: Plan
  store: PlanStore
  file: string
  cwd: string
  root: Promise<GitRoot | undefined>
}): Promise<{runnerOf: (agent: Agent) => Runner; hosts: HostSetup}> {
  const {options, plan, store, file, cwd, root} = input
  // Resolved once per definition of an agent: an agent edited or added mid-run is resolved anew.
  const resolved = new WeakMap<Agent, Runner>()
  const runnerOf = (agent: Agent): Runner => {
    let runner = resolved.get(agent)
    if (!runner) resolved.set(agent, (runner = resolveRunner(plan, agent, options.runner, runnerMap)))
    return runner
  }
  const runners = new Map(plan.agents.map((agent) => [agent.id, runnerOf(agent)]))
  // Installed, logged in or keyed, a permission mode the installed version accepts: before anything launches.
  // Only agents that may launch need their CLI: a completed plan runs (and reports) anywhere.
  const rows = store.state.rows
  const launchable = new Map([...runners].filter(([id]) => rows.get(id)?.status !== 'completed'))
  // Hosts first: a runner's CLI is checked where its agents run (on a host, by the host's own preflight).
  const hosts = await setupHosts({plan, file, cliHost: options.host, root, runners, launchable: new Set(launchable.keys()), strictScope: options.strictScope ?? false, rows: rows.values()})
  if (hosts.problems.length > 0) throw new PlanError(hosts.problems)
  const here = new Map([...launchable].filter(([id]) => hosts.runsHere(id)))
  const missing = await preflightRunners(plan, here, process.env, cwd, (agent) => agentOptions(options.runnerOptions, plan, agent), options.runner)
  if (missing.length > 0) {
    await hosts.runtime?.close()
    throw new PlanError(missing)
  }
  return {runnerOf, hosts}
}
