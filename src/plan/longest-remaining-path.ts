import type {Agent, Plan} from './types.js'

/** How paths are weighed: by `estimated_duration` when every agent has one, else by agent count. */
export function pathUnit(agents: readonly Agent[]): 'ms' | 'agents' {
  return agents.length > 0 && agents.every((agent) => agent.estimatedMs !== undefined) ? 'ms' : 'agents'
}

/**
 * For each agent, the weight of the longest chain from it (itself included) to
 * an agent nothing depends on, following hard dependencies downstream.
 *
 * The rule: when EVERY agent has an `estimated_duration`, an agent weighs its
 * estimate in milliseconds; otherwise every agent weighs 1 (a partial set of
 * estimates would rank estimated chains above unestimated ones arbitrarily).
 * The scheduler launches ready agents with the largest value first.
 */
export function longestRemainingPath(plan: Pick<Plan, 'agents'>): Map<string, number> {
  const {agents} = plan
  const unit = pathUnit(agents)
  const weight = (agent: Agent): number => (unit === 'ms' ? agent.estimatedMs! : 1)
  const byId = new Map<string, Agent>()
  for (const agent of agents) if (!byId.has(agent.id)) byId.set(agent.id, agent)
  const dependents = new Map<string, string[]>()
  for (const agent of byId.values()) {
    for (const ref of agent.dependsOn) {
      if (!byId.has(ref.id) || ref.id === agent.id) continue
      const list = dependents.get(ref.id)
      if (list) list.push(agent.id)
      else dependents.set(ref.id, [agent.id])
    }
  }

  const result = new Map<string, number>()
  const visiting = new Set<string>()
  // Iterative post-order: generated plans have chains deeper than the stack.
  for (const start of byId.keys()) {
    if (result.has(start)) continue
    const stack: Array<{id: string; next: number}> = [{id: start, next: 0}]
    visiting.add(start)
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!
      const below = dependents.get(frame.id) ?? []
      if (frame.next < below.length) {
        const child = below[frame.next++]!
        // A cycle is a validation error; never loop on one.
        if (!result.has(child) && !visiting.has(child)) {
          visiting.add(child)
          stack.push({id: child, next: 0})
        }
        continue
      }
      let best = 0
      for (const child of below) best = Math.max(best, result.get(child) ?? 0)
      result.set(frame.id, weight(byId.get(frame.id)!) + best)
      visiting.delete(frame.id)
      stack.pop()
    }
  }
  return result
}
