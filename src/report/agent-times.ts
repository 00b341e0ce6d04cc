import type {RunEvent} from '../events.js'

export interface AgentTimes {
  /** When the agent's latest piece of work began: its first launch after it last finished (ISO 8601). */
  start: string
  /** When that work ended: completed, failed for good, or asked a question (ISO 8601); undefined while it runs. */
  end?: string
}

/**
 * Each agent's own start and end, from a run log. A retry or a resume after
 * Ctrl-C continues the same piece of work; a launch after the agent finished
 * (a person set it back to `pending`, or answered its question) starts a new one.
 * With `since` (epoch ms), only work that ended at or after it.
 */
export function agentTimes(events: readonly RunEvent[], since?: number): Map<string, AgentTimes> {
  const times = new Map<string, AgentTimes>()
  for (const event of events) {
    if (event.type === 'launched') {
      const current = times.get(event.agent)
      if (!current || current.end !== undefined) times.set(event.agent, {start: event.time})
    } else if (event.type === 'completed' || event.type === 'awaiting-review' || event.type === 'question' || (event.type === 'failed' && !event.willRetry)) {
      const current = times.get(event.agent)
      if (current) current.end = event.time
    }
  }
  if (since === undefined) return times
  return new Map([...times].filter(([, t]) => t.end !== undefined && Date.parse(t.end) >= since))
}

/**
 * The agents whose work ended in the timing that began at `started` (the table's `Started:`), when the
 * log covers it: it holds the run that set `Started:`, one that started by then (`Started:` is written
 * to the second) and whose first launch came at or after it. Else undefined: the timing is not
 * mdplan's, or its log is elsewhere, and every duration counts.
 */
export function timedAgents(events: readonly RunEvent[], started: string | undefined): Set<string> | undefined {
  const since = Date.parse(started ?? '')
  if (Number.isNaN(since)) return undefined
  let runStart: number | undefined
  let covered = false
  for (const event of events) {
    if (event.type === 'run-started') runStart = Date.parse(event.time)
    else if (event.type === 'launched' && runStart !== undefined) {
      if (runStart < since + 1000 && Date.parse(event.time) >= since) covered = true
      runStart = undefined
    }
  }
  return covered ? new Set(agentTimes(events, since).keys()) : undefined
}
