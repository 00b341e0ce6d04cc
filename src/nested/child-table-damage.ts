import {loadPlan} from '../plan/load-plan.js'

/** Rules that mean a plan's Execution State cannot be read or written as a table (a person's edit, a merge's markers). */
const damage = /malformed-table|damaged-state-table|duplicate-state-section|conflict-marker/

/**
 * Where and why a child plan's table cannot be read (`line:col [rule]`; its
 * `validate` says the rest), if it cannot. A child run that
 * ended over its own table is not its agents' failure: the parent agent
 * waits (a transient pause) instead of using its attempts on a run that
 * would stop the same way until a person repairs the table.
 */
export async function childTableDamage(childFile: string): Promise<string | undefined> {
  try {
    const plan = await loadPlan(childFile)
    const found = plan.messages.find((d) => d.severity === 'error' && damage.test(d.rule))
    if (!found) return undefined
    const point = found.place === undefined ? undefined : 'start' in found.place ? found.place.start : found.place
    return `${point ? `line ${point.line}:${point.column} ` : ''}[${found.rule}]`
  } catch {
    return undefined
  }
}
