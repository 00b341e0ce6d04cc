import type {Agent, Diagnostic, Plan} from '../plan/types.js'
import {agentOptions} from './agent-options.js'
import type {Runner, RunnerOptions} from './runner.js'
import {runnerPlace} from './runner-place.js'
import {checkRunners, isInstalled} from './check-runners.js'
import {executableOf} from './executable-of.js'

/**
 * Everything that can be known before anything launches, one error per
 * problem: every runner installed (`checkRunners`), then for each installed one
 * its own preflight (logged in or keyed, a permission mode it accepts). Each
 * error names the agents concerned and says what to run or set. `optionsOf`
 * gives an agent's runner options as the run will pass them (permission mode,
 * extra environment); without it, the agent's and front matter's own fields.
 */
export async function preflightRunners(
  plan: Plan,
  runners: ReadonlyMap<string, Runner>,
  env: NodeJS.ProcessEnv = process.env,
  cwd: string = process.cwd(),
  optionsOf: (agent: Agent) => RunnerOptions = (agent) => agentOptions(undefined, plan, agent),
  /** The `--runner` flag, when the run has one. */
  flag?: string
): Promise<Diagnostic[]> {
  const installed = await checkRunners(plan, runners, env, cwd, flag)
  const groups = new Map<string, {runner: Runner; executable: string; agents: Agent[]; modes: Set<string | undefined>; env: NodeJS.ProcessEnv}>()
  for (const agent of plan.agents) {
    const runner = runners.get(agent.id)
    if (!runner?.preflight) continue
    const executable = executableOf(runner, env)
    if (executable === undefined) continue
    const options = optionsOf(agent)
    const key = `${runner.name}\u0000${executable}`
    const group = groups.get(key) ?? {runner, executable, agents: [], modes: new Set(), env: {...env, ...options.env}}
    group.agents.push(agent)
    group.modes.add(options.permissionMode)
    groups.set(key, group)
  }
  const answers = await Promise.all(
    [...groups.values()].map(async (group) => {
      if (!(await isInstalled(group.executable, env, cwd))) return {group, problems: [] as string[]}
      const problems = await group.runner.preflight!({executable: group.executable, env: group.env, cwd, permissionModes: [...group.modes]})
      return {group, problems}
    })
  )
  const diagnostics: Diagnostic[] = [...installed]
  for (const {group, problems} of answers) {
    const ids = group.agents.map((agent) => agent.id)
    const who = ids.length === 1 ? `agent ${ids[0]}` : `agents ${ids.join(', ')}`
    for (const problem of problems) {
      diagnostics.push({severity: 'error', rule: 'runner-not-ready', reason: `${who} (${group.runner.name} runner): ${problem}`, file: plan.file, place: runnerPlace(plan, group.agents[0], flag)})
    }
  }
  return diagnostics
}
