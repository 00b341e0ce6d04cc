import {runnerPlace} from '../runner-place.js'
import type {Diagnostic, Plan} from '../../plan/types.js'
import {builtinRunners} from '../builtin-runners.js'
import {templateProblem} from './template-problem.js'
import {runnerName} from '../resolve-runner.js'
import {splitTemplate} from './split-template.js'
import {unsafeTemplateAllowed} from './unsafe-template-allowed.js'
import {childPlanField} from '../../plan/child-plan-path.js'

/**
 * Before anything launches: every command template the plan's agents would
 * use, checked once each. A template that does not split (an unterminated
 * quote) or that would run a placeholder as code (`templateProblem`) is an
 * error naming the agents that use it, so `validate`, `--dry-run` and `run`
 * refuse it alike instead of failing each attempt. A plan that opts in
 * (`allow_unsafe_template: true` beside the runner) gets a warning instead,
 * every time. Programs the plan names in `template_data_programs` take
 * placeholders as data (for a `--runner` template too: the names say what a
 * program does, not which template may run); validate shows them as an info
 * line every time, so a reviewer sees what mdplan was told to trust.
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
  const declared = plan.settings.templateDataPrograms
  const named = declared?.names ?? []
  if (declared) {
    diagnostics.push({
      severity: 'info',
      rule: 'template-data-programs',
      reason: `template_data_programs: the plan says ${named.map((name) => `\`${name}\``).join(', ')} ${named.length === 1 ? 'takes' : 'take'} prompt text as data, so a runner template may pass ${named.length === 1 ? 'it' : 'them'} placeholders; mdplan does not check what ${named.length === 1 ? 'it does' : 'they do'} with them`,
      file: plan.file,
      place: declared.position
    })
  }
  for (const [key, agents] of users) {
    const template = key.slice(key.indexOf('\u0000') + 1)
    let problem: string | undefined
    let splits = true
    try {
      problem = templateProblem(splitTemplate(template), named)
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
      place: runnerPlace(plan, first, flag)
    })
  }
  return diagnostics
}
