import type {RowState, TableState} from './table-state.js'

/** Rows of the table the executor does not know stay, and stay in the state. */
export function withUnknown(want: TableState, base: TableState): TableState {
  let rows: Map<string, RowState> | undefined
  for (const [agent, row] of base.rows) {
    if (want.rows.has(agent)) continue
    rows ??= new Map(want.rows)
    rows.set(agent, row)
  }
  return rows ? {rows, meta: want.meta} : want
}
