import type {Agent} from './types.js'

/**
 * Each agent's longest chain of `depends_on` below it (0 for an agent with none): its wave in the DAG.
 * `counts` says which dependencies make a chain longer (all by default; the dry run: those that still run).
 */
export function dependencyDepth(plan: {agents: readonly Agent[]}, counts: (id: string) => boolean = () => true): Map<string, number> {
  const byId = new Map(plan.agents.map((agent) => [agent.id, agent]))
  const depth = new Map<string, number>()
  const visiting = new Set<string>()
  const visit = (id: string): number => {
    const known = depth.get(id)
    if (known !== undefined) return known
    // A cycle is the validator's to report; here it just stops the walk.
    if (visiting.has(id)) return 0
    visiting.add(id)
    let result = 0
    for (const dep of byId.get(id)?.dependsOn ?? []) if (byId.has(dep.id) && counts(dep.id)) result = Math.max(result, visit(dep.id) + 1)
    visiting.delete(id)
    depth.set(id, result)
    return result
  }
  for (const agent of plan.agents) visit(agent.id)
  return depth
}
