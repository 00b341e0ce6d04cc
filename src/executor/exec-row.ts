import type {Status} from '../plan/types.js'
import type {RowState, TableMeta, TableState} from '../store/table-state.js'
import {noNotes, readNotes, renderNotes, sameNotes, type RowNotes} from './row-notes.js'

/**
 * A row of the table as the executor holds it: the store's row (store/table-state.ts) with its Notes as
 * values (row-notes.ts). Rows are replaced, never changed in place: a changed row is a new object (the
 * scheduler's kept assessments and the store's splice both go by identity).
 */
export interface ExecRow {
  status: Status
  /** The `Agent ID` cell; '' for none. */
  agentId: string
  duration: string
  notes: RowNotes
  /** User-added columns by header text. */
  extra: Record<string, string>
  /** A Status cell holding no status mdplan knows, as written (see RowState.held). */
  held?: string
}

export interface ExecTable {
  /** By agent id; plan order, then rows the plan does not know. */
  rows: Map<string, ExecRow>
  meta: TableMeta
}

/**
 * The store's edge. The table comes in as the store reads it (`execTable`, `execRow`) and goes out as
 * the store writes it (`storeTable`, `storeRow`). Notes text is read and rendered here, and at the two
 * other edges only: adoptWrite (a person's Notes edit is merged as text, then read) and the prepare
 * effect (git and the hosts read `base:` from the text). A row that goes back unchanged goes back as
 * the very object it came in as (the store's splice and row history go by identity), and a changed
 * row is rendered once, so a write renders only the rows that changed.
 */
const asStored = new WeakMap<ExecRow, RowState>()

export function execRow(row: RowState): ExecRow {
  const next: ExecRow = {status: row.status, agentId: row.agentId, duration: row.duration, notes: readNotes(row.notes), extra: row.extra}
  if (row.held !== undefined) next.held = row.held
  asStored.set(next, row)
  return next
}

export function storeRow(row: ExecRow): RowState {
  let stored = asStored.get(row)
  if (stored === undefined) {
    stored = {status: row.status, agentId: row.agentId, duration: row.duration, notes: renderNotes(row.notes), extra: row.extra}
    if (row.held !== undefined) stored.held = row.held
    asStored.set(row, stored)
  }
  return stored
}

export function execTable(table: TableState): ExecTable {
  const rows = new Map<string, ExecRow>()
  for (const [agent, row] of table.rows) rows.set(agent, execRow(row))
  return {rows, meta: {...table.meta}}
}

export function storeTable(table: ExecTable): TableState {
  const rows = new Map<string, RowState>()
  for (const [agent, row] of table.rows) rows.set(agent, storeRow(row))
  return {rows, meta: {...table.meta}}
}

/** A row no run has touched: `pending`, no Agent ID, Duration or Notes. */
export function emptyExecRow(): ExecRow {
  return {status: 'pending', agentId: '', duration: '', notes: noNotes, extra: {}}
}

/** Every cell the same, as the table would show them. */
export function sameCells(a: ExecRow, b: ExecRow): boolean {
  return a.status === b.status && a.held === b.held && a.agentId === b.agentId && a.duration === b.duration && a.extra === b.extra && sameNotes(a.notes, b.notes)
}
