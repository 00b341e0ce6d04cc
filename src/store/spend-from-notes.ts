import {takeNote} from '../plan/take-note.js'
import {shownTokens} from '../plan/shown-tokens.js'
import type {SpendColumns} from '../plan/spend-columns.js'

/** A row's Notes cell and its `Tokens` and `Cost` cells. */
export interface SpendCells {
  notes: string
  tokens: string
  cost: string
}

/**
 * Where the table has a `Tokens` or `Cost` column, the row's spend goes there, out of its Notes: the
 * first `tokens:` and `cost:` items (plan/spend-into-notes.ts puts a cell's figure there when the row is
 * read), the rest of the Notes byte for byte. A token count mdplan wrote (`21002`) is shown as the
 * scorecard shows it (`21,002`); any other text a cell held (`21k`, a person's `abc`) is kept as it is.
 */
export function spendFromNotes(notes: string, spend: SpendColumns): SpendCells {
  const cells: SpendCells = {notes, tokens: '', cost: ''}
  if (spend.tokens !== -1) {
    const taken = takeNote(cells.notes, 'tokens')
    cells.notes = taken.rest
    cells.tokens = shownTokens(taken.value ?? '')
  }
  if (spend.cost !== -1) {
    const taken = takeNote(cells.notes, 'cost')
    cells.notes = taken.rest
    cells.cost = taken.value ?? ''
  }
  return cells
}
