import {existsSync} from 'node:fs'
import {loadPlan} from '../plan/load-plan.js'
import type {Plan} from '../plan/types.js'
import {childPlanPath} from '../plan/child-plan-path.js'

/** Agents that run a child plan, by agent ID: the child plan and its own children. */
export type ChildPlans = ReadonlyMap<string, {plan: Plan; children: ChildPlans}>

/** The child plans of `plan` (read from `file`) that can be read, as deep as they nest, for `renderMermaid`. */
export async function loadChildPlans(plan: Plan, file: string, seen: ReadonlySet<string> = new Set([file])): Promise<ChildPlans> {
  const children = new Map<string, {plan: Plan; children: ChildPlans}>()
  for (const agent of plan.agents) {
    const child = childPlanPath(file, agent)
    if (!child || seen.has(child) || !existsSync(child)) continue
    try {
      const childPlan = await loadPlan(child)
      children.set(agent.id, {plan: childPlan, children: await loadChildPlans(childPlan, child, new Set([...seen, child]))})
    } catch {
      // An unreadable child is drawn as a plain node; `validate` says why.
    }
  }
  return children
}
