import type {Agent, Plan} from '../plan/types.js'
import type {Runner} from './runner.js'
import {builtinRunners, commandRunner} from './builtin-runners.js'
import {unsafeTemplateAllowed} from './template-safety/unsafe-template-allowed.js'
import {childPlanField} from '../plan/child-plan-path.js'

export const defaultRunner = 'claude'

/**
 * The runner value for an agent: the `--runner` flag (an explicit override for
 * this run), then the agent's own `runner:` field (more specific than the plan's
 * default), then front matter `runner`, then `claude`.
 */
export function runnerName(plan: Plan, agent: Agent, flag?: string): string {
  return clean(flag) ?? clean(agent.fields.runner?.value) ?? clean(plan.settings.runner) ?? defaultRunner
}

const templates = new Map<string, Runner>()

/**
 * The runner for an agent (see `runnerName`) in a map of runners by name; a name that is not in it is a command
 * template. An agent that is a child plan runs that plan, whatever runner its agents use (they get the flag): its
 * runner is the map's `plan`, which the layer that knows child plans adds (src/nested/runner-map.ts).
 */
export function resolveRunner(plan: Plan, agent: Agent, flag?: string, runners: ReadonlyMap<string, Runner> = builtinRunners): Runner {
  if (childPlanField(agent) !== undefined) {
    const child = runners.get('plan')
    if (!child) throw new Error(`agent ${agent.id} is a child plan, and this map of runners has no \`plan\` runner (see src/nested/runner-map.ts)`)
    return child
  }
  const name = runnerName(plan, agent, flag)
  const builtin = runners.get(name.toLowerCase())
  if (builtin) return builtin
  const allowUnsafe = unsafeTemplateAllowed(plan, agent, flag)
  const dataPrograms = plan.settings.templateDataPrograms?.names ?? []
  const key = `${allowUnsafe ? 'unsafe' : 'checked'}\u0000${dataPrograms.join('\u0000')}\u0001${name}`
  let runner = templates.get(key)
  if (!runner) {
    runner = commandRunner(name, {allowUnsafe, dataPrograms})
    templates.set(key, runner)
  }
  return runner
}

/** A field value as written may carry backticks or quotes around it. */
function clean(value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  let text = value.trim()
  const quoted = /^(`+|"|')([\s\S]*)\1$/.exec(text)
  if (quoted) text = quoted[2]!.trim()
  return text === '' ? undefined : text
}
