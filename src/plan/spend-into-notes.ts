import {formatNotes, type NoteItem} from './notes.js'
import {shownTokens} from './shown-tokens.js'
import {noneAsEmpty} from './none-as-empty.js'

/**
 * A row's Notes as the rest of mdplan reads them, from a table with a `Tokens` or `Cost` column: the
 * cells' figures as the Notes' first `tokens:` and `cost:` items, before the cell's own (the first item of
 * a key is its value, so the column wins over a `tokens:` left in the Notes). The store splits them out
 * again when it writes the row (store/spend-from-notes.ts), so a row read and written back keeps its bytes.
 * An empty cell adds nothing: a `tokens:` the Notes have (the column added later) still counts. A count is
 * read as the table shows it (shown-tokens.ts: `21,002` for a person's `21002`), so a row reads alike
 * before and after the store writes it.
 */
export function spendIntoNotes(notes: string, tokens: string | undefined, cost: string | undefined): string {
  const items: NoteItem[] = []
  if (tokens !== undefined && noneAsEmpty(tokens.trim()) !== '') items.push({key: 'tokens', value: shownTokens(tokens.trim())})
  if (cost !== undefined && noneAsEmpty(cost.trim()) !== '') items.push({key: 'cost', value: cost.trim()})
  if (items.length === 0) return notes
  if (notes !== '') items.push({value: '', raw: notes})
  return formatNotes(items)
}
