import type {Agent, Plan} from '../../plan/types.js'

/**
 * Whether the plan explicitly accepts that the runner template chosen for
 * `agent` may run prompt text as code: `allow_unsafe_template: true` beside
 * the `runner:` that chose it (the agent's own field, else front matter).
 * A template given with `--runner` is never covered: the plan's consent was
 * for its own template. `validate` and every run warn while it is set.
 */
export function unsafeTemplateAllowed(plan: Plan, agent: Agent, flag?: string): boolean {
  if (flag !== undefined && flag.trim() !== '') return false
  if (agent.fields.runner !== undefined) return truthy(agent.fields.allow_unsafe_template?.value)
  return truthy(plan.settings.raw.allow_unsafe_template ?? plan.settings.raw['allow-unsafe-template'])
}

function truthy(value: unknown): boolean {
  return value === true || (typeof value === 'string' && /^`?(true|yes)`?$/i.test(value.trim()))
}
