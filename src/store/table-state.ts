import {noneAsEmpty} from '../plan/none-as-empty.js'
import type {Plan, StateTable, Status} from '../plan/types.js'
import {durationFromNotes} from './duration-in-notes.js'
import {readWaitLines} from '../plan/wait-line.js'
import {readBudgetLine} from '../plan/budget-line.js'
import {spendColumns} from '../plan/spend-columns.js'
import {spendIntoNotes} from '../plan/spend-into-notes.js'

export interface RowState {
  status: Status
  /** The `Agent ID` cell (`agent-abc123`); '' for none. */
  agentId: string
  duration: string
  notes: string
  /** User-added columns by header text. */
  extra: Record<string, string>
  /**
   * A Status cell holding no status mdplan knows (`skipped`, or empty), as the person wrote it. Such an
   * agent is held: never launched, its cell written back as it is (`status` reads `pending` for code
   * that only needs a status), until the person writes a known one.
   */
  held?: string
}

/** The Status cell as the table shows it: the held text, or the status. */
export function statusCell(row: RowState): string {
  return row.held ?? row.status
}

export interface TableMeta {
  started?: string
  lastUpdated?: string
  build?: string
  integration?: string
  /**
   * The accounts waiting for a usage limit to reset, one line each (wait-line.ts), joined by `\n`; '' when
   * none (the lines are removed). Not `Key: value` lines: they are written and read apart from the four above.
   */
  waits?: string
  /**
   * The line saying what has been spent against the plan's budget (budget-line.ts); '' when none (the line
   * is removed). mdplan's alone: a run writes it from the rows' spend and the budget.
   */
  budget?: string
}

export interface TableState {
  /** By agent id; plan order, then rows the plan does not know. */
  rows: Map<string, RowState>
  meta: TableMeta
}

/** The four meta lines mdplan owns, in the order it adds them. */
export const metaKeys = [
  ['started', 'started', 'Started'],
  ['lastUpdated', 'last_updated', 'Last updated'],
  ['build', 'build', 'Build'],
  ['integration', 'integration', 'Integration']
] as const

export function emptyRow(): RowState {
  return {status: 'pending', agentId: '', duration: '', notes: '', extra: {}}
}

/** A row no run has touched: `pending`, with no Agent ID, Duration or Notes (an `emptyRow`). */
export function untouchedRow(row: RowState): boolean {
  return row.status === 'pending' && row.held === undefined && row.agentId === '' && row.duration === '' && row.notes === ''
}

/**
 * The table as the file has it: a row for every agent (agents without a row
 * read as pending with empty cells), then rows the plan does not know.
 * `—` and empty cells read as ''.
 */
export function tableStateFromPlan(plan: Plan): TableState {
  const found = readRows(plan)
  const rows = new Map<string, RowState>()
  for (const agent of plan.agents) rows.set(agent.id, found.get(agent.id) ?? emptyRow())
  for (const [id, row] of found) if (!rows.has(id)) rows.set(id, row)
  return {rows, meta: readMeta(plan)}
}

/** Only the rows the table really has, in table order (the first row wins for a repeated agent). */
export function readRows(plan: Plan): Map<string, RowState> {
  const rows = new Map<string, RowState>()
  const table = plan.state?.table
  if (!table) return rows
  for (const row of table.rows) {
    if (row.agent === '' || rows.has(row.agent)) continue
    rows.set(row.agent, rowFromCells(row.cells.map((cell) => cell.value), row.status, table))
  }
  return rows
}

export function rowFromCells(values: readonly string[], status: Status | undefined, table: Pick<StateTable, 'columns' | 'index'>): RowState {
  const {index} = table
  const at = (i: number): string => (i === -1 ? '' : noneAsEmpty(values[i] ?? ''))
  const spend = spendColumns(table.columns)
  const extra: Record<string, string> = {}
  table.columns.forEach((column, i) => {
    if (isStandard(i, index) || i === spend.tokens || i === spend.cost || column in extra) return
    extra[column] = noneAsEmpty(values[i] ?? '')
  })
  const held = status === undefined ? {held: (values[index.status] ?? '').trim()} : {}
  return {status: status ?? 'pending', agentId: at(index.agentId), ...notesOfCells(values, table), extra, ...held}
}

/**
 * A row's Notes and Duration from its cells. No Duration column: the duration lives in the Notes as
 * `took 3m 12s`. A `Tokens` or `Cost` column: the spend lives there, and reads as the Notes' `tokens:` and
 * `cost:` (spend-into-notes.ts), so the rest of mdplan reads the spend from the Notes either way.
 */
export function notesOfCells(values: readonly string[], table: Pick<StateTable, 'columns' | 'index'>): {duration: string; notes: string} {
  const {index} = table
  const at = (i: number): string => (i === -1 ? '' : noneAsEmpty(values[i] ?? ''))
  const spend = spendColumns(table.columns)
  const read = index.duration === -1 && index.notes !== -1 ? durationFromNotes(at(index.notes)) : {duration: at(index.duration), notes: at(index.notes)}
  if (spend.tokens === -1 && spend.cost === -1) return read
  return {duration: read.duration, notes: spendIntoNotes(read.notes, at(spend.tokens), at(spend.cost))}
}

export function readMeta(plan: Plan): TableMeta {
  const meta: TableMeta = {}
  for (const line of plan.state?.meta ?? []) {
    for (const [name, key] of metaKeys) {
      if (line.key === key && meta[name] === undefined) meta[name] = noneAsEmpty(line.value.trim())
    }
  }
  const state = plan.state
  if (state) {
    const after = plan.text.slice(state.table?.position.end.offset ?? state.heading.end.offset, state.section.end.offset)
    const lines = after.split(/\r?\n/)
    const waits = readWaitLines(lines)
    if (waits !== undefined) meta.waits = waits
    const budget = readBudgetLine(lines)
    if (budget !== undefined) meta.budget = budget
  }
  return meta
}

export function isStandard(i: number, index: StateTable['index']): boolean {
  return i === index.agent || i === index.status || i === index.agentId || i === index.duration || i === index.notes
}

export function cloneState(state: TableState): TableState {
  const rows = new Map<string, RowState>()
  for (const [id, row] of state.rows) rows.set(id, {...row, extra: {...row.extra}})
  return {rows, meta: {...state.meta}}
}
