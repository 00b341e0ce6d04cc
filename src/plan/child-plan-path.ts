import {dirname, resolve} from 'node:path'
import type {Agent} from './types.js'

/** The `plan:` field of an agent (a child plan), as written; undefined for an ordinary agent. */
export function childPlanField(agent: Pick<Agent, 'fields'>): string | undefined {
  const value = agent.fields.plan?.value.trim().replace(/^`+|`+$/g, '').trim()
  return value ? value : undefined
}

/** The child plan's absolute path: relative to the parent plan's folder. */
export function childPlanPath(parentFile: string, agent: Pick<Agent, 'fields'>): string | undefined {
  const field = childPlanField(agent)
  return field === undefined ? undefined : resolve(dirname(parentFile), field)
}
