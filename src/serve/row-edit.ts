import type {RowState} from '../store/table-state.js'

/** The hand edits the page offers as buttons. */
export const rowEdits = ['requeue', 'retry', 'skip'] as const
export type RowEdit = (typeof rowEdits)[number]

/**
 * The row after the edit a person makes by hand for `edit` (docs/guarantees.md, "Your saves are merged cell by
 * cell"): re-queue and retry set the Status cell to `pending` (the agent runs again, as its next attempt, with
 * one more try), skip sets it to `completed`; no other cell changes. Undefined when the edit does not apply to
 * the row as it is: a running agent's row is not a person's to edit (the run would keep its own value), and an
 * edit that changes nothing is none. Pure.
 */
export function rowEdit(row: RowState, edit: RowEdit): RowState | undefined {
  if (row.status === 'in_progress' && row.held === undefined) return undefined
  const status = edit === 'skip' ? 'completed' : 'pending'
  if (edit === 'retry' && row.status !== 'failed') return undefined
  if (row.held === undefined && row.status === status) return undefined
  const {held: _held, ...rest} = row
  return {...rest, status}
}

/** The edits that apply to a row (the page shows these buttons). */
export function rowEditsFor(row: RowState): RowEdit[] {
  return rowEdits.filter((edit) => rowEdit(row, edit) !== undefined)
}
