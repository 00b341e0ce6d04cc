/** Tracks which agents overlapped each agent's run, for `attributeChanges({running})`. */
export interface RunningWindows {
  /** An agent was launched (call when its snapshot is taken). */
  launched(agent: string): void
  /** Every agent that ran at some point during an agent's window so far, itself first (the window stays open). */
  overlapping(agent: string): string[]
  /** An agent finished: every agent that ran at some point during its window, itself first. */
  finished(agent: string): string[]
}

/**
 * The window of an agent is launch to completion; an agent overlaps it when
 * it was running at launch or launched before completion. No clock and no
 * processes: the executor calls it in event order.
 */
export function runningWindows(): RunningWindows {
  const running = new Set<string>()
  const overlaps = new Map<string, Set<string>>()
  return {
    launched(agent) {
      for (const other of running) overlaps.get(other)?.add(agent)
      overlaps.set(agent, new Set([agent, ...running]))
      running.add(agent)
    },
    overlapping(agent) {
      return [...(overlaps.get(agent) ?? [agent])]
    },
    finished(agent) {
      running.delete(agent)
      const seen = overlaps.get(agent) ?? new Set([agent])
      overlaps.delete(agent)
      return [...seen]
    }
  }
}
