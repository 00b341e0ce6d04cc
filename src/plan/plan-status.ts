import {agentReadiness} from './agent-readiness.js'
import {criticalPath} from './critical-path.js'
import {dependencyClosure} from './dependency-closure.js'
import {getNote} from './notes.js'
import {spendColumns} from './spend-columns.js'
import {spendIntoNotes} from './spend-into-notes.js'
import {spendFigure} from './spend-figure.js'
import {parseWaitLine, readWaitLines} from './wait-line.js'
import {isBudgetLine} from './budget-line.js'
import {budgetUse} from './budget-use.js'
import {statuses, type Plan, type Status} from './types.js'

/**
 * What `mdplan status --json` prints: the plan's state at a glance, from the
 * file alone. Lists are in plan order; absent values are `null`.
 */
export interface PlanStatus {
  file: string
  title: string | null
  /** Number of agents. */
  total: number
  /** Agents per status (every status present, zeros included). */
  counts: Record<Status, number>
  /** Pending agents whose hard dependencies all completed: they would launch now. */
  ready: string[]
  /** `in_progress` agents. */
  running: string[]
  /** Running agents still waiting in a cluster's queue (Notes `queued: since …`, written by a slurm or kubernetes host); absent when none. */
  queued?: Array<{id: string; host: string; since: string}>
  /** Pending agents waiting on hard dependencies that have not completed. */
  blocked: Array<{
    id: string
    /** The direct hard dependencies not completed, with their status. */
    by: Array<{id: string; status: Status}>
    /** Failed agents upstream (direct or not): this agent cannot run until they are fixed. */
    failedUpstream: string[]
  }>
  failed: Array<{id: string; notes: string}>
  needsInput: Array<{id: string; question: string | null}>
  /** Agents whose work awaits a person's review (their `review:` gate): `mdplan review` approves or rejects it. */
  awaitingReview: Array<{id: string; result: string | null}>
  /** Longest chain of hard dependencies; `unit` is `ms` when every agent has `estimated_duration`. */
  criticalPath: {agents: string[]; weight: number; unit: 'ms' | 'agents'}
  started: string | null
  lastUpdated: string | null
  build: string | null
  integration: string | null
  /** Every `Key: value` line after the table, by normalized key (`tests`, `lint`, …); not the wait lines. */
  meta: Record<string, string>
  /**
   * Accounts waiting for a usage limit to reset (the wait lines under the table): nothing launches on them
   * before `resets` (ISO 8601 UTC); absent when none.
   */
  waits?: Array<{account: string; what: string; resets: string}>
  /** What the agents have spent in all, from their Notes (`tokens:`, `cost:`); absent when none says. */
  spent?: {tokens?: number; usd?: number}
  /**
   * The front matter's budget with the spend against it (`summary`: `16.2M of 20M tokens (81 %)`), and whether
   * it is reached (a run launches nothing more until it is raised); absent when the plan has none.
   */
  budget?: {tokens?: number; usd?: number; summary: string; reached: boolean}
  agents: Array<{
    id: string
    name: string
    status: Status
    ready: boolean
    dependsOn: string[]
    softDependsOn: string[]
    estimatedMs: number | null
    agentId: string | null
    duration: string | null
    notes: string | null
  }>
}

/** An agent's `tokens:` and `cost:` (its Notes', or its `Tokens` and `Cost` cells') added to the plan's. */
function addSpent(result: PlanStatus, notes: string): void {
  const tokens = spendFigure('tokens', getNote(notes, 'tokens') ?? '')
  const usd = spendFigure('cost', getNote(notes, 'cost') ?? '')
  if (tokens !== undefined) (result.spent ??= {}).tokens = (result.spent.tokens ?? 0) + tokens
  if (usd !== undefined) (result.spent ??= {}).usd = Math.round(((result.spent.usd ?? 0) + usd) * 10_000) / 10_000
}

/** Compute the status of a parsed plan: pure, no clock, no files. */
export function planStatus(plan: Plan): PlanStatus {
  const readiness = agentReadiness(plan)
  const closure = dependencyClosure(plan.agents)
  const table = plan.state?.table
  const rows = new Map<string, string[]>()
  for (const row of table?.rows ?? []) if (!rows.has(row.agent)) rows.set(row.agent, row.cells.map((cell) => cell.value))
  const cell = (id: string, index: number | undefined): string | null => {
    const value = index === undefined || index < 0 ? undefined : rows.get(id)?.[index]
    return value === undefined || value === '' ? null : value
  }
  const counts = Object.fromEntries(statuses.map((status) => [status, 0])) as Record<Status, number>
  const result: PlanStatus = {
    file: plan.file,
    title: plan.title ?? null,
    total: 0,
    counts,
    ready: [],
    running: [],
    blocked: [],
    failed: [],
    needsInput: [],
    awaitingReview: [],
    criticalPath: criticalPath(plan),
    started: null,
    lastUpdated: null,
    build: null,
    integration: null,
    meta: {},
    agents: []
  }

  const byId = new Map(plan.agents.map((agent) => [agent.id, agent]))
  const spend = spendColumns(table?.columns ?? [])
  for (const [id, state] of readiness) {
    const agent = byId.get(id)!
    result.total++
    counts[state.status]++
    const notes = cell(id, table?.index.notes)
    addSpent(result, spendIntoNotes(notes ?? '', cell(id, spend.tokens) ?? undefined, cell(id, spend.cost) ?? undefined))
    if (state.status === 'pending' && state.ready) result.ready.push(id)
    else if (state.status === 'pending') {
      const failedUpstream = closure.ancestors(id).filter((other) => readiness.get(other)?.status === 'failed')
      result.blocked.push({id, by: state.blockedBy, failedUpstream})
    } else if (state.status === 'in_progress') {
      result.running.push(id)
      const since = /^since (.+)$/.exec(getNote(notes ?? '', 'queued') ?? '')?.[1]
      if (since) (result.queued ??= []).push({id, host: getNote(notes ?? '', 'job')?.split(' ')[0] ?? '', since})
    }
    else if (state.status === 'failed') result.failed.push({id, notes: notes ?? ''})
    else if (state.status === 'needs_input') result.needsInput.push({id, question: notes === null ? null : (getNote(notes, 'question') ?? null)})
    else if (state.status === 'awaiting_review') result.awaitingReview.push({id, result: notes === null ? null : (getNote(notes, 'result') ?? null)})
    result.agents.push({
      id,
      name: agent.name,
      status: state.status,
      ready: state.ready,
      dependsOn: agent.dependsOn.map((ref) => ref.id),
      softDependsOn: agent.softDependsOn.map((ref) => ref.id),
      estimatedMs: agent.estimatedMs ?? null,
      agentId: cell(id, table?.index.agentId),
      duration: cell(id, table?.index.duration),
      notes
    })
  }

  readAfterTable(plan, result)
  result.started = result.meta.started ?? null
  result.lastUpdated = result.meta.last_updated ?? null
  result.build = result.meta.build ?? null
  result.integration = result.meta.integration ?? null
  return result
}

/** The lines after the table (its `Key: value` lines, the wait lines), and the front matter's budget against the spend. */
function readAfterTable(plan: Plan, result: PlanStatus): void {
  for (const line of plan.state?.meta ?? []) {
    const text = `${line.rawKey}: ${line.value}`
    // The wait lines and the budget line are mdplan's, said apart (`waits`, `budget`).
    if (!parseWaitLine(text) && !isBudgetLine(text) && !(line.key in result.meta)) result.meta[line.key] = line.value
  }
  const state = plan.state
  const after = state ? plan.text.slice(state.table?.position.end.offset ?? state.heading.end.offset, state.section.end.offset) : ''
  for (const line of readWaitLines(after.split(/\r?\n/))?.split('\n') ?? []) {
    const wait = parseWaitLine(line)!
    ;(result.waits ??= []).push({account: wait.account, what: wait.what, resets: new Date(wait.at).toISOString().replace('.000Z', 'Z')})
  }
  const budget = plan.settings.budget
  if (budget) {
    const use = budgetUse(budget, result.spent ?? {}, plan.settings.budgetWarn)
    result.budget = {...budget, summary: use.summary, reached: use.level === 'reached'}
  }
}
