import type {Agent, Plan} from '../plan/types.js'
import type {Runner} from '../runners/runner.js'
import {accountCap} from './account-cap.js'
import type {PlanHosts} from './read-hosts.js'

/** One runner's agents, the hosts they may run on, and the cap of its account on each (undefined: none). */
export interface RunnerCaps {
  name: string
  agents: Agent[]
  caps: Array<{host: string; cap: ReturnType<typeof accountCap>}>
}

/** The caps the plan's agents meet (docs/limits.md, "Accounts"), by runner, child plans left out (they have none). */
export function capsInEffect(plan: Plan, hosts: PlanHosts, runnerOf: (agent: Agent) => Runner, agents: readonly Agent[] = plan.agents): RunnerCaps[] {
  const byRunner = new Map<string, {runner: Runner; agents: Agent[]; hosts: Set<string>}>()
  for (const agent of agents) {
    const runner = runnerOf(agent)
    if (runner.name === 'plan') continue
    const entry = byRunner.get(runner.name) ?? {runner, agents: [], hosts: new Set<string>()}
    entry.agents.push(agent)
    for (const host of hosts.poolOf(agent.id)) entry.hosts.add(host)
    byRunner.set(runner.name, entry)
  }
  return [...byRunner].map(([name, {runner, agents: theirs, hosts: names}]) => ({
    name,
    agents: theirs,
    caps: [...names].map((host) => ({host, cap: accountCap(plan.settings, hosts.hosts.get(host), runner)}))
  }))
}

/** `claude on local 8`, for each account with a cap: what a run's start line says. */
export function capsLine(runners: readonly RunnerCaps[]): string[] {
  return runners.flatMap(({name, caps}) => caps.flatMap(({host, cap}) => (cap === undefined ? [] : [`${name} on ${host} ${cap.cap}`])))
}
