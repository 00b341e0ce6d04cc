import type {Agent, Plan, Point, Span} from '../plan/types.js'

/**
 * Where an agent's runner is written, for a message about it: the agent's own
 * `runner:` field, else the front matter's `runner:` line, else (the
 * `--runner` flag, or the default runner) the agent's heading.
 */
export function runnerPlace(plan: Plan, agent: Agent | undefined, flag?: string): Point | Span | undefined {
  if (flag !== undefined && flag.trim() !== '') return agent?.position
  return agent?.fields.runner?.position ?? plan.settings.runnerPosition ?? agent?.position
}
