import {tableStatuses} from './table-statuses.js'
import type {Plan, Status} from './types.js'

export interface Readiness {
  status: Status
  /** Pending, and every hard dependency completed. */
  ready: boolean
  /** Hard dependencies not completed yet, with their status. */
  blockedBy: Array<{id: string; status: Status}>
}

/**
 * What the table says about each agent right now. Attempts, answers and soft
 * dependencies are the scheduler's concern: this only reads statuses. Unknown
 * dependency ids are skipped (they are a validation error).
 */
export function agentReadiness(plan: Pick<Plan, 'agents' | 'state'>): Map<string, Readiness> {
  const status = tableStatuses(plan)
  const result = new Map<string, Readiness>()
  for (const agent of plan.agents) {
    if (result.has(agent.id)) continue
    const own = status.get(agent.id)!
    const blockedBy: Readiness['blockedBy'] = []
    const seen = new Set<string>()
    for (const ref of agent.dependsOn) {
      const dep = status.get(ref.id)
      if (dep === undefined || dep === 'completed' || seen.has(ref.id) || ref.id === agent.id) continue
      seen.add(ref.id)
      blockedBy.push({id: ref.id, status: dep})
    }
    result.set(agent.id, {status: own, ready: own === 'pending' && blockedBy.length === 0, blockedBy})
  }
  return result
}
