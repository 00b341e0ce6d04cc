import {realpathSync} from 'node:fs'
import {dependencyClosure} from '../plan/dependency-closure.js'
import type {Diagnostic, Plan} from '../plan/types.js'
import {childPlanField, childPlanPath} from '../plan/child-plan-path.js'

/**
 * Two agents that can run at the same time (neither depends on the other)
 * and run the same child plan: the second run would find the child's lock
 * held and fail every attempt. An error at the later agent's `plan:` field
 * naming both agents and where each names the plan; agents on one
 * dependency chain may share a child plan (they run it one after the other).
 * `file` is the plan's path as messages show it.
 */
export function sharedChildPlans(plan: Plan, file: string, planPath: string): Diagnostic[] {
  const byChild = new Map<string, Plan['agents']>()
  for (const agent of plan.agents) {
    const child = childPlanPath(planPath, agent)
    if (child === undefined) continue
    const key = canonical(child)
    byChild.set(key, [...(byChild.get(key) ?? []), agent])
  }
  const out: Diagnostic[] = []
  const closure = dependencyClosure(plan.agents)
  for (const agents of byChild.values()) {
    for (let later = 1; later < agents.length; later++) {
      const b = agents[later]!
      const a = agents.slice(0, later).find((earlier) => closure.concurrent(earlier.id, b.id))
      if (!a) continue
      const at = (agent: typeof a): string => {
        const start = agent.fields.plan!.position.start
        return `${file}:${start.line}:${start.column}`
      }
      out.push({
        severity: 'error',
        rule: 'shared-child-plan',
        reason: `agents ${a.id} and ${b.id} can run at the same time and both run the plan \`${childPlanField(b)}\` (${at(a)} and ${at(b)}); one plan runs once at a time: make ${b.id} depend on ${a.id}, or give each its own plan`,
        file,
        place: b.fields.plan!.position
      })
    }
  }
  return out
}

/** The same file under two spellings (`./x.md`, a symlink) is one plan. */
function canonical(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
