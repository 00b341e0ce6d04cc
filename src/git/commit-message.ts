import type {Field} from '../plan/types.js'

/**
 * The message of every commit mdplan makes for an agent: `<plan title> · <agent ID>: <name>`,
 * or, for an agent imported from a team-planex queue (an `issue` field), the queue's own
 * convention `feat(<issueId>): <title>` (the title from `issue_title`, else the agent's name).
 */
export function commitMessage(planTitle: string, agent: {id: string; name: string; fields?: Record<string, Field>}): string {
  const issue = agent.fields?.issue?.value.trim()
  if (issue) return `feat(${issue}): ${agent.fields?.issue_title?.value.trim() || agent.name}`
  return `${planTitle} · ${agent.id}: ${agent.name}`
}
