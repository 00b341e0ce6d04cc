/**
 * The Notes cell: items joined with `; `, each `key: value` (`blocked by: A, B`,
 * `attempt 2: tests failed`, `checkpoint: step 3`, `question: …`, `base: 1a2b3c4d5e6f`)
 * or free text. Items with a key mdplan manages are replaced; free text is kept,
 * as written. `;` is the separator, so a `;` inside a value is written `\;` (as
 * Markdown itself escapes punctuation: GitHub shows it as `;`), and a run of
 * backslashes before any `;` (the separator's included) is doubled, so the
 * escape's backslash is never taken for one of the value's. A colon inside a time
 * (`18:37:20Z`) never ends a key.
 */
export interface NoteItem {
  /** Lower-cased key (`blocked by`, `attempt 2`, `checkpoint`, …), or undefined for free text. */
  key?: string
  value: string
  /** The item as the cell had it (a person's `TODO: x` stays as they wrote it); absent for a new item. */
  raw?: string
}

// `retrying at 18:37:20Z` is free text, not the key `retrying at 18`: a key's colon is not followed by a digit.
const keyed = /^([A-Za-z][A-Za-z -]*?(?: \d+)?):(?!\d)\s*([^]*)$/

/** Split a Notes cell into items. */
export function parseNotes(cell: string): NoteItem[] {
  const items: NoteItem[] = []
  for (const piece of splitItems(cell)) {
    const text = piece.trim()
    if (text === '' || text === '—') continue
    const match = keyed.exec(text)
    items.push(match ? {key: match[1]!.toLowerCase(), value: unescapeValue(match[2]!.trim()), raw: text} : {value: unescapeValue(text), raw: text})
  }
  return items
}

/** Join items back into one line (an item read from the cell as it was written). */
export function formatNotes(items: readonly NoteItem[]): string {
  const last = items.length - 1
  return items
    .map((item, index) => {
      const text = item.raw ?? (item.key === undefined ? escapeValue(item.value) : `${item.key}: ${escapeValue(item.value)}`)
      // A backslash before the separator would escape it: doubled there (only there, so the last item shows as written).
      return index < last ? text.replace(/(\\+)$/, '$1$1') : text
    })
    .join('; ')
}

/** The cell's items: split on each `;` after an even run of backslashes (none included), that run halved. */
function splitItems(cell: string): string[] {
  if (!cell.includes(';')) return [cell]
  const pieces = cutItems(cell)
  return pieces.map((piece, index) => (index < pieces.length - 1 ? halveEnd(piece) : piece))
}

/** The cell cut at each separator (a `;` after an even run of backslashes), the pieces as written. */
export function cutItems(cell: string): string[] {
  const pieces: string[] = []
  let from = 0
  let run = 0
  for (let index = 0; index < cell.length; index++) {
    const char = cell[index]
    if (char === ';' && run % 2 === 0) {
      pieces.push(cell.slice(from, index))
      from = index + 1
    }
    run = char === '\\' ? run + 1 : 0
  }
  pieces.push(cell.slice(from))
  return pieces
}

/** A piece as written before a separator: the even run of backslashes it ends in, halved (formatNotes doubled it). */
export function halveEnd(piece: string): string {
  if (!piece.endsWith('\\')) return piece
  const run = /\\+$/.exec(piece)?.[0].length ?? 0
  return run === 0 ? piece : piece.slice(0, piece.length - run / 2)
}

/** `;` as `\;`, a run of backslashes before it doubled. */
function escapeValue(value: string): string {
  return value.includes(';') ? value.replace(/(\\*);/g, (_, run: string) => `${run}${run}\\;`) : value
}

/** The inverse of `escapeValue`. */
function unescapeValue(text: string): string {
  return text.includes('\\;') ? text.replace(/(\\+);/g, (_, run: string) => '\\'.repeat((run.length - 1) / 2) + ';') : text
}

/** Replace (or add, or with `undefined` remove) every item whose key is `key`. */
export function setNote(cell: string, key: string, value: string | undefined): string {
  const items = parseNotes(cell).filter((item) => item.key !== key && !(key === 'paused' && isPauseFragment(item)))
  // One line, as the cell will read back; a `;` in it is escaped by formatNotes, never replaced.
  const clean = value?.replace(/\s*[\r\n]+\s*/g, ' ').trim()
  if (clean !== undefined && clean !== '') items.push({key, value: clean})
  return formatNotes(items)
}

/**
 * What older versions left of a `paused` note whose `; retrying at …` was split off
 * (`retrying at 18: 37:20Z`): it belongs to the pause it followed and goes with it.
 */
function isPauseFragment(item: NoteItem): boolean {
  return (item.key === undefined ? item.value : item.key).startsWith('retrying at ')
}

/** The value of the item `key`, if any. */
export function getNote(cell: string, key: string): string | undefined {
  return parseNotes(cell).find((item) => item.key === key)?.value
}

/** Attempt history from `attempt N: reason` items, in order. */
export function attemptsInNotes(cell: string): Array<{attempt: number; reason: string}> {
  const attempts: Array<{attempt: number; reason: string}> = []
  for (const item of parseNotes(cell)) {
    const match = item.key === undefined ? null : /^attempt (\d+)$/.exec(item.key)
    if (match) attempts.push({attempt: Number(match[1]), reason: item.value})
  }
  return attempts.sort((a, b) => a.attempt - b.attempt)
}
