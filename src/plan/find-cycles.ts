import type {Agent, AgentRef} from './types.js'

/** One dependency cycle: the agents in order, and the reference that closes it back to the first. */
export interface Cycle {
  agents: string[]
  /** The reference from the first agent to the second (where the cycle is reported). */
  ref: AgentRef
  soft: boolean
}

/**
 * Every elementary cycle found by a depth-first walk over `depends_on` and
 * `soft_depends_on` (a soft cycle deadlocks too: each waits for the other's
 * files). Each cycle is reported once, starting at its agent that comes
 * first in the plan.
 */
export function findCycles(agents: readonly Agent[]): Cycle[] {
  const byId = new Map<string, Agent>()
  const order = new Map<string, number>()
  for (const agent of agents) {
    if (byId.has(agent.id)) continue
    byId.set(agent.id, agent)
    order.set(agent.id, order.size)
  }
  const edges = (agent: Agent): Array<{ref: AgentRef; soft: boolean}> => [
    ...agent.dependsOn.map((ref) => ({ref, soft: false})),
    ...agent.softDependsOn.map((ref) => ({ref, soft: true}))
  ]

  const state = new Map<string, 1 | 2>()
  const cycles: Cycle[] = []
  const seen = new Set<string>()

  for (const root of byId.values()) {
    if (state.has(root.id)) continue
    // Iterative DFS: deep chains of generated plans must not overflow the stack.
    const stack: Array<{agent: Agent; next: number; edges: Array<{ref: AgentRef; soft: boolean}>}> = [{agent: root, next: 0, edges: edges(root)}]
    state.set(root.id, 1)
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!
      if (frame.next >= frame.edges.length) {
        state.set(frame.agent.id, 2)
        stack.pop()
        continue
      }
      const edge = frame.edges[frame.next++]!
      const target = byId.get(edge.ref.id)
      if (!target || target.id === frame.agent.id) continue
      const mark = state.get(target.id)
      if (mark === undefined) {
        state.set(target.id, 1)
        stack.push({agent: target, next: 0, edges: edges(target)})
      } else if (mark === 1) {
        const from = stack.findIndex((f) => f.agent.id === target.id)
        const path = stack.slice(from)
        const key = path
          .map((f) => f.agent.id)
          .sort()
          .join('\u0000')
        if (seen.has(key)) continue
        seen.add(key)
        // Rotate so the cycle starts at its agent that comes first in the plan.
        let first = 0
        for (let k = 1; k < path.length; k++) if (order.get(path[k]!.agent.id)! < order.get(path[first]!.agent.id)!) first = k
        const rotated = [...path.slice(first), ...path.slice(0, first)]
        // The edge leaving frame k is the one that frame used last (next - 1).
        const closing = rotated[0]!.edges[rotated[0]!.next - 1]!
        const soft = path.some((f) => f.edges[f.next - 1]!.soft)
        cycles.push({agents: rotated.map((f) => f.agent.id), ref: closing.ref, soft})
      }
    }
  }
  return cycles
}
