import {parseDuration} from '../util/parse-duration.js'

/**
 * Where a table has no Duration column (real plans drop it), an agent's
 * duration is kept in its Notes as `took 3m 12s`, so `mdplan report` can sum
 * the parts from the file alone. The store reads it back out of the Notes
 * into the row's duration (`durationFromNotes`) and writes it in again
 * (`durationIntoNotes`), so the rest of mdplan sees a duration either way.
 * Only the `took` item is touched: the other items keep their bytes.
 */
export function durationFromNotes(notes: string): {notes: string; duration: string} {
  const pieces = notes.split(';')
  const at = pieces.findIndex((piece) => isTook(piece.trim()))
  if (at === -1) return {notes, duration: ''}
  const duration = pieces[at]!.trim().slice('took '.length)
  pieces.splice(at, 1)
  return {notes: pieces.join(';').trim().replace(/^;\s*|\s*;$/g, ''), duration}
}

export function durationIntoNotes(notes: string, duration: string): string {
  if (duration === '') return notes
  return notes === '' ? `took ${duration}` : `${notes}; took ${duration}`
}

function isTook(item: string): boolean {
  return item.startsWith('took ') && parseDuration(item.slice(5)) !== undefined
}
