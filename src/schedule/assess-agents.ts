import type {Agent, Status} from '../plan/types.js'

/** Read access to a map or a set: a scheduling pass may answer from the live state without copying it. */
export interface Lookup<V> {
  get(id: string): V | undefined
}
export interface Membership {
  has(id: string): boolean
}

/** What the scheduler knows about the run at one instant: no clock, no files, no processes. */
export interface RunView {
  /** The plan's agents, in plan order. */
  agents: readonly Agent[]
  status: Lookup<Status>
  running: Membership
  /** Attempts used so far (failed attempts recorded in Notes plus the current one); asked only of failed agents. */
  attemptsUsed: Lookup<number>
  /** Attempts allowed per agent (a person's re-queue may raise it for one agent). */
  attemptLimit: (id: string) => number
  /** `needs_input` agents whose question has an answer: they can be resumed. */
  answered: Membership
  /** Agents whose `creates` files all exist on disk (soft dependencies on them are met). */
  filesCreated: Membership
  /** Agents whose row holds a status mdplan does not know: held, never launched (absent: none). */
  held?: Membership
  /** Agents whose definition names a host the run does not have (an edit during the run): held until fixed (absent: none). */
  unplaced?: Membership
}

export type Assessment =
  | {kind: 'done'}
  | {kind: 'running'}
  | {kind: 'ready'; resume: 'answer' | 'retry' | 'fresh'}
  | {kind: 'waiting'; on: string[]}
  | {kind: 'blocked'; by: Array<{id: string; why: Blocker}>}
  | {kind: 'failed'}
  | {kind: 'needs-input'}
  /** It completed and its work waits for a person's review (its `review:` gate): approved, it is done. */
  | {kind: 'awaiting-review'}
  /**
   * Its row holds a status mdplan does not know (`skipped`), or (`why`) its `host` names a host the run does
   * not have: never launched until a person writes one it knows.
   */
  | {kind: 'held'; why?: 'unknown host'}

/** Why a dependency cannot finish in this run, as a `blocked by:` note says it. */
export type Blocker = 'failed' | 'needs input' | 'awaiting review' | 'blocked' | 'unknown status' | 'unknown host'

/** What `assessOne` asks about an agent's dependencies: their assessment, computed as needed. */
export type AssessDep = (id: string) => Assessment

/**
 * Classify every agent: done, running, ready to launch, waiting on agents that
 * can still finish, blocked by agents that cannot (in this run), failed for
 * good, or waiting for a person's answer or review.
 */
export function assessAgents(view: RunView): Map<string, Assessment> {
  const byId = new Map(view.agents.map((agent) => [agent.id, agent]))
  const result = new Map<string, Assessment>()
  const visiting = new Set<string>()

  const assess = (id: string): Assessment => {
    const known = result.get(id)
    if (known) return known
    // A cycle is a validation error; never recurse forever on one that slipped through.
    if (visiting.has(id)) return {kind: 'blocked', by: []}
    visiting.add(id)
    const value = assessOne(byId.get(id)!, view, byId, assess)
    visiting.delete(id)
    result.set(id, value)
    return value
  }

  for (const agent of view.agents) assess(agent.id)
  return result
}

/** One agent's assessment from its own state and its dependencies' (asked of `dep`). */
export function assessOne(agent: Agent, view: Omit<RunView, 'agents'>, byId: ReadonlyMap<string, Agent>, dep: AssessDep): Assessment {
  const id = agent.id
  const status = view.status.get(id) ?? 'pending'
  if (view.running.has(id)) return {kind: 'running'}
  if (view.held?.has(id)) return {kind: 'held'}
  if (status === 'completed') return {kind: 'done'}
  if (view.unplaced?.has(id)) return {kind: 'held', why: 'unknown host'}
  if (status === 'needs_input' && !view.answered.has(id)) return {kind: 'needs-input'}
  if (status === 'awaiting_review') return {kind: 'awaiting-review'}
  if (status === 'failed' && (view.attemptsUsed.get(id) ?? 0) >= view.attemptLimit(id)) return {kind: 'failed'}

  const waiting: string[] = []
  const blocked: Array<{id: string; why: Blocker}> = []
  for (const ref of agent.dependsOn) {
    if (!byId.has(ref.id)) continue
    const state = dep(ref.id)
    if (state.kind === 'done') continue
    if (state.kind === 'failed') blocked.push({id: ref.id, why: 'failed'})
    else if (state.kind === 'needs-input') blocked.push({id: ref.id, why: 'needs input'})
    else if (state.kind === 'awaiting-review') blocked.push({id: ref.id, why: 'awaiting review'})
    else if (state.kind === 'held') blocked.push({id: ref.id, why: state.why ?? 'unknown status'})
    else if (state.kind === 'blocked') blocked.push({id: ref.id, why: 'blocked'})
    else waiting.push(ref.id)
  }
  if (blocked.length > 0) return {kind: 'blocked', by: blocked}

  // A soft dependency only orders work: it is met once its files exist, and
  // never blocks when it cannot finish.
  for (const ref of agent.softDependsOn) {
    if (!byId.has(ref.id) || view.filesCreated.has(ref.id)) continue
    const state = dep(ref.id)
    if (state.kind === 'running' || state.kind === 'ready' || state.kind === 'waiting') waiting.push(ref.id)
  }
  if (waiting.length > 0) return {kind: 'waiting', on: waiting}

  const resume = status === 'needs_input' ? 'answer' : status === 'failed' ? 'retry' : 'fresh'
  return {kind: 'ready', resume}
}

/**
 * What a dependant reads of an assessment: a dependant's own assessment changes only when this does.
 * (`running`, `ready` and `waiting` all mean "can still finish".)
 */
export function dependantView(assessment: Assessment | undefined): string {
  if (!assessment) return ''
  switch (assessment.kind) {
    case 'running':
    case 'ready':
    case 'waiting':
      return 'live'
    case 'held':
      return `held ${assessment.why ?? ''}`
    default:
      return assessment.kind
  }
}
