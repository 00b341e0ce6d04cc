import {resetMargin} from './reset-margin.js'
import type {Diagnostic, Plan} from '../plan/types.js'
import {longestRemainingPath} from '../plan/longest-remaining-path.js'
import {readRows, type TableState} from '../store/table-state.js'
import {readJournal, removeJournal} from '../store/read-journal.js'
import type {JournalEntry} from '../store/journal-lines.js'
import {applyJournal} from '../store/apply-journal.js'
import {journalFile} from '../store/journal-file.js'
import {readSideState} from '../store/read-side-state.js'
import {sameRow} from '../executor/unrecorded-rows.js'
import {createExecState} from '../executor/create-exec-state.js'
import type {ExecState} from '../executor/exec-state.js'
import {loggedAttempts} from '../layout/logged-attempts.js'
import {restoreAnswers} from '../protocol/restore-answers.js'
import type {RunSetup} from './run-setup.js'

/**
 * The state a run starts from, read once it holds the plan: the table, a side-file's progress brought in, what
 * an earlier run journaled applied, the answers restored; what it finds is said as warnings. `current` is the
 * plan as the answers left it; `journal` and `table` seed the run's journal keeper.
 */
export async function startExecState(
  setup: Pick<RunSetup, 'options' | 'plan' | 'store' | 'file' | 'cwd' | 'emit'>,
  templates: readonly Diagnostic[]
): Promise<{state: ExecState; current: Plan; journal: JournalEntry[]; table: TableState}> {
  const {options, plan, store, file, cwd, emit} = setup
  // A plan whose progress lives in the JSON side-file some executors moved to: brought into the table,
  // once, while the table has no progress of its own (read the same way as validate and --dry-run).
  const side = readSideState(plan, file, options.sideState)
  const read = side.imported ? side.state : store.state
  // What an earlier run knew and could not write (a damaged table, a lost lock) comes first: completed stays completed.
  // A row the file already says (journaled, then written before the journal was cut) is applied once.
  const journaled = readJournal(file)
  const journal = journaled.filter((entry) => !read.rows.has(entry.agent) || !sameRow(read.rows.get(entry.agent)!, entry.row))
  if (journaled.length > 0 && journal.length === 0) removeJournal(file)
  // The rows are read once: read per agent, this test cost a million row reads at 1000 agents (most of a first launch).
  const recorded = plan.state ? readRows(plan) : undefined
  const table = applyJournal(read, journal, side.imported ? undefined : (agent) => recorded?.has(agent) === true)
  if (journal.length > 0) {
    emit({type: 'warning', message: `applied ${journal.length} ${journal.length === 1 ? 'row' : 'rows'} an earlier run could not record (${journal.map((entry) => `${entry.agent} ${entry.row.status}`).join(', ')}) from ${journalFile(file)}`})
  }
  // The file lacks rows (or the whole section), or the side-file's progress is new: the first write adds them.
  const dirty = side.imported !== undefined || journal.length > 0 || store.startsStale || !recorded || plan.agents.some((agent) => !recorded.has(agent.id))
  for (const d of side.diagnostics.filter((d) => d.severity === 'warning')) emit({type: 'warning', message: d.reason})
  if (side.imported) emit({type: 'warning', message: `imported ${side.imported} into the Execution State table`})
  // Nothing runs and something is left to do (a finished run with rows set back to `pending`, or one that
  // ended with failures): this run is timed on its own, from its first launch. A resumed run keeps its timing.
  const rowStatuses = plan.agents.map((agent) => table.rows.get(agent.id)?.status ?? 'pending')
  const newTiming = rowStatuses.every((status) => status !== 'in_progress' && status !== 'needs_input') && rowStatuses.some((status) => status !== 'completed')
  // A template the plan allows to run prompt text as code is said on every run, as validate says it.
  for (const d of templates.filter((d) => d.severity === 'warning')) emit({type: 'warning', message: `${d.reason} [${d.rule}]`})
  const current = await restoreAnswers({store, file, rows: table.rows, warn: (message) => emit({type: 'warning', message})})
  const state = createExecState({agents: plan.agents, priority: longestRemainingPath(plan), table, onDisk: store.state, rateLimitPauseMs: options.rateLimitPauseMs ?? 60_000, resetMarginMs: resetMargin(), dirty, newTiming, attempts: loggedAttempts(file, cwd)})
  return {state, current, journal, table}
}
