import type {Scorecard, ScorecardAgent} from '../events.js'
import {statuses, type Budget, type Plan} from '../plan/types.js'
import {attemptsInNotes, getNote} from '../plan/notes.js'
import {formatDuration} from '../util/format-duration.js'
import {parseDuration} from '../util/parse-duration.js'
import {notesOfCells, type TableState} from '../store/table-state.js'
import {spendFigure} from '../plan/spend-figure.js'
import {parseJobNote} from '../hosts/job-key.js'

interface RowView {
  status: string
  /** A status mdplan does not know, as written (a held row): shown instead of `status`. */
  held?: string
  duration: string
  notes: string
}

interface MetaView {
  started?: string
  lastUpdated?: string
  build?: string
  integration?: string
  /** A `Tests:` line (some plans record a test count there): shown as what it is, never as the integration result. */
  tests?: string
}

export interface ScorecardOptions {
  /** Each agent's runner (`claude`, `codex`, …): what they spent is also totalled per runner. */
  runnerOf?: (id: string) => string | undefined
  /**
   * The agents whose work falls in the timing the file records (from the run log): the others ran in an
   * earlier run, so their durations are shown but not summed against this run's wall-clock.
   */
  timed?: ReadonlySet<string>
  /** `false`: nothing launched in this run, so it has no times of its own. */
  ran?: boolean
  /**
   * The highest attempt number each agent ran as (this run's, and the logs' on disk): a re-queued agent
   * that completed as attempt 2 shows 2, though its Notes record no failure.
   */
  attempts?: ReadonlyMap<string, number>
  /**
   * What agents' last attempts took, in ms, as the run that settled them measured it: counted instead of
   * the rounded Duration cell while the row still says that attempt's duration.
   */
  tookMs?: ReadonlyMap<string, number>
  /** The budget the spend is against (the run's; `mdplan report`: the front matter's). */
  budget?: Budget
}

/**
 * The scorecard of a finished or interrupted run, from the plan file alone:
 * `mdplan report` needs no run log, so it works on any plan someone committed.
 * With `state` (the executor's view of the table), the rows and meta lines
 * come from it instead, so a run that just wrote the file need not parse it again.
 */
export function computeScorecard(plan: Plan, state?: TableState, options: ScorecardOptions = {}): Scorecard {
  const fileMeta = new Map((plan.state?.meta ?? []).map((line) => [line.key, line.value.trim()]))
  // Some plans record `Tests:` instead of `Integration:`.
  const tests = fileMeta.get('tests')
  if (state) {
    const {started, lastUpdated, build, integration} = state.meta
    return scorecardOf(plan, state.rows, {started, lastUpdated, build, integration, tests}, options)
  }
  const table = plan.state?.table
  const rows = new Map<string, RowView>()
  for (const row of table?.rows ?? []) {
    if (rows.has(row.agent) || !table) continue
    // Durations in the Notes where there is no Duration column (`took 3m 12s`), the spend in its columns where there are.
    rows.set(row.agent, {status: row.status ?? (row.statusRaw.trim() || 'pending'), ...notesOfCells(row.cells.map((cell) => cell.value), table)})
  }
  return scorecardOf(
    plan,
    rows,
    {started: fileMeta.get('started'), lastUpdated: fileMeta.get('last_updated'), build: fileMeta.get('build'), integration: fileMeta.get('integration'), tests},
    options
  )
}

function scorecardOf(plan: Plan, rows: ReadonlyMap<string, RowView>, meta: MetaView, options: ScorecardOptions): Scorecard {
  const names = new Map(plan.agents.map((agent) => [agent.id, agent.name]))

  // Plan order first, then rows with no agent (kept and reported, as the format says).
  const ids = [...plan.agents.map((agent) => agent.id), ...[...rows.keys()].filter((id) => id !== '' && !names.has(id))]
  const agents: ScorecardAgent[] = []
  const counts: Record<string, number> = Object.fromEntries(statuses.map((status) => [status, 0]))
  let sumOfPartsMs = 0
  let costUsd: number | undefined
  let tokens: number | undefined
  const byRunner: Record<string, {tokens?: number; usd?: number}> = {}

  for (const id of ids) {
    const row = rows.get(id)
    // A run's held row (a status mdplan does not know): its text, marked, and counted as held, not as that text.
    const status = row?.held !== undefined ? `${row.held || '—'} (held)` : (row?.status ?? 'pending')
    const notes = row?.notes ?? ''
    const took = options.tookMs?.get(id)
    const durationMs = took !== undefined && row?.duration === formatDuration(took) ? took : parseDuration(row?.duration ?? '')
    const cost = parseCost(getNote(notes, 'cost'))
    const launched = row?.held === undefined ? (options.attempts?.get(id) ?? 0) : 0
    const agent: ScorecardAgent = {id, name: names.get(id) ?? '', status, attempts: Math.max(attemptsOf(status, notes), launched)}
    const host = parseJobNote(getNote(notes, 'job'))?.host ?? getNote(notes, 'host')?.trim()
    if (host) agent.host = host
    if (durationMs !== undefined) {
      agent.durationMs = durationMs
      if (!options.timed || options.timed.has(id)) sumOfPartsMs += durationMs
    }
    if (cost !== undefined) {
      agent.costUsd = cost
      costUsd = (costUsd ?? 0) + cost
    }
    const used = parseTokens(getNote(notes, 'tokens'))
    if (used !== undefined) {
      agent.tokens = used
      tokens = (tokens ?? 0) + used
    }
    addByRunner(byRunner, options.runnerOf?.(id), agent)
    agents.push(agent)
    const counted = row?.held !== undefined ? 'held' : status
    counts[counted] = (counts[counted] ?? 0) + 1
  }

  const started = timeOf(meta.started)
  const lastUpdated = timeOf(meta.lastUpdated)
  const scorecard: Scorecard = {agents, sumOfPartsMs, counts}
  if (options.ran === false) {
    // An earlier run's times beside this run's figures would describe neither.
    scorecard.nothingRan = true
    scorecard.sumOfPartsMs = 0
  } else if (started !== undefined && lastUpdated !== undefined && lastUpdated >= started) {
    scorecard.wallClockMs = lastUpdated - started
    if (scorecard.wallClockMs > 0 && sumOfPartsMs > 0) scorecard.speedup = Math.round((sumOfPartsMs / scorecard.wallClockMs) * 100) / 100
  }
  // Steps the plan does not have are left out; a result the file records (a hand-driven run's) is shown.
  const recorded = (value: string | undefined): boolean => value !== undefined && value !== '' && value !== 'not yet run'
  if (plan.settings.build !== undefined || recorded(meta.build)) scorecard.build = meta.build || 'not yet run'
  if (plan.integrationTests.length > 0 || recorded(meta.integration)) scorecard.integration = meta.integration || 'not yet run'
  if (meta.tests) scorecard.tests = meta.tests
  if (costUsd !== undefined) scorecard.costUsd = Math.round(costUsd * 10_000) / 10_000
  if (tokens !== undefined) scorecard.tokens = tokens
  if (Object.keys(byRunner).length > 0) scorecard.spentByRunner = byRunner
  const budget = options.budget ?? plan.settings.budget
  if (budget) scorecard.budget = {...budget}
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
  // A held row (a status mdplan does not know) was not launched, as a pending one.
  if (status === 'pending' || !(statuses as readonly string[]).includes(status)) return noted
  if (status === 'failed') return Math.max(noted, 1)
  return noted + 1
}

function timeOf(value: string | undefined): number | undefined {
  if (!value) return undefined
  const ms = Date.parse(value)
  return Number.isNaN(ms) ? undefined : ms
}

/** An agent's spend added to its runner's. */
function addByRunner(byRunner: Record<string, {tokens?: number; usd?: number}>, runner: string | undefined, agent: ScorecardAgent): void {
  if (runner === undefined || (agent.tokens === undefined && agent.costUsd === undefined)) return
  const total = (byRunner[runner] ??= {})
  if (agent.tokens !== undefined) total.tokens = (total.tokens ?? 0) + agent.tokens
  if (agent.costUsd !== undefined) total.usd = Math.round(((total.usd ?? 0) + agent.costUsd) * 10_000) / 10_000
}

function parseTokens(value: string | undefined): number | undefined {
  return value === undefined ? undefined : spendFigure('tokens', value)
}

function parseCost(value: string | undefined): number | undefined {
  return value === undefined ? undefined : spendFigure('cost', value)
}
