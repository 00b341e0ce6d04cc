import type {Plan, Status} from './types.js'

/**
 * Each agent's status from the Execution State table. An agent with no row,
 * or whose status cell is not a known status, is `pending`; when an agent has
 * several rows, the first one counts.
 */
export function tableStatuses(plan: Pick<Plan, 'agents' | 'state'>): Map<string, Status> {
  const fromTable = new Map<string, Status>()
  for (const row of plan.state?.table?.rows ?? []) if (!fromTable.has(row.agent)) fromTable.set(row.agent, row.status ?? 'pending')
  const result = new Map<string, Status>()
  for (const agent of plan.agents) if (!result.has(agent.id)) result.set(agent.id, fromTable.get(agent.id) ?? 'pending')
  return result
}
