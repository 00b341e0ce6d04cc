import {fieldPoint} from '../plan/field-point.js'
import {normalizeKey} from '../plan/normalize-key.js'
import type {Agent, Plan} from '../plan/types.js'

/**
 * What an edit during a run did to where agents run. An agent whose `host`
 * now names a host the run does not have is reported as an invalid edit is,
 * with its position, and held (schedule-pass.ts) until a save fixes it; the
 * rest of the edit applies. The front matter's `hosts:` and `host:` are read
 * when a run starts: a change to them is said to apply from the next run.
 */
export function describeHostEdits(before: Plan, after: Plan, unplaceable: ((agent: Agent) => string | undefined) | undefined, file: string): {messages: string[]; held: Set<string>} {
  const messages: string[] = []
  const held = new Set<string>()
  const old = new Map(before.agents.map((agent) => [agent.id, agent]))
  for (const agent of after.agents) {
    const reason = unplaceable?.(agent)
    if (reason === undefined) continue
    held.add(agent.id)
    const was = old.get(agent.id)
    // Said once per edit of its `host`, not again on every later save.
    if (was && was.fields.host?.value === agent.fields.host?.value) continue
    const field = agent.fields.host
    const unknown = /unknown host `([^`]+)`/.exec(reason)?.[1]
    const point = field ? fieldPoint(after.text, field, unknown) : agent.position.start
    messages.push(
      `the plan was edited into an invalid one (${file}:${point.line}:${point.column}: ${reason}); ${agent.id} is held: not launched until its \`host\` names a host this run has (a run reads \`hosts:\` when it starts: a host declared during the run is used from the next run)`
    )
  }
  const setting = (plan: Plan, key: string): string => JSON.stringify(Object.entries(plan.settings.raw).find(([name]) => normalizeKey(name) === key)?.[1] ?? null)
  const changed = ['hosts', 'host'].filter((key) => setting(before, key) !== setting(after, key))
  if (changed.length > 0) {
    messages.push(
      `plan edited: the front matter's ${changed.map((key) => `\`${key}:\``).join(' and ')} changed; a run reads them when it starts, so the change applies from the next run (an agent's own \`host\` applies to its next launch)`
    )
  }
  return {messages, held}
}
