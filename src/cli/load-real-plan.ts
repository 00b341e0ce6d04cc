import {loadPlan} from '../plan/load-plan.js'
import {PlanError} from '../plan/plan-error.js'
import type {Plan} from '../plan/types.js'

/**
 * `loadPlan` for commands that read or write a plan's sections (`graph`,
 * `report`): a Markdown file with no `## Agents` section is not a plan, and is
 * refused with the diagnostic `validate` prints (a PlanError, exit 2), before
 * anything is written to it; so is a plan with a merge's conflict markers.
 */
export async function loadRealPlan(file: string, options: {cwd?: string} = {}): Promise<Plan> {
  const plan = await loadPlan(file, options)
  const notAPlan = plan.messages.find((message) => message.rule === 'no-agents-section')
  if (notAPlan) throw new PlanError([notAPlan])
  // A merge's conflict markers: half a table would be scored, or drawn into the file, as the plan's progress.
  const conflicted = plan.messages.filter((message) => message.rule === 'damaged-state-table' || message.rule === 'conflict-markers')
  if (conflicted.length > 0) throw new PlanError(conflicted)
  return plan
}
