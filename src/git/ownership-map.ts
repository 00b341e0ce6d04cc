import type {Plan} from '../plan/types.js'
import {normalizePath, pathMatches} from './path-matches.js'

/** Declared path (as normalized) → the agents that declare it, in plan order. */
export type OwnershipMap = Map<string, string[]>

/**
 * Who declares what, from `creates`, `modifies` and `deletes`. `prefix` is
 * the plan's working folder relative to the repository root (`gitRoot().prefix`),
 * because plan paths are relative to where agents run and git's paths to the root.
 */
export function ownershipMap(plan: Plan, prefix = ''): OwnershipMap {
  const map: OwnershipMap = new Map()
  const base = normalizePath(prefix)
  for (const agent of plan.agents) {
    for (const ref of [...agent.creates, ...agent.modifies, ...agent.deletes]) {
      const path = normalizePath(ref.path)
      if (path === '') continue
      const key = base === '' ? path : `${base.endsWith('/') ? base : `${base}/`}${path}`
      const owners = map.get(key) ?? []
      if (!owners.includes(agent.id)) owners.push(agent.id)
      map.set(key, owners)
    }
  }
  return map
}

/** The agents whose declared paths cover `path`, in the order they were first declared. */
export function ownersOf(path: string, owners: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = []
  for (const [declared, ids] of owners) {
    if (!pathMatches(declared, path)) continue
    for (const id of ids) if (!found.includes(id)) found.push(id)
  }
  return found
}
