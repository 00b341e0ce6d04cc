import type {Diagnostic, Plan} from '../plan/types.js'
import {builtinRunners} from './builtin-runners.js'
import {templateProblem} from './command.js'
import {runnerName} from './resolve-runner.js'
import {splitTemplate} from './split-template.js'

/**
 * Before anything launches: every command template the plan's agents would
 * use, checked once each. A template that does not split (an unterminated
 * quote) or that would run a placeholder as code (`templateProblem`) is an
 * error naming the agents that use it, so `validate`, `--dry-run` and `run`
 * refuse it alike instead of failing each attempt.
 */
export function checkTemplates(plan: Plan, flag?: string): Diagnostic[] {
  const users = new Map<string, string[]>()
  for (const agent of plan.agents) {
    const name = runnerName(plan, agent, flag)
    if (builtinRunners.has(name.toLowerCase())) continue
    users.set(name, [...(users.get(name) ?? []), agent.id])
  }
  const diagnostics: Diagnostic[] = []
  for (const [template, agents] of users) {
    let problem: string | undefined
    try {
      problem = templateProblem(splitTemplate(template))
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error)
    }
    if (problem === undefined) continue
    const first = plan.agents.find((agent) => agent.id === agents[0])
    const who = agents.length === 1 ? `agent ${agents[0]}` : `agents ${agents.join(', ')}`
    diagnostics.push({
      severity: 'error',
      rule: 'unsafe-runner-template',
      reason: `the runner template \`${template}\` of ${who} cannot run: ${problem}`,
      file: plan.file,
      place: first?.fields.runner?.position ?? (flag === undefined ? plan.settings.position : undefined) ?? first?.position
    })
  }
  return diagnostics
}
