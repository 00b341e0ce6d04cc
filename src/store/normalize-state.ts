import {normalizeCell} from './escape-cell.js'
import type {RowState, TableState} from './table-state.js'
import {spendColumns, type SpendColumns} from '../plan/spend-columns.js'
import {spendIntoNotes} from '../plan/spend-into-notes.js'
import {spendFromNotes} from './spend-from-notes.js'

/**
 * Cells as they will read back, in a copy the caller cannot change. A row equal
 * to the base's is the base's row (already as it reads back; the store never
 * changes a row in place): an event changes a row or two, not a thousand.
 */
export function normalizeState(desired: TableState, base: TableState, columns: readonly string[] = []): {state: TableState; changed: string[]; hasBaseRows: boolean} {
  const spend = spendColumns(columns)
  const rows = new Map<string, RowState>()
  // The agents whose row is not the base's: all the render needs to look at.
  const changed: string[] = []
  let known = 0
  for (const [agent, row] of desired.rows) {
    const was = base.rows.get(agent)
    if (was) known++
    if (was && sameRow(row, was)) {
      rows.set(agent, was)
      continue
    }
    const next = normalizeRow(row, spend)
    if (was && sameRow(next, was)) rows.set(agent, was)
    else {
      rows.set(agent, next)
      changed.push(agent)
    }
  }
  // Every agent of the base has a row here (none to carry over from the base).
  const hasBaseRows = known === base.rows.size
  // A meta line the caller does not know of (the `Build: not yet run` a first section got) is the base's still:
  // left out, the next merge took the file's line for a person's edit of it.
  const meta = {...base.meta}
  for (const [name, value] of Object.entries(desired.meta)) if (value !== undefined) meta[name as keyof typeof meta] = value
  return {state: {rows, meta}, changed, hasBaseRows}
}

function sameRow(a: RowState, b: RowState): boolean {
  if (a === b) return true
  if (a.status !== b.status || a.held !== b.held || a.agentId !== b.agentId || a.duration !== b.duration || a.notes !== b.notes) return false
  let count = 0
  for (const column in a.extra) {
    if (a.extra[column] !== b.extra[column]) return false
    count++
  }
  for (const _ in b.extra) count--
  return count === 0
}

const normalized = new WeakMap<RowState, {spend: SpendColumns; notes: string; read: string}>()

/** A row as it reads back. Its Notes once per row object, table and text (a run passes the rows no event touched again). */
export function normalizeRow(row: RowState, spend: SpendColumns): RowState {
  const extra: Record<string, string> = {}
  for (const column of Object.keys(row.extra)) extra[column] = normalizeCell(row.extra[column]!)
  const fields = {...row, agentId: normalizeCell(row.agentId), duration: normalizeCell(row.duration), extra}
  if (spend.tokens === -1 && spend.cost === -1) return {...fields, notes: normalizeCell(row.notes)}
  let known = normalized.get(row)
  if (known?.spend !== spend || known.notes !== row.notes) {
    known = {spend, notes: row.notes, read: spendNotes(normalizeCell(row.notes), spend)}
    normalized.set(row, known)
  }
  return {...fields, notes: known.read}
}

/**
 * Notes as a table with a `Tokens` or `Cost` column reads them back: the figures first, as the cells show
 * them (the executor adds its `tokens:` at the end, in plain digits).
 */
export function spendNotes(notes: string, spend: SpendColumns): string {
  if (spend.tokens === -1 && spend.cost === -1) return notes
  const cells = spendFromNotes(notes, spend)
  return spendIntoNotes(cells.notes, cells.tokens, cells.cost)
}
