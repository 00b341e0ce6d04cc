import {readRegularFileSync} from '../util/read-regular-file.js'
import type {Agent, PathRef, Plan} from './types.js'
import {parsePlan} from './parse-plan.js'
import {childPlanPath} from './child-plan-path.js'

/**
 * The plan's agents with each child-plan agent declaring every path its
 * child plan's agents declare (as deep as plans nest), so git attributes a
 * child plan's work to the agent that ran it. Unreadable children add nothing.
 */
export function withDeclaredBelow(plan: Plan, file: string, seen: ReadonlySet<string> = new Set([file])): Agent[] {
  return plan.agents.map((agent) => {
    const child = childPlanPath(file, agent)
    if (!child || seen.has(child)) return agent
    let childPlan: Plan
    try {
      childPlan = parsePlan(readRegularFileSync(child).toString('utf8').replace(/^\uFEFF/, ''), child)
    } catch {
      return agent
    }
    const below: PathRef[] = withDeclaredBelow(childPlan, child, new Set([...seen, child])).flatMap((a) => [...a.creates, ...a.modifies, ...a.deletes])
    return {...agent, modifies: [...agent.modifies, ...below]}
  })
}
