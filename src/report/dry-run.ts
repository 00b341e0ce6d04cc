import {resolve} from 'node:path'
import type {Agent, Plan, Status} from '../plan/types.js'
import {loadPlan} from '../plan/load-plan.js'
import {validatePlan} from '../plan/validate-plan.js'
import {PlanError} from '../plan/plan-error.js'
import {longestRemainingPath} from '../plan/longest-remaining-path.js'
import {dependencyDepth} from '../plan/dependency-depth.js'
import {simulateRun} from '../schedule/simulate-run.js'
import {resolveRunner} from '../runners/resolve-runner.js'
import {runnerMap} from '../nested/runner-map.js'
import {agentPrompt} from '../protocol/agent-prompt.js'
import {readSideState, type SideStateChoice} from '../store/read-side-state.js'
import type {TableState} from '../store/table-state.js'
import {checkTemplates} from '../runners/template-safety/check-templates.js'
import {formatDuration} from '../util/format-duration.js'
import {parseDuration} from '../util/parse-duration.js'
import {plural} from '../util/plural.js'
import {childPlanField} from '../plan/child-plan-path.js'
import {defaultConcurrency} from '../plan/defaults.js'
import {readHosts} from '../hosts/read-hosts.js'
import {liveJobs} from '../hosts/live-jobs.js'
import {undeclaredJobHosts} from '../hosts/undeclared-job-hosts.js'

export interface DryRunOptions {
  file: string
  cwd: string
  /** The plan as the person named it, for the header (default: `file`). */
  name?: string
  concurrency?: number
  runner?: string
  /** Print every agent's full prompt after the summary. */
  prompts?: boolean
  /** What to do with a `.parallel-plan-state.json` beside the plan, as `run` would. */
  sideState?: SideStateChoice
  /** `--host`: where agents without a `host` of their own would run. */
  host?: string
}

/**
 * `mdplan run --dry-run`: what would launch, in what order and in which
 * waves, with which runner, each agent's first prompt line, and the
 * estimated makespan when durations are known; with `prompts`, every full
 * prompt too. Reads the plan; writes nothing.
 */
export async function dryRun(options: DryRunOptions): Promise<string> {
  const planFile = resolve(options.cwd, options.file)
  const plan = await loadPlan(planFile)
  // As `run` would: progress in a `.parallel-plan-state.json` is taken, or its problem stops the run.
  const side = readSideState(plan, planFile, options.sideState)
  // Hosts as `run` reads them: a host it would refuse (undeclared, or holding a row's live job no longer declared) is refused here.
  const hosts = readHosts(plan, options.host)
  const jobs = liveJobs(plan)
  const errors = [...plan.messages, ...validatePlan(plan), ...side.diagnostics, ...checkTemplates(plan, options.runner), ...hosts.diagnostics, ...undeclaredJobHosts(plan, hosts.hosts, jobs)].filter(
    (d) => d.severity === 'error'
  )
  if (errors.length > 0) throw new PlanError(errors)
  const placed = options.host !== undefined || hosts.hosts.size > 1 || plan.agents.some((agent) => agent.fields.host) || Object.keys(plan.settings.raw).some((key) => /^host$/i.test(key))
  // A live job is gone back to on its host; a new attempt goes to the freest host of its pool.
  const where = (agent: Agent): string => {
    const job = jobs.find((entry) => entry.agent === agent.id)
    if (job) return `${job.host} (its job ${job.key})`
    return childPlanField(agent) !== undefined ? 'local' : hosts.poolOf(agent.id).join(' or ')
  }
  const concurrency = options.concurrency ?? plan.settings.concurrency ?? defaultConcurrency
  const run = simulate(plan, side.state, concurrency)
  const {simulation, status, waves} = run
  const view: View = {plan, options, run, placed, where}

  const lines: string[] = [
    `Dry run of ${options.name ?? options.file}: ${simulation.launches.length} of ${plural(plan.agents.length, 'agent')} would launch, concurrency ${concurrency}. Nothing is written.`
  ]
  if (side.imported) {
    const unknownKey = side.diagnostics.find((d) => d.rule === 'state-json-unknown-key')
    lines.push(`Progress imported from ${side.imported}${unknownKey ? ` (${unknownKey.reason})` : ''}`)
  }
  const skipped = plan.agents.filter((agent) => status.get(agent.id) === 'completed').map((agent) => agent.id)
  if (skipped.length > 0) lines.push(`Already completed (skipped): ${skipped.join(', ')}`)
  const waiting = plan.agents.filter((agent) => status.get(agent.id) === 'needs_input').map((agent) => agent.id)
  if (waiting.length > 0) lines.push(`Waiting for an answer: ${waiting.join(', ')}`)
  const reviewing = plan.agents.filter((agent) => status.get(agent.id) === 'awaiting_review').map((agent) => agent.id)
  if (reviewing.length > 0) lines.push(`Awaiting review (held until approved): ${reviewing.join(', ')}`)

  if (waves.length > 0) {
    lines.push('', 'Waves (an agent of wave n depends on one of wave n − 1):')
    waves.forEach((ids, i) => lines.push(`  ${String(i + 1).padStart(String(waves.length).length)}  ${ids.join(', ')}`))
  }

  const order = launchOrder(view)
  const time = makespan(run, concurrency)
  const prompts = options.prompts ? fullPrompts(view) : simulation.launches.length > 0 ? ['Each agent\'s full prompt, as it would be sent: add --prompts.'] : []
  return [...lines, ...order, '', time, ...prompts].join('\n') + '\n'
}

/** The run as the scheduler would make it, every agent succeeding on its first attempt. */
interface Simulated {
  simulation: ReturnType<typeof simulateRun>
  /** What the simulation starts from, per agent. */
  status: Map<string, Status>
  /** The agents that would launch (pending). */
  launching: Agent[]
  /** The launching agents with no known duration. */
  unknown: string[]
  /** Every launching agent's duration is known: the simulation is in milliseconds. */
  timed: boolean
  byId: Map<string, Agent>
  waves: string[][]
}

/** What the parts of the dry run's text read. */
interface View {
  plan: Plan
  options: DryRunOptions
  run: Simulated
  /** Whether agents run on more than one host (or the plan names hosts): the host is shown. */
  placed: boolean
  where: (agent: Agent) => string
}

/** Simulate the run from `table` (the table, or the side-file's progress over it). */
function simulate(plan: Plan, table: TableState, concurrency: number): Simulated {
  const status = new Map<string, Status>()
  for (const agent of plan.agents) {
    const current = table.rows.get(agent.id)?.status ?? 'pending'
    // Failed and interrupted agents would be retried or resumed: simulate them as pending.
    status.set(agent.id, current === 'completed' || current === 'needs_input' || current === 'awaiting_review' ? current : 'pending')
  }
  const launching = plan.agents.filter((agent) => status.get(agent.id) === 'pending')
  // A duration is known from `estimated_duration`, else from the table (the agent ran before).
  const known = new Map<string, number>()
  for (const agent of plan.agents) {
    const ms = agent.estimatedMs ?? parseDuration(table.rows.get(agent.id)?.duration ?? '')
    if (ms !== undefined) known.set(agent.id, ms)
  }
  const unknown = launching.filter((agent) => !known.has(agent.id)).map((agent) => agent.id)
  const timed = unknown.length === 0
  const agents = plan.agents.map((agent) => ({...agent, estimatedMs: timed ? (known.get(agent.id) ?? 0) : undefined}))
  const simulation = simulateRun({agents, status, concurrency, priority: longestRemainingPath(plan)})
  const byId = new Map(plan.agents.map((agent) => [agent.id, agent]))
  const waves = wavesOf(launching, byId, status)
  return {simulation, status, launching, unknown, timed, byId, waves}
}

/** The launch order as a table: when, which agent, its runner, (its host,) its first prompt line. */
function launchOrder({plan, options, run: {simulation, timed, byId}, placed, where}: View): string[] {
  const rows = simulation.launches.map((launch, i) => {
    const agent = byId.get(launch.agent)!
    return [
      `${i + 1}.`,
      ...(timed ? [`t+${formatDuration(launch.start)}`] : []),
      `${agent.id}: ${agent.name}`,
      resolveRunner(plan, agent, options.runner, runnerMap).name,
      ...(placed ? [where(agent)] : []),
      firstLine(agent)
    ]
  })
  if (rows.length === 0) return []
  const header = ['', ...(timed ? ['start'] : []), 'agent', 'runner', ...(placed ? ['host'] : []), 'first prompt line']
  const lines = ['', `Launch order (longest remaining path first):`]
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  for (const row of [header, ...rows]) {
    lines.push(`  ${row.map((cell, i) => (i === row.length - 1 ? cut(cell, 72) : cell.padEnd(widths[i]!))).join('  ')}`.trimEnd())
  }
  return lines
}

/** How long the run would take, when every duration is known; else which are missing. */
function makespan({simulation, launching, unknown, timed, waves}: Simulated, concurrency: number): string {
  if (simulation.launches.length === 0) return 'Nothing would launch.'
  if (timed) {
    const estimated = launching.filter((agent) => agent.estimatedMs !== undefined).length
    const from = estimated === launching.length ? 'estimated_duration' : estimated === 0 ? 'the durations in the table' : 'estimated_duration and the durations in the table'
    return `Estimated makespan: ${formatDuration(simulation.makespan)} (from ${from}; if every agent succeeds on its first attempt)`
  }
  const few = unknown.length <= 8 ? unknown.join(', ') : `${unknown.slice(0, 8).join(', ')} and ${unknown.length - 8} more`
  return `Estimated makespan: unknown (no duration for ${few}: add \`- **estimated_duration**: 5m\` to an agent); ${plural(waves.length, 'wave')} at concurrency ${concurrency}`
}

/** Every launching agent's full prompt, as it would be sent, in launch order. */
function fullPrompts({plan, options, run: {simulation, byId}, placed, where}: View): string[] {
  const lines: string[] = []
  for (const launch of simulation.launches) {
    const agent = byId.get(launch.agent)!
    const runner = resolveRunner(plan, agent, options.runner, runnerMap)
    lines.push('', `── ${agent.id}: ${agent.name}  (runner ${runner.name}${placed ? `, on ${where(agent)}` : ''})`)
    const {prompt} = agentPrompt(runner, {plan, agent})
    for (const line of prompt.split(/\r?\n/)) lines.push(`   │ ${line}`)
  }
  return lines
}

/** Agents that would launch, by wave: wave 1 waits on nothing that runs; wave n on an agent of wave n − 1. */
function wavesOf(launching: readonly Agent[], byId: ReadonlyMap<string, Agent>, status: ReadonlyMap<string, Status>): string[][] {
  const depth = dependencyDepth({agents: [...byId.values()]}, (id) => status.get(id) === 'pending')
  const waves: string[][] = []
  for (const agent of launching) (waves[depth.get(agent.id)!] ??= []).push(agent.id)
  return waves.filter((ids) => ids !== undefined)
}

/** The first line of what the agent is asked to do (a child plan: the plan it runs). */
function firstLine(agent: Agent): string {
  const child = childPlanField(agent)
  if (child !== undefined) return `runs the plan ${child}`
  const lines = agent.prompt?.text.split(/\r?\n/).map((text) => text.trim()) ?? []
  // Prompts often open with a `## Task` heading: the first sentence under it says more.
  // A shell script's `set -e` or `#!/bin/sh` says nothing about the agent either.
  const line = lines.find((text) => text !== '' && !/^(?:#{1,6}\s|`{3,}|~{3,}|#!|set -)/.test(text)) ?? lines.find((text) => text !== '')
  return line === undefined ? '(no prompt)' : line.replace(/^#{1,6}\s+/, '')
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}
