import {formatNotes, parseNotes} from '../plan/notes.js'
import type {RowState} from './table-state.js'

/** A person's decision on work a review gate holds: approve it, or send it back with a note. */
export type ReviewDecision = {kind: 'approve'} | {kind: 'reject'; note: string}

/**
 * The row after the hand edit that makes `decision` (docs/review.md), on a row `awaiting_review`:
 *
 * - approve: the Status cell becomes `completed`; nothing else changes.
 * - reject: the Status cell becomes `pending`, and the Notes' `review: waiting` becomes
 *   `review: rejected: <note>`, in its place (added at the end when the cell has no `review:` item).
 *
 * Undefined when the row does not await review. Pure: `mdplan review` and the page write exactly these bytes.
 */
export function reviewRow(row: RowState, decision: ReviewDecision): RowState | undefined {
  if (row.held !== undefined || row.status !== 'awaiting_review') return undefined
  const {held: _held, ...rest} = row
  if (decision.kind === 'approve') return {...rest, status: 'completed'}
  return {...rest, status: 'pending', notes: rejectedNotes(row.notes, decision.note)}
}

/** The Notes with their `review:` item saying `rejected: <note>` (in one line), every other item as it was. */
function rejectedNotes(cell: string, note: string): string {
  const value = `rejected: ${note.replace(/\s*[\r\n]+\s*/g, ' ').trim()}`.trim()
  const items = parseNotes(cell)
  const item = {key: 'review', value}
  const at = items.findIndex((candidate) => candidate.key === 'review')
  if (at === -1) return formatNotes([...items, item])
  return formatNotes(items.flatMap((candidate, index) => (index === at ? [item] : candidate.key === 'review' ? [] : [candidate])))
}
