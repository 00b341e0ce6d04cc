import {resolve} from 'node:path'
import type {Status} from '../plan/types.js'
import {loadPlan} from '../plan/load-plan.js'
import {validatePlan} from '../plan/validate-plan.js'
import {PlanError} from '../plan/plan-error.js'
import {longestRemainingPath} from '../plan/longest-remaining-path.js'
import {simulateRun} from '../schedule/simulate-run.js'
import {resolveRunner} from '../runners/resolve-runner.js'
import {agentPrompt} from '../protocol/agent-prompt.js'
import {readSideState} from '../store/read-side-state.js'
import {checkTemplates} from '../runners/check-templates.js'
import {formatDuration} from '../util/format-duration.js'
import {defaultConcurrency} from '../run-plan.js'

/**
 * `mdplan run --dry-run`: what would launch, in what order, with which runner
 * and prompt, if every agent succeeded. Reads the plan; writes nothing.
 */
export async function dryRun(options: {file: string; cwd: string; concurrency?: number; runner?: string}): Promise<string> {
  const planFile = resolve(options.cwd, options.file)
  const plan = await loadPlan(planFile)
  // As `run` would: progress in a `.parallel-plan-state.json` is taken, or its problem stops the run.
  const side = readSideState(plan, planFile)
  const errors = [...plan.messages, ...validatePlan(plan), ...side.diagnostics, ...checkTemplates(plan, options.runner)].filter((d) => d.severity === 'error')
  if (errors.length > 0) throw new PlanError(errors)
  const concurrency = options.concurrency ?? plan.settings.concurrency ?? defaultConcurrency
  const table = side.state
  const status = new Map<string, Status>()
  for (const agent of plan.agents) {
    const current = table.rows.get(agent.id)?.status ?? 'pending'
    // Failed and interrupted agents would be retried or resumed: simulate them as pending.
    status.set(agent.id, current === 'completed' ? 'completed' : current === 'needs_input' ? 'needs_input' : 'pending')
  }
  const simulation = simulateRun({agents: plan.agents, status, concurrency, priority: longestRemainingPath(plan)})
  const byId = new Map(plan.agents.map((agent) => [agent.id, agent]))
  const when = (value: number): string => (simulation.unit === 'ms' ? `t+${formatDuration(value)}` : `step ${value + 1}`)

  const lines: string[] = [
    `Dry run of ${options.file}: ${simulation.launches.length} of ${plan.agents.length} agents would launch, concurrency ${concurrency}. Nothing is written.`
  ]
  if (side.imported) {
    const unknown = side.diagnostics.find((d) => d.rule === 'state-json-unknown-key')
    lines.push(`Progress imported from ${side.imported}${unknown ? ` (${unknown.reason})` : ''}`)
  }
  const skipped = plan.agents.filter((agent) => status.get(agent.id) === 'completed').map((agent) => agent.id)
  if (skipped.length > 0) lines.push(`Already completed (skipped): ${skipped.join(', ')}`)
  const waiting = plan.agents.filter((agent) => status.get(agent.id) === 'needs_input').map((agent) => agent.id)
  if (waiting.length > 0) lines.push(`Waiting for an answer: ${waiting.join(', ')}`)
  lines.push('')
  for (const launch of simulation.launches) {
    const agent = byId.get(launch.agent)!
    const runner = resolveRunner(plan, agent, options.runner)
    lines.push(`── ${when(launch.start)}  ${agent.id}: ${agent.name}  (runner ${runner.name}, ${launch.slot} running)`)
    const {prompt} = agentPrompt(runner, {plan, agent})
    for (const line of prompt.split(/\r?\n/)) lines.push(`   │ ${line}`)
    lines.push('')
  }
  lines.push(
    `Estimated makespan: ${simulation.unit === 'ms' ? formatDuration(simulation.makespan) : `${simulation.makespan} steps`} (if every agent succeeds)`
  )
  return lines.join('\n') + '\n'
}
