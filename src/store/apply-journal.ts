import type {JournalEntry} from './journal-lines.js'
import {mergeState} from './merge-state.js'
import type {TableState} from './table-state.js'

/**
 * The table with a journal's rows merged in, cell by cell against the rows
 * the file had when they were kept: a cell only a person changed since keeps
 * their value; a cell both changed takes the journal's (mdplan knew it; a
 * `git checkout` of the plan must not make a completed agent run again).
 * `inFile`: whether the file has a row for the agent (a missing one reads as
 * `pending` in `table`, and is no person's edit). Pure.
 */
export function applyJournal(table: TableState, entries: readonly JournalEntry[], inFile?: (agent: string) => boolean): TableState {
  if (entries.length === 0) return table
  const base: TableState = {rows: new Map(), meta: table.meta}
  const mine: TableState = {rows: new Map(), meta: table.meta}
  for (const entry of entries) {
    mine.rows.set(entry.agent, entry.row)
    // A row the file does not have (its table, or the whole section, taken away since) says nothing: the journal's stands.
    const absent = inFile !== undefined && !inFile(entry.agent)
    base.rows.set(entry.agent, absent ? (table.rows.get(entry.agent) ?? entry.row) : (entry.base ?? table.rows.get(entry.agent) ?? entry.row))
  }
  const merged = mergeState(base, mine, table, new Set(entries.map((entry) => entry.agent)))
  // Rows the journal does not name stay as the file has them, in the file's order.
  const rows = new Map(table.rows)
  for (const [agent, row] of merged.state.rows) rows.set(agent, row)
  return {rows, meta: table.meta}
}
