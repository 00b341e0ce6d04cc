import {editRow} from '../store/edit-row.js'
import {rowEdit, type RowEdit} from './row-edit.js'

export type EditOutcome = {kind: 'written'; status: string} | {kind: 'unknown-agent'} | {kind: 'not-applicable'; status: string}

/** Make the hand edit `edit` in the row of `agent`, through the store (src/store/edit-row.ts). */
export async function applyRowEdit(file: string, agent: string, edit: RowEdit): Promise<EditOutcome> {
  const outcome = await editRow(file, agent, (row) => rowEdit(row, edit))
  return outcome.kind === 'written' ? {kind: 'written', status: outcome.row.status} : outcome
}
