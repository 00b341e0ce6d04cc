import type {Scorecard, ScorecardAgent} from '../events.js'
import {statuses, type Plan, type StateRow} from '../plan/types.js'
import {attemptsInNotes, getNote} from '../plan/notes.js'
import {parseDuration} from '../util/parse-duration.js'
import type {TableState} from '../store/table-state.js'

interface RowView {
  status: string
  duration: string
  notes: string
}

interface MetaView {
  started?: string
  lastUpdated?: string
  build?: string
  integration?: string
}

/**
 * The scorecard of a finished or interrupted run, from the plan file alone:
 * `mdplan report` needs no run log, so it works on any plan someone committed.
 * With `state` (the executor's view of the table), the rows and meta lines
 * come from it instead, so a run that just wrote the file need not parse it again.
 */
export function computeScorecard(plan: Plan, state?: TableState): Scorecard {
  const fileMeta = new Map((plan.state?.meta ?? []).map((line) => [line.key, line.value.trim()]))
  // Some plans record `Tests:` instead of `Integration:`.
  const tests = fileMeta.get('tests')
  if (state) {
    const {started, lastUpdated, build, integration} = state.meta
    return scorecardOf(plan, state.rows, {started, lastUpdated, build, integration: integration || tests})
  }
  const table = plan.state?.table
  const rows = new Map<string, RowView>()
  const cell = (row: StateRow, index: number | undefined): string => (index !== undefined && index >= 0 ? (row.cells[index]?.value ?? '') : '')
  for (const row of table?.rows ?? []) {
    if (rows.has(row.agent)) continue
    rows.set(row.agent, {
      status: row.status ?? (row.statusRaw.trim() || 'pending'),
      duration: cell(row, table?.index.duration),
      notes: cell(row, table?.index.notes)
    })
  }
  return scorecardOf(plan, rows, {
    started: fileMeta.get('started'),
    lastUpdated: fileMeta.get('last_updated'),
    build: fileMeta.get('build'),
    integration: fileMeta.get('integration') ?? tests
  })
}

function scorecardOf(plan: Plan, rows: ReadonlyMap<string, RowView>, meta: MetaView): Scorecard {
  const names = new Map(plan.agents.map((agent) => [agent.id, agent.name]))

  // Plan order first, then rows with no agent (kept and reported, as the format says).
  const ids = [...plan.agents.map((agent) => agent.id), ...[...rows.keys()].filter((id) => id !== '' && !names.has(id))]
  const agents: ScorecardAgent[] = []
  const counts: Record<string, number> = Object.fromEntries(statuses.map((status) => [status, 0]))
  let sumOfPartsMs = 0
  let costUsd: number | undefined

  for (const id of ids) {
    const row = rows.get(id)
    const status = row?.status ?? 'pending'
    const notes = row?.notes ?? ''
    const durationMs = parseDuration(row?.duration ?? '')
    const cost = parseCost(getNote(notes, 'cost'))
    const agent: ScorecardAgent = {id, name: names.get(id) ?? '', status, attempts: attemptsOf(status, notes)}
    if (durationMs !== undefined) {
      agent.durationMs = durationMs
      sumOfPartsMs += durationMs
    }
    if (cost !== undefined) {
      agent.costUsd = cost
      costUsd = (costUsd ?? 0) + cost
    }
    agents.push(agent)
    counts[status] = (counts[status] ?? 0) + 1
  }

  const started = timeOf(meta.started)
  const lastUpdated = timeOf(meta.lastUpdated)
  const scorecard: Scorecard = {
    agents,
    sumOfPartsMs,
    build: meta.build || 'not yet run',
    counts
  }
  if (started !== undefined && lastUpdated !== undefined && lastUpdated >= started) {
    scorecard.wallClockMs = lastUpdated - started
    if (scorecard.wallClockMs > 0 && sumOfPartsMs > 0) scorecard.speedup = Math.round((sumOfPartsMs / scorecard.wallClockMs) * 100) / 100
  }
  if (meta.integration) scorecard.integration = meta.integration
  if (costUsd !== undefined) scorecard.costUsd = Math.round(costUsd * 10_000) / 10_000
  return scorecard
}

/**
 * `attempt N: …` notes record the attempts that failed. A row that is running,
 * done or waiting for an answer is on one more attempt than that; a failed
 * row's last failure is already among the notes; a pending row has not
 * started its next one.
 */
function attemptsOf(status: string, notes: string): number {
  const failed = attemptsInNotes(notes)
  const noted = failed.length === 0 ? 0 : Math.max(failed.length, ...failed.map((item) => item.attempt))
  if (status === 'pending') return noted
  if (status === 'failed') return Math.max(noted, 1)
  return noted + 1
}

function timeOf(value: string | undefined): number | undefined {
  if (!value) return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

function parseCost(value: string | undefined): number | undefined {
  const match = value === undefined ? null : /\$?\s*(\d+(?:\.\d+)?)/.exec(value)
  return match ? Number(match[1]) : undefined
}
