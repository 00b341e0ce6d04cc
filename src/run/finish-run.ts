import type {Scorecard} from '../events.js'
import type {Budget, Plan} from '../plan/types.js'
import type {GitGuard} from '../git/git-guard.js'
import type {PlanStore} from '../store/plan-store.js'
import {computeScorecard} from '../report/compute-scorecard.js'
import {exitCodes} from '../exit-codes.js'
import type {Emitted} from '../executor/exec-effect.js'
import type {ExecState} from '../executor/exec-state.js'
import {verify} from './verify.js'
import {unrecordedRows} from '../executor/unrecorded-rows.js'
import {storeTable} from '../executor/exec-row.js'
import {appendJournal} from '../store/append-journal.js'
import type {Assessment} from '../schedule/assess-agents.js'
import type {RowState} from '../store/table-state.js'
import {relative} from 'node:path'
import {shellWord} from '../util/shell-word.js'

const zeroSpan = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

/**
 * The end of a run, once the executor is done: git's report, the build and
 * integration tests when every agent completed, the last write, the exit
 * code (0 only when every agent in the file completed and verification
 * passed) and the scorecard.
 */
export async function finishRun(input: {
  plan: Plan
  state: ExecState
  runStart: number
  emit: (event: Emitted) => void
  /** Set when the run ends before the executor ran (pre-verification failed). */
  exitCode?: number
  store?: PlanStore
  git?: GitGuard
  verifyAfter?: {cwd: string; file: string; signal?: AbortSignal}
  /** The agents whose work falls in the timing the table records (the run log's), asked at the very end. */
  timed?: () => ReadonlySet<string> | undefined
  /** Each agent's runner, for the scorecard's spend per runner. */
  runnerOf?: (id: string) => string | undefined
  /** The run's budget, for the scorecard's spend against it. */
  budget?: Budget
  /** Rows the run journaled already, when its write failed (not appended twice). */
  journaled?: (agent: string, row: RowState) => boolean
}): Promise<{exitCode: number; scorecard: Scorecard}> {
  const {plan, state, emit, store} = input
  let exitCode = input.exitCode
  if (exitCode === undefined) {
    // A run that lost its lock says so with the lock's exit code; what it knew is kept in the journal below.
    if (state.lockLost !== undefined) exitCode = exitCodes.locked
    else if (state.stopping) {
      // Ended by the budget (`on_budget: stop`) the way Ctrl-C ends a run: resumable, with the budget's code.
      exitCode = state.budget?.stopped && state.budget.reached !== undefined ? budgetRun(state.budget.reached, emit) : exitCodes.interrupted
      if (state.write.failed !== undefined && store) await writeLast(store, state, emit)
    } else {
      for (const message of input.git?.report() ?? []) emit({type: 'warning', message})
      const allCompleted = state.order.every((id) => state.table.rows.get(id)?.status === 'completed')
      let verified = true
      if (allCompleted && state.write.failed === undefined && input.verifyAfter) {
        const before = JSON.stringify(state.table.meta)
        verified = await verifyAfter(plan, state, input.verifyAfter, emit)
        if (store && JSON.stringify(state.table.meta) !== before) await writeLast(store, state, emit)
      }
      if (state.write.failed !== undefined && store) await writeLast(store, state, emit)
      exitCode = allCompleted && verified && state.write.failed === undefined ? exitCodes.ok : exitCodes.failed
      if (!allCompleted && state.limited !== undefined) exitCode = limitedRun(state.limited, emit)
      if (!allCompleted && state.budget?.held && state.budget.reached !== undefined) exitCode = budgetRun(state.budget.reached, emit)
      const unfinished = state.order.filter((id) => state.table.rows.get(id)?.status !== 'completed')
      if (!allCompleted && !state.failFastTripped && unfinished.length > 0 && exitCode !== exitCodes.ok) {
        emit({type: 'warning', message: `not completed: ${unfinished.map((id) => `${id} (${shownStatus(state.table.rows.get(id), state.assessed?.assessments.get(id))})`).join(', ')}`})
        const review = reviewHint(state, input.verifyAfter)
        if (review) emit({type: 'warning', message: review})
      }
    }
  }
  if (store && (state.lockLost !== undefined || state.write.failed !== undefined)) keepUnrecorded(store.file, state, emit, input.journaled)
  // A run that launched nothing has no times of its own: its scorecard says so instead.
  const ran = state.firstLaunchAt !== undefined
  const scorecard: Scorecard = {
    // Agents a person added during the run count too.
    ...computeScorecard({...plan, agents: [...state.agents]}, storeTable(state.table), {ran, timed: input.timed?.(), attempts: state.attemptsSeen, ...(input.runnerOf ? {runnerOf: input.runnerOf} : {}), ...(input.budget ? {budget: input.budget} : {}), ...(state.tookMs ? {tookMs: state.tookMs} : {})}),
    ...(ran ? {peakConcurrency: state.peakConcurrency} : {}),
    discoveries: state.discoveries.map((d) => `${d.agent}: ${d.text}`)
  }
  if (ran) {
    // The run's own millisecond clock, not the table's whole-second stamps (a short run read 0ms): the
    // table keeps its stamps, which `mdplan report` reads.
    scorecard.wallClockMs = Math.max(0, Date.now() - timingStart(state, input.runStart))
    delete scorecard.speedup
    if (scorecard.wallClockMs > 0 && scorecard.sumOfPartsMs > 0) scorecard.speedup = Math.round((scorecard.sumOfPartsMs / scorecard.wallClockMs) * 100) / 100
  }
  emit({type: 'run-finished', exitCode, scorecard})
  return {exitCode, scorecard}
}

/**
 * When the timing the table records began, in ms: this run's first launch when the run wrote `Started:` then
 * (to the second), else that stamp (an earlier run's, resumed: whole seconds are all there is of it).
 */
function timingStart(state: ExecState, runStart: number): number {
  const first = state.firstLaunchAt ?? runStart
  const stamp = Date.parse(state.table.meta.started ?? '')
  return Number.isNaN(stamp) || stamp >= Math.floor(first / 1000) * 1000 ? first : stamp
}

async function verifyAfter(plan: Plan, state: ExecState, where: {cwd: string; file: string; signal?: AbortSignal}, emit: (event: Emitted) => void): Promise<boolean> {
  const phases: Array<['build' | 'integration', Plan['integrationTests']]> = []
  if (plan.settings.build) phases.push(['build', [{lang: 'sh', script: plan.settings.build, position: plan.settings.position ?? zeroSpan}]])
  if (plan.integrationTests.length > 0) phases.push(['integration', plan.integrationTests])
  for (const [phase, commands] of phases) {
    // Nothing ran in this run and this phase passed before: the file stays as it is.
    if (state.firstLaunchAt === undefined && state.table.meta[phase] === 'pass') continue
    const previous = /fail \((\d+) attempts?\)/.exec(state.table.meta[phase] ?? '')
    const attempt = (previous ? Number(previous[1]) : 0) + 1
    const ok = await verify({phase, commands, attempt, emit, ...where})
    state.table.meta[phase] = ok ? 'pass' : `fail (${attempt} ${attempt === 1 ? 'attempt' : 'attempts'})`
    if (!ok) return false
  }
  return true
}

/** One more write after the executor finished (verification results, or what a failing store could not record). */
async function writeLast(store: PlanStore, state: ExecState, emit: (event: Emitted) => void): Promise<void> {
  try {
    const result = await store.write(storeTable(state.table), {running: new Set(), readOnly: true})
    state.write.failed = undefined
    state.write.onDisk = result.state
    if (result.bytes > 0) emit({type: 'state-written', file: store.file, bytes: result.bytes, ms: result.ms})
  } catch (error) {
    state.write.failed = error instanceof Error ? error.message : String(error)
  }
}

/**
 * Nothing the run knew is lost: rows the table could not take go to the plan's journal (synced), which
 * the next run applies before it decides anything. Never into the table after a lost lock: the table
 * may be another run's by now.
 */
function keepUnrecorded(file: string, state: ExecState, emit: (event: Emitted) => void, journaled?: (agent: string, row: RowState) => boolean): void {
  const rows = unrecordedRows(state)
  const why = state.lockLost !== undefined ? `the run lock was lost (${state.lockLost})` : `the plan could not be written (${state.write.failed})`
  if (rows.length === 0) {
    emit({type: 'warning', message: `${why}; every row was already recorded`})
    return
  }
  const what = rows.map(({agent, row}) => `${agent} ${row.status}`).join(', ')
  try {
    const journal = appendJournal(file, rows.filter(({agent, row}) => !journaled?.(agent, row)))
    emit({type: 'warning', message: `${why}: not recorded in the table: ${what}; kept in ${journal}, which the next run applies before it launches anything`})
  } catch (error) {
    emit({type: 'warning', message: `${why}: not recorded: ${what}; the journal could not be written either (${error instanceof Error ? error.message : String(error)})`})
  }
}

/**
 * The run ended with work held for a person's review (docs/review.md): which agents, and the commands that
 * approve or send back. The exit code is 1, as for an open question: the run needs a person.
 */
function reviewHint(state: ExecState, where: {cwd: string; file: string} | undefined): string | undefined {
  const waiting = state.order.filter((id) => state.table.rows.get(id)?.status === 'awaiting_review' && state.table.rows.get(id)?.held === undefined)
  if (waiting.length === 0) return undefined
  const plan = shellWord(where ? relative(where.cwd, where.file) || where.file : 'plan.md')
  return `awaiting review: ${waiting.join(', ')}; approve with \`mdplan review ${plan} ${waiting[0]} --approve\` or send back with \`mdplan review ${plan} ${waiting[0]} --reject "why"\`, then run again`
}

/** The run ended because what is left can launch only after a usage limit resets: say when to run again. */
function limitedRun(limited: NonNullable<ExecState['limited']>, emit: (event: Emitted) => void): number {
  const when = new Date(limited.until).toISOString().replace(/\.\d{3}Z$/, 'Z')
  const who = limited.accounts.join(', ')
  emit({type: 'warning', message: `usage limit: nothing more can launch before ${when} (${who}); run again after ${when}, or with --wait-for-reset to wait`})
  return exitCodes.limited
}

/** The run ended because the plan's budget is spent: say how to go on. */
function budgetRun(reached: string, emit: (event: Emitted) => void): number {
  emit({type: 'warning', message: `${reached}: nothing more was launched; raise \`budget\` in the front matter (or \`mdplan answer PLAN --budget <more>\`) and run again to go on`})
  return exitCodes.budget
}

/** A row's status as the end of a run names it: a held row (a status mdplan does not know, a host the run lacks) says so. */
function shownStatus(row: Pick<RowState, 'status' | 'held'> | undefined, assessment: Assessment | undefined): string {
  if (assessment?.kind === 'held' && assessment.why === 'unknown host') return `${row?.status ?? 'pending'}, held: its \`host\` names a host this run does not have`
  if (row?.held === undefined) return row?.status ?? 'pending'
  return `held: ${row.held === '' ? 'empty status' : `unknown status \`${row.held}\``}`
}
