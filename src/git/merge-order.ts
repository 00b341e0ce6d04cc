export interface MergeOrderInput {
  /** Agents that finished and whose branches are not merged yet, in completion order. */
  finished: readonly string[]
  /** Agents whose branches are merged already. */
  merged: ReadonlySet<string>
  /** Each agent's hard dependencies. */
  dependsOn: (agent: string) => readonly string[]
  /** Whether an agent runs in a worktree (a dependency without one has nothing to merge). */
  usesWorktree: (agent: string) => boolean
}

/**
 * Which finished branches may be merged now, in the order to merge them: an
 * agent's branch goes in only after the branches of all its worktree
 * dependencies, so history reads in dependency order. The rest wait.
 */
export function mergeOrder(input: MergeOrderInput): string[] {
  const merged = new Set(input.merged)
  const waiting = input.finished.filter((agent) => !merged.has(agent))
  const order: string[] = []
  for (let progress = true; progress; ) {
    progress = false
    for (const agent of waiting) {
      if (merged.has(agent)) continue
      const ready = input.dependsOn(agent).every((dep) => merged.has(dep) || !input.usesWorktree(dep))
      if (!ready) continue
      merged.add(agent)
      order.push(agent)
      progress = true
    }
  }
  return order
}
