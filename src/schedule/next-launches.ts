import type {Assessment} from './assess-agents.js'

export interface LaunchInput {
  /** Agent ids in plan order. */
  order: readonly string[]
  assessments: ReadonlyMap<string, Assessment>
  runningCount: number
  concurrency: number
  /** Longest remaining path from each agent (higher launches first). */
  priority: ReadonlyMap<string, number>
}

/**
 * Which ready agents to launch now: as many as there are free slots, longest
 * remaining path first (ties keep plan order), so the critical path never
 * waits behind short side branches.
 */
export function nextLaunches(input: LaunchInput): string[] {
  const free = input.concurrency - input.runningCount
  if (free <= 0) return []
  const ready: Array<{id: string; index: number; weight: number}> = []
  input.order.forEach((id, index) => {
    if (input.assessments.get(id)?.kind === 'ready') ready.push({id, index, weight: input.priority.get(id) ?? 0})
  })
  ready.sort((a, b) => b.weight - a.weight || a.index - b.index)
  return ready.slice(0, free).map((entry) => entry.id)
}
