import type {RunEvent} from '../events.js'
import type {Plan, Status} from '../plan/types.js'

export interface AgentProgress {
  id: string
  name: string
  status: Status
  dependsOn: string[]
  attempt: number
  /** Epoch ms of the current attempt's launch, while running. */
  startedAt?: number
  /** Agents this one waits on, from a `blocked` event. */
  blockedBy?: string[]
  log?: string
  /** The host it runs on, when not this machine. */
  host?: string
}

/** What the live view shows, folded from the event stream. */
export interface ProgressState {
  plan?: string
  total: number
  agents: Map<string, AgentProgress>
  startedAt?: number
  verification?: {phase: string; command: string; startedAt: number}
  paused?: {reason: string; untilMs: number}
  finished?: {exitCode: number}
}

/** The starting state: every agent of the plan with its status in the file. */
export function createProgressState(plan?: Plan): ProgressState {
  const state: ProgressState = {total: 0, agents: new Map()}
  if (!plan) return state
  state.plan = plan.file
  const status = new Map((plan.state?.table?.rows ?? []).map((row) => [row.agent, row.status]))
  for (const agent of plan.agents) {
    // A run starts by relaunching whatever was in progress, so count it as waiting until it is.
    const initial = status.get(agent.id) ?? 'pending'
    state.agents.set(agent.id, {
      id: agent.id,
      name: agent.name,
      status: initial === 'in_progress' ? 'pending' : initial,
      dependsOn: agent.dependsOn.map((dep) => dep.id),
      attempt: 0
    })
  }
  state.total = state.agents.size
  return state
}

/** Fold one event into the state (mutates and returns it: the view keeps one state for a whole run). */
export function applyProgressEvent(state: ProgressState, event: RunEvent, nowMs: number): ProgressState {
  const at = timeOf(event.time) ?? nowMs
  const agent = (id: string): AgentProgress => {
    let found = state.agents.get(id)
    if (!found) {
      found = {id, name: '', status: 'pending', dependsOn: [], attempt: 0}
      state.agents.set(id, found)
      state.total = Math.max(state.total, state.agents.size)
    }
    return found
  }
  /** The attempt is over (or waits on a person): its clock stops. */
  const stopped = (id: string, status: AgentProgress['status']): void => {
    const a = agent(id)
    a.status = status
    a.startedAt = undefined
  }
  switch (event.type) {
    case 'run-started':
      state.plan = event.plan
      state.total = Math.max(state.total, event.agents)
      state.startedAt = at
      break
    case 'verification-started':
      state.verification = {phase: event.phase, command: event.command, startedAt: at}
      break
    case 'verification-finished':
      state.verification = undefined
      break
    case 'launched': {
      const a = agent(event.agent)
      a.status = 'in_progress'
      a.attempt = event.attempt
      a.startedAt = at
      a.blockedBy = undefined
      a.log = event.log
      a.host = event.host === 'local' ? undefined : event.host
      break
    }
    case 'completed':
      stopped(event.agent, 'completed')
      break
    case 'failed':
      stopped(event.agent, event.willRetry ? 'pending' : 'failed')
      break
    case 'question':
      stopped(event.agent, 'needs_input')
      break
    case 'awaiting-review':
      stopped(event.agent, 'awaiting_review')
      break
    case 'approved':
      agent(event.agent).status = 'completed'
      break
    case 'blocked':
      agent(event.agent).blockedBy = event.by
      break
    case 'paused':
      state.paused = {reason: event.reason, untilMs: event.untilMs}
      break
    case 'run-finished':
      state.finished = {exitCode: event.exitCode}
      state.verification = undefined
      break
    default:
      break
  }
  if (state.paused && event.type === 'launched') state.paused = undefined
  return state
}

/** Agents per status, every status present. */
export function countStatuses(state: ProgressState): Record<Status, number> {
  const counts: Record<Status, number> = {pending: 0, in_progress: 0, completed: 0, failed: 0, needs_input: 0, awaiting_review: 0}
  for (const agent of state.agents.values()) counts[agent.status]++
  // Agents announced by `run-started` but not yet seen are pending.
  counts.pending += Math.max(0, state.total - state.agents.size)
  return counts
}

/** Each pending agent with what it still waits on: a `blocked` event's list, else its unfinished dependencies. */
export function waitingOn(state: ProgressState): Array<{agent: string; on: string[]}> {
  const waiting: Array<{agent: string; on: string[]}> = []
  for (const agent of state.agents.values()) {
    if (agent.status !== 'pending') continue
    const on = agent.blockedBy ?? agent.dependsOn.filter((dep) => state.agents.get(dep)?.status !== 'completed')
    if (on.length > 0) waiting.push({agent: agent.id, on})
  }
  return waiting
}

function timeOf(iso: string): number | undefined {
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? undefined : ms
}
