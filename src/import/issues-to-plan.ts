import {checkGeneratedPlan} from './check-generated-plan.js'
import {issueAgents, renderIssueAgent, safeName, type IssueAgent} from './issue-agents.js'
import {ImportError, type Issue} from './read-issues.js'
import {plural} from '../util/plural.js'
import {shellWord} from '../util/shell-word.js'

export interface IssuesToPlanOptions {
  /** The JSONL file, for the plan's title and error messages. */
  source: string
  runner?: string
  /** `--data-program`: programs the runner template passes prompt text to as data, recorded as front matter `template_data_programs`. */
  dataPrograms?: readonly string[]
  /** Where each issue's implementation plan goes. */
  notesDir?: string
  /** The queue's path from the plan's folder, recorded as front matter `issues:` so a run can keep the queue in step. */
  queue?: string
  /** Issues that already have agents in the plan (id → their number): a re-import adds agents for the others only. */
  existing?: ReadonlyMap<string, number>
  /** The lowest number new issues may take (a re-import: after every agent the plan has). */
  firstNumber?: number
}

export interface IssuesPlan {
  text: string
  /** The agent sections of the issues imported now (what a re-import adds), as lines. */
  agents: string[]
  /** The same agents as generated: what the written plan must read back as. */
  generated: IssueAgent[]
  /** Issues turned into agents now, in order. */
  imported: Issue[]
  /** The ids of their agents, in order. */
  agentIds: string[]
  skipped: Issue[]
  warnings: string[]
}

const doneStatuses = new Set(['completed', 'done', 'closed', 'resolved'])

/**
 * A plan from an issue queue. Each open issue becomes two agents:
 * `P<n>: plan-<id>` writes an implementation plan for the issue, and
 * `E<n>: exec-<id>` carries it out.
 *
 * The DAG is built so planning runs ahead of execution: a planning agent
 * waits only for the planning agents of the issues its issue depends on (it
 * reads their plans, not their code), so while E1 executes, P2, P3, … are
 * already planning. Execution keeps the queue's order: an executing agent
 * waits for its own plan, for the executing agents of the issues it depends
 * on, and for every executing agent of the previous wave.
 *
 * Completed issues are skipped and dependencies on them count as satisfied.
 * With `existing`, those issues keep the agents they have and the new ones
 * are numbered after them, depending on them as they would have.
 */
export function issuesToPlan(issues: readonly Issue[], options: IssuesToPlanOptions): IssuesPlan {
  const notesDir = options.notesDir ?? '.planning/issues'
  const existing = options.existing ?? new Map<string, number>()
  const skipped = issues.filter((issue) => doneStatuses.has(issue.status.toLowerCase()) && !existing.has(issue.id))
  const open = issues.filter((issue) => !doneStatuses.has(issue.status.toLowerCase()) && !existing.has(issue.id))
  const present = issues.filter((issue) => existing.has(issue.id))
  const known = new Set(issues.map((issue) => issue.id))
  const openIds = new Set(open.map((issue) => issue.id))
  const withAgents = new Set([...openIds, ...existing.keys()])

  const ordered = byWave(open)
  const all = byWave([...present, ...open])
  const byId = new Map(all.map((issue) => [issue.id, issue]))
  const warnings = checkDependencies(ordered, {known, openIds, byId, source: options.source})

  const first = Math.max(options.firstNumber ?? 1, Math.max(0, ...existing.values()) + 1)
  const number = new Map<string, number>([...existing, ...ordered.map((issue, index) => [issue.id, first + index] as const)])
  const deps = (issue: Issue): Issue[] => issue.dependsOn.filter((dep) => withAgents.has(dep) && byId.has(dep)).map((dep) => byId.get(dep)!)
  const waves = [...new Set(all.map(waveOf))]
  const previousWave = (issue: Issue): Issue[] => {
    const at = waves.indexOf(waveOf(issue))
    return at <= 0 ? [] : all.filter((other) => waveOf(other) === waves[at - 1])
  }
  const notesFile = notesFiles(all, number, notesDir)

  const generated: IssueAgent[] = []
  for (const issue of ordered) {
    const n = number.get(issue.id)!
    generated.push(
      ...issueAgents({
        issue,
        n,
        planDeps: deps(issue).map((dep) => `P${number.get(dep.id)}`),
        execDeps: unique([`P${n}`, ...deps(issue).map((dep) => `E${number.get(dep.id)}`), ...previousWave(issue).map((other) => `E${number.get(other.id)}`)]),
        deps: deps(issue),
        notesFile
      })
    )
  }
  const agents = generated.flatMap(renderIssueAgent)
  const agentIds = generated.map((agent) => agent.id)

  const text = planText(options, {notesDir, ordered, waves, skipped, agents, agentIds, number})
  // A fresh plan must read back as exactly these agents (a re-import checks the grown plan instead).
  if (options.existing === undefined) {
    const wrong = checkGeneratedPlan(text, options.source, {earlier: [], agents: generated})
    if (wrong.length > 0) throw new ImportError(mismatch(options.source, wrong))
  }
  return {text, agents, generated, imported: ordered, agentIds, skipped, warnings}
}

// Issues without a wave go after every numbered wave, in file order.
const waveOf = (issue: Issue): number => issue.wave ?? Number.POSITIVE_INFINITY
const byWave = (list: Issue[]): Issue[] =>
  list.map((issue, index) => ({issue, index})).sort((a, b) => waveOf(a.issue) - waveOf(b.issue) || a.index - b.index).map(({issue}) => issue)

/**
 * The open issues' dependencies (`ordered`, by wave): one on an issue not in the file is a warning
 * (taken as done); one on a later wave, or a cycle, is refused (an ImportError with every problem).
 */
function checkDependencies(
  ordered: readonly Issue[],
  {known, openIds, byId, source}: {known: ReadonlySet<string>; openIds: ReadonlySet<string>; byId: ReadonlyMap<string, Issue>; source: string}
): string[] {
  const warnings: string[] = []
  const problems: string[] = []
  for (const issue of ordered) {
    for (const dep of issue.dependsOn) {
      if (!known.has(dep)) warnings.push(`${source}:${issue.line}: issue "${issue.id}" depends on "${dep}", which is not in the file; taken as done`)
      const target = byId.get(dep)
      if (target && waveOf(target) > waveOf(issue)) {
        problems.push(`${source}:${issue.line}: issue "${issue.id}" (${waveName(issue)}) depends on "${dep}" (${waveName(target)}), a later wave; move one of them`)
      }
    }
  }
  const cycle = findCycle(ordered, openIds)
  if (cycle) problems.push(`${source}:${byId.get(cycle[0]!)!.line}: issues depend on each other in a cycle: ${cycle.join(' → ')}`)
  if (problems.length > 0) throw new ImportError(problems)
  return warnings
}

/** Each issue's implementation plan file, under `notesDir`. */
function notesFiles(all: readonly Issue[], number: ReadonlyMap<string, number>, notesDir: string): (issue: Issue) => string {
  // Ids that differ only in characters a file name cannot hold still get their own notes file.
  const fileNames = new Map<string, string>()
  const taken = new Set<string>()
  for (const issue of all) {
    let name = safeName(issue.id)
    if (taken.has(name)) name = `${name}-${number.get(issue.id)}`
    taken.add(name)
    fileNames.set(issue.id, name)
  }
  return (issue: Issue): string => `${notesDir}/${fileNames.get(issue.id)}.md`
}

/** What the plan's text shows besides the options. */
interface PlanParts {
  notesDir: string
  ordered: readonly Issue[]
  waves: number[]
  skipped: readonly Issue[]
  /** The agent sections, as lines. */
  agents: string[]
  agentIds: string[]
  number: ReadonlyMap<string, number>
}

/** The plan: front matter, title, context, the agents, the DAG by wave, and a table with every agent pending. */
function planText(options: IssuesToPlanOptions, {notesDir, ordered, waves, skipped, agents, agentIds, number}: PlanParts): string {
  const out: string[] = []
  const front = [
    ...(options.runner ? [`runner: ${yamlScalar(options.runner)}`] : []),
    ...(options.dataPrograms && options.dataPrograms.length > 0 ? [`template_data_programs: [${options.dataPrograms.map(yamlScalar).join(', ')}]`] : []),
    ...(options.queue ? [`issues: ${yamlScalar(options.queue)}`] : [])]
  if (front.length > 0) out.push('---', ...front, '---', '')
  out.push(`# Parallel Plan: Issues from ${options.source}`, '')
  out.push('## Context', '')
  out.push(`Generated by \`mdplan import ${shellWord(options.source)}\`: ${plural(ordered.length, 'open issue')} in ${plural(waves.length, 'wave')}.`)
  out.push(
    `Each issue has a planning agent (\`P<n>\`) that writes \`${notesDir}/<id>.md\` and an executing agent (\`E<n>\`) that implements that plan.`,
    'Planning agents wait only for the plans of the issues theirs depends on, so the next issue is planned while the current one is executed;',
    'executing agents keep the waves in order.'
  )
  if (skipped.length > 0) out.push('', `Skipped (already completed): ${skipped.map((issue) => `\`${issue.id}\``).join(', ')}.`)
  out.push('', '## Agents', '', ...agents)

  out.push('## DAG Visualization', '', '```')
  for (const wave of waves) {
    const members = ordered.filter((issue) => waveOf(issue) === wave)
    const label = Number.isFinite(wave) ? `Wave ${wave}` : 'No wave'
    out.push(`${label}: ${members.map((issue) => `P${number.get(issue.id)} → E${number.get(issue.id)} (${issue.id})`).join(', ')}`)
  }
  out.push('```', '')

  out.push('## Execution State', '', '_This section is managed by mdplan. Do not edit manually._', '')
  out.push('| Agent | Status | Agent ID | Duration | Notes |', '|-------|--------|----------|----------|-------|')
  for (const id of agentIds) out.push(`| ${id} | pending | — | — | |`)
  out.push('')
  return out.join('\n')
}

/** A generated plan that would not read back as generated: refused, whatever the cause. */
export function mismatch(source: string, problems: string[]): string[] {
  return [`${source}: the plan made from this queue would not hold exactly its agents: ${problems[0]}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}; this is a bug in mdplan import, please report it with the queue`]
}

function waveName(issue: Issue): string {
  return issue.wave === undefined ? 'no wave' : `wave ${issue.wave}`
}

function unique(items: string[]): string[] {
  return [...new Set(items)]
}

function yamlScalar(value: string): string {
  return /^[A-Za-z0-9._/-]+$/.test(value) ? value : JSON.stringify(value)
}

/** A dependency cycle among the open issues, as ids, or undefined. */
function findCycle(issues: readonly Issue[], open: ReadonlySet<string>): string[] | undefined {
  const byId = new Map(issues.map((issue) => [issue.id, issue]))
  const state = new Map<string, 'visiting' | 'done'>()
  const stack: string[] = []
  const visit = (id: string): string[] | undefined => {
    if (state.get(id) === 'done') return undefined
    if (state.get(id) === 'visiting') return [...stack.slice(stack.indexOf(id)), id]
    state.set(id, 'visiting')
    stack.push(id)
    for (const dep of byId.get(id)?.dependsOn ?? []) {
      if (!open.has(dep)) continue
      const found = visit(dep)
      if (found) return found
    }
    stack.pop()
    state.set(id, 'done')
    return undefined
  }
  for (const issue of issues) {
    const found = visit(issue.id)
    if (found) return found
  }
  return undefined
}
