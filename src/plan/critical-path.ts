import {longestRemainingPath, pathUnit} from './longest-remaining-path.js'
import type {Plan} from './types.js'

export interface CriticalPath {
  /** Agent ids from the first to run to the last, each depending on the one before. */
  agents: string[]
  /** Total weight: milliseconds of `estimated_duration`, or the number of agents. */
  weight: number
  unit: 'ms' | 'agents'
}

/**
 * The longest chain of hard dependencies, weighed as in `longestRemainingPath`
 * (estimates when every agent has one, else agent count). Ties go to the
 * agent that comes first in the plan.
 */
export function criticalPath(plan: Pick<Plan, 'agents'>): CriticalPath {
  const unit = pathUnit(plan.agents)
  const remaining = longestRemainingPath(plan)
  const dependents = new Map<string, string[]>()
  for (const agent of plan.agents) {
    for (const ref of agent.dependsOn) {
      if (!remaining.has(ref.id) || ref.id === agent.id) continue
      const list = dependents.get(ref.id)
      if (list) list.push(agent.id)
      else dependents.set(ref.id, [agent.id])
    }
  }

  let current: string | undefined
  for (const [id, value] of remaining) if (current === undefined || value > remaining.get(current)!) current = id
  if (current === undefined) return {agents: [], weight: 0, unit}
  const weight = remaining.get(current)!
  const agents: string[] = []
  const seen = new Set<string>()
  while (current !== undefined && !seen.has(current)) {
    agents.push(current)
    seen.add(current)
    let next: string | undefined
    for (const child of dependents.get(current) ?? []) if (next === undefined || remaining.get(child)! > remaining.get(next)!) next = child
    current = next
  }
  return {agents, weight, unit}
}
