import type {Agent, Status} from '../plan/types.js'
import {assessAgents} from './assess-agents.js'
import {nextLaunches} from './next-launches.js'

export interface SimulatedLaunch {
  agent: string
  /** Simulated start, in `estimated_duration` milliseconds (or steps of 1 when durations are unknown). */
  start: number
  end: number
  /** Agents running beside it when it starts. */
  slot: number
}

/**
 * What a run would do if every agent succeeded: the launch order, with the
 * same rules as the real scheduler (swim lanes, longest remaining path first).
 * Pure; agents with no estimate take one unit.
 */
export function simulateRun(input: {
  agents: readonly Agent[]
  status: ReadonlyMap<string, Status>
  concurrency: number
  priority: ReadonlyMap<string, number>
}): {launches: SimulatedLaunch[]; makespan: number; unit: 'ms' | 'steps'} {
  const timed = input.agents.every((agent) => agent.estimatedMs !== undefined)
  const status = new Map(input.status)
  const running = new Map<string, number>()
  const launches: SimulatedLaunch[] = []
  const order = input.agents.map((agent) => agent.id)
  const byId = new Map(input.agents.map((agent) => [agent.id, agent]))
  let now = 0
  for (;;) {
    const assessments = assessAgents({
      agents: input.agents,
      status,
      running: new Set(running.keys()),
      attemptsUsed: new Map(),
      attemptLimit: () => 1,
      answered: new Set(),
      filesCreated: new Set()
    })
    const ids = nextLaunches({order, assessments, runningCount: running.size, concurrency: input.concurrency, priority: input.priority})
    for (const id of ids) {
      const end = now + (timed ? byId.get(id)!.estimatedMs! : 1)
      running.set(id, end)
      launches.push({agent: id, start: now, end, slot: running.size})
    }
    if (running.size === 0) break
    now = Math.min(...running.values())
    for (const [id, end] of running) {
      if (end <= now) {
        running.delete(id)
        status.set(id, 'completed')
      }
    }
  }
  return {launches, makespan: now, unit: timed ? 'ms' : 'steps'}
}
