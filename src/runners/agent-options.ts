import type {Agent, Plan} from '../plan/types.js'
import type {RunnerOptions} from './runner.js'

/**
 * Options for one agent: flags win, then the agent's own fields, then front
 * matter; except the model, where an agent's own `model:` wins (model names
 * differ per runner, and a plan picks a bigger model for its hardest agent).
 */
export function agentOptions(flags: RunnerOptions | undefined, plan: Plan, agent: Agent): RunnerOptions {
  const settings = plan.settings
  const field = (key: string): string | undefined => agent.fields[key]?.value.trim() || undefined
  const number = (value: string | undefined): number | undefined =>
    value === undefined || Number.isNaN(Number(value)) ? undefined : Number(value)
  return {
    model: field('model') ?? flags?.model ?? settings.model,
    permissionMode: flags?.permissionMode ?? field('permission_mode') ?? settings.permissionMode,
    allowedTools:
      flags?.allowedTools ??
      (field('allowed_tools')?.replace(/^\[|\]$/g, '').split(',').map((t) => t.trim().replace(/^`|`$/g, '')).filter(Boolean) ??
        settings.allowedTools),
    maxTurns: flags?.maxTurns ?? number(field('max_turns')) ?? settings.maxTurns,
    maxBudgetUsd: flags?.maxBudgetUsd ?? number(field('max_budget_usd')) ?? settings.maxBudgetUsd,
    env: flags?.env
  }
}
