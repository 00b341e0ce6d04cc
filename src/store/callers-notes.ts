import {spendColumns} from '../plan/spend-columns.js'
import {normalizeRow} from './normalize-state.js'
import {normalizeCell} from './escape-cell.js'
import type {TableState} from './table-state.js'

/**
 * The table a write left, with each row's Notes as the caller gave them where they read as the file's: a
 * table with a `Tokens` or `Cost` column reads the spend first (`tokens: 21,002; …`), the executor writes it
 * last (`…; tokens: 21002`), and the caller compares what it holds with what is on disk. Changes `state`.
 */
export function callersNotes(state: TableState, desired: TableState, columns: readonly string[] | undefined): TableState {
  const spend = spendColumns(columns ?? [])
  if (spend.tokens === -1 && spend.cost === -1) return state
  for (const [agent, row] of state.rows) {
    const given = desired.rows.get(agent)
    // In one line, trimmed, as every cell reads back.
    const spelled = given && normalizeCell(given.notes)
    if (spelled !== undefined && spelled !== row.notes && normalizeRow(given!, spend).notes === row.notes) state.rows.set(agent, {...row, notes: spelled})
  }
  return state
}
