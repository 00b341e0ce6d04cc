/**
 * The Notes cell: items joined with `; `, each `key: value` (`blocked by: A, B`,
 * `attempt 2: tests failed`, `checkpoint: step 3`, `question: …`, `base: 1a2b3c4d5e6f`)
 * or free text. Items with a key mdplan manages are replaced; free text is kept.
 * `;` is the separator, so a value never holds one (`setNote` writes it as `,`),
 * and a colon inside a time (`18:37:20Z`) never ends a key.
 */
export interface NoteItem {
  /** Lower-cased key (`blocked by`, `attempt 2`, `checkpoint`, …), or undefined for free text. */
  key?: string
  value: string
}

// `retrying at 18:37:20Z` is free text, not the key `retrying at 18`: a key's colon is not followed by a digit.
const keyed = /^([A-Za-z][A-Za-z -]*?(?: \d+)?):(?!\d)\s*(.*)$/

/** Split a Notes cell into items. */
export function parseNotes(cell: string): NoteItem[] {
  const items: NoteItem[] = []
  for (const piece of cell.split(/;\s*/)) {
    const text = piece.trim()
    if (text === '' || text === '—') continue
    const match = keyed.exec(text)
    items.push(match ? {key: match[1]!.toLowerCase(), value: match[2]!.trim()} : {value: text})
  }
  return items
}

/** Join items back into one line. */
export function formatNotes(items: readonly NoteItem[]): string {
  return items.map((item) => (item.key === undefined ? item.value : `${item.key}: ${item.value}`)).join('; ')
}

/** Replace (or add, or with `undefined` remove) every item whose key is `key`. */
export function setNote(cell: string, key: string, value: string | undefined): string {
  const items = parseNotes(cell).filter((item) => item.key !== key && !(key === 'paused' && isPauseFragment(item)))
  // A `;` in the value would split it into two items on the next read, the second one never replaced.
  const clean = value?.replace(/\s*;\s*/g, ', ').trim()
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
