import {parseNotes} from './notes.js'

/** The review gate's item of a row's Notes (docs/review.md). */
export type ReviewNote = {state: 'waiting'} | {state: 'approved'} | {state: 'rejected'; note: string}

/**
 * What a Notes cell says of the review gate: `review: waiting` (the agent's work is held for a person),
 * `review: approved` (approved and merged), or `review: rejected: <note>` (sent back, to be run again with
 * the note). A rejection wins over the other items of the key, wherever it is in the cell (a person may have
 * added it without removing `review: waiting`); undefined when the cell has no `review:` item.
 */
export function readReviewNote(cell: string): ReviewNote | undefined {
  if (!/review/i.test(cell)) return undefined
  let first: ReviewNote | undefined
  for (const item of parseNotes(cell)) {
    if (item.key !== 'review') continue
    const value = item.value.trim()
    const rejected = /^rejected\b\s*:?\s*([^]*)$/i.exec(value)
    if (rejected) return {state: 'rejected', note: rejected[1]!.trim()}
    first ??= /^approved\b/i.test(value) ? {state: 'approved'} : /^waiting\b/i.test(value) ? {state: 'waiting'} : undefined
  }
  return first
}
