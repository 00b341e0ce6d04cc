import type {Diagnostic, Plan} from '../plan/types.js'
import {builtinRunners} from './builtin-runners.js'
import {templateProblem} from './command.js'
import {runnerName} from './resolve-runner.js'
import {splitTemplate} from './split-template.js'
import {unsafeTemplateAllowed} from './unsafe-template-allowed.js'
import {childPlanField} from '../nested/child-plan-path.js'

/**
 * Before anything launches: every command template the plan's agents would
 * use, checked once each. A template that does not split (an unterminated
 * quote) or that would run a placeholder as code (`templateProblem`) is an
 * error naming the agents that use it, so `validate`, `--dry-run` and `run`
 * refuse it alike instead of failing each attempt. A plan that opts in
 * (`allow_unsafe_template: true` beside the runner) gets a warning instead,
 * every time.
 */
export function checkTemplates(plan: Plan, flag?: string): Diagnostic[] {
  const users = new Map<string, string[]>()
  const allowed = new Set<string>()
  for (const agent of plan.agents) {
    if (childPlanField(agent) !== undefined) continue
    const name = runnerName(plan, agent, flag)
    if (builtinRunners.has(name.toLowerCase())) continue
    const key = `${unsafeTemplateAllowed(plan, agent, flag) ? 'unsafe' : 'checked'}\u0000${name}`
    if (key.startsWith('unsafe')) allowed.add(key)
    users.set(key, [...(users.get(key) ?? []), agent.id])
  }
  const diagnostics: Diagnostic[] = []
  for (const [key, agents] of users) {
    const template = key.slice(key.indexOf('\u0000') + 1)
    let problem: string | undefined
    let splits = true
    try {
      problem = templateProblem(splitTemplate(template))
    } catch (error) {
      splits = false
      problem = error instanceof Error ? error.message : String(error)
    }
    if (problem === undefined) continue
    const first = plan.agents.find((agent) => agent.id === agents[0])
    const who = agents.length === 1 ? `agent ${agents[0]}` : `agents ${agents.join(', ')}`
    // A template that does not split cannot run at all, consent or not.
    const optedIn = allowed.has(key) && splits
    diagnostics.push({
      severity: optedIn ? 'warning' : 'error',
      rule: 'unsafe-runner-template',
      reason: optedIn
        ? `the runner template \`${template}\` of ${who} may run prompt text as code, and runs because the plan says allow_unsafe_template: true: ${problem}`
        : `the runner template \`${template}\` of ${who} cannot run: ${problem}; if the plan truly means it, add allow_unsafe_template: true beside its runner`,
      file: plan.file,
      place: first?.fields.runner?.position ?? (flag === undefined ? plan.settings.position : undefined) ?? first?.position
    })
  }
  return diagnostics
}
