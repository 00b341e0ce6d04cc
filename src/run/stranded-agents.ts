import type {Diagnostic, Plan} from '../plan/types.js'
import {isRemote, localHostName, type HostSpec} from '../hosts/host-spec.js'
import type {PlanHosts} from '../hosts/read-hosts.js'
import type {LiveJob} from '../hosts/live-jobs.js'

/**
 * The run stops only for an agent no host of whose pool answers: by pool, one line each, saying why its hosts
 * did not answer and how to place the agents on a host that does.
 */
export function strandedAgents(input: {
  plan: Plan
  file: string
  launchable: ReadonlySet<string>
  read: PlanHosts
  specs: ReadonlyMap<string, HostSpec>
  live: readonly LiveJob[]
  down: ReadonlyMap<string, number>
  /** What each host that is down said (its preflight's first line). */
  why: ReadonlyMap<string, string>
}): Diagnostic[] {
  const {plan, read, specs, live, down, why} = input
  const remote = (name: string): boolean => isRemote(specs.get(name))
  const stranded = new Map<string, string[]>()
  for (const id of input.launchable) {
    const pool = [...new Set([...read.poolOf(id), ...live.filter((job) => job.agent === id).map((job) => job.host)])]
    if (pool.length === 0 || !pool.every((name) => remote(name) && down.has(name))) continue
    const key = pool.join(', ')
    stranded.set(key, [...(stranded.get(key) ?? []), id])
  }
  const problems: Diagnostic[] = []
  for (const [pool, agents] of stranded) {
    const names = pool.split(', ')
    const answering = [...specs.keys()].filter((name) => !down.has(name) && (name === localHostName || remote(name)))
    // `--host` places the agents without a `host` field of their own; those with one are moved by editing it.
    const own = agents.filter((id) => plan.agents.find((agent) => agent.id === id)?.fields.host !== undefined)
    const elsewhere =
      own.length === agents.length
        ? `set their \`host\` to a host that answers (${answering.join(', ')})`
        : `run with \`--host NAME\` to place the agents on a host that answers (${answering.join(', ')})${own.length > 0 ? `; ${own.join(', ')} ${own.length === 1 ? 'has' : 'have'} a \`host\` of ${own.length === 1 ? 'its' : 'their'} own, which --host does not change` : ''}`
    const reason =
      `${agents.length === 1 ? `agent ${agents[0]}` : `agents ${agents.join(', ')}`}: no host of ${names.length === 1 ? `its pool (${names[0]})` : `the pool ${pool}`} answers: ${names.map((name) => why.get(name)).join('; ')}. ` +
      `Check the host, or ${elsewhere}`
    problems.push({severity: 'error', rule: 'host-unreachable', reason, file: input.file})
  }
  return problems
}
