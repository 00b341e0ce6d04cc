import type {Agent} from '../plan/types.js'
import {assessOne, dependantView, type Assessment, type RunView} from './assess-agents.js'

/**
 * The assessments of the last scheduling pass, kept so the next pass redoes
 * only what changed. An agent's own inputs are its row (rows are replaced,
 * never edited in place, so a changed row is a new object), whether it runs,
 * whether its question has an answer, and its attempt limit; its
 * dependencies are read through what a dependant sees of them
 * (`dependantView`). A pass compares every agent's inputs (a few lookups
 * each), assesses again those that changed, and from them only the
 * dependants whose dependencies now read differently.
 */
export interface AssessmentCache {
  /** The agents it was built for: another list (a person edited the plan) starts a new cache. */
  agents: readonly Agent[]
  byId: ReadonlyMap<string, Agent>
  /** Each agent's direct dependants (hard and soft). */
  dependants: ReadonlyMap<string, readonly string[]>
  /** Plan order, for ready agents' ties. */
  index: ReadonlyMap<string, number>
  filesCreated: RunView['filesCreated'] | undefined
  inputs: Map<string, AgentInputs>
  assessments: Map<string, Assessment>
  /** Ready agents now. */
  ready: Set<string>
  /** Agents assessed again (or whose row changed) since the caller last took this list: their notes are due a look. */
  touched: Set<string>
}

export interface AgentInputs {
  row: unknown
  running: boolean
  answered: boolean
  limit: number
}

/** What changes an agent's own assessment, read from the live state. */
export interface LiveInputs {
  inputs(id: string): AgentInputs
}

export function emptyAssessmentCache(agents: readonly Agent[]): AssessmentCache {
  const byId = new Map(agents.map((agent) => [agent.id, agent]))
  const dependants = new Map<string, string[]>()
  for (const agent of agents) {
    for (const ref of [...agent.dependsOn, ...agent.softDependsOn]) {
      if (!byId.has(ref.id)) continue
      const list = dependants.get(ref.id) ?? []
      list.push(agent.id)
      dependants.set(ref.id, list)
    }
  }
  return {
    agents,
    byId,
    dependants,
    index: new Map(agents.map((agent, i) => [agent.id, i])),
    filesCreated: undefined,
    inputs: new Map(),
    assessments: new Map(),
    ready: new Set(),
    touched: new Set()
  }
}

/**
 * Bring `cache` up to date with the run as `view` and `live` see it, and
 * return it: the same assessments `assessAgents(view)` would give, for the
 * work of what changed since the last call.
 */
export function updateAssessments(previous: AssessmentCache | undefined, view: RunView, live: LiveInputs): AssessmentCache {
  const cache = previous?.agents === view.agents ? previous : emptyAssessmentCache(view.agents)
  const dirty = new Set<string>()
  for (const agent of view.agents) {
    const now = live.inputs(agent.id)
    const before = cache.inputs.get(agent.id)
    if (before && before.row === now.row && before.running === now.running && before.answered === now.answered && before.limit === now.limit) continue
    cache.inputs.set(agent.id, now)
    dirty.add(agent.id)
  }
  // The set of agents whose files exist is replaced when it changes: their soft dependants are due a look.
  if (cache.filesCreated !== view.filesCreated) {
    cache.filesCreated = view.filesCreated
    for (const agent of view.agents) if (agent.softDependsOn.length > 0) dirty.add(agent.id)
  }

  const computing = new Set<string>()
  const dep = (id: string): Assessment => {
    // A cycle is a validation error; read it as assessAgents does, never recurse forever.
    if (computing.has(id)) return {kind: 'blocked', by: []}
    if (dirty.has(id)) assess(id)
    return cache.assessments.get(id)!
  }
  const assess = (id: string): void => {
    dirty.delete(id)
    computing.add(id)
    const value = assessOne(cache.byId.get(id)!, view, cache.byId, dep)
    computing.delete(id)
    const before = cache.assessments.get(id)
    cache.assessments.set(id, value)
    cache.touched.add(id)
    if (value.kind === 'ready') cache.ready.add(id)
    else cache.ready.delete(id)
    // Its dependants read it again only if what they read of it changed.
    if (dependantView(before) === dependantView(value)) return
    for (const dependant of cache.dependants.get(id) ?? []) if (!computing.has(dependant)) dirty.add(dependant)
  }
  while (dirty.size > 0) assess(dirty.values().next().value!)
  return cache
}

/** A pass launched `id`: it runs now. Its inputs are forgotten, so the next pass assesses it from the state again (a launch taken back restores its old row). */
export function markRunning(cache: AssessmentCache, id: string): void {
  cache.assessments.set(id, {kind: 'running'})
  cache.ready.delete(id)
  cache.inputs.delete(id)
}
