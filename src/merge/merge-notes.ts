import {formatNotes, parseNotes, type NoteItem} from '../plan/notes.js'

/** Items that describe the row's current status only: a side that lost the status does not bring them along. */
const transient = new Set(['blocked by', 'soft-blocked by', 'question', 'conflict'])

/**
 * The Notes of a row both branches changed: the winning side's items, then
 * the other side's items the winner lacks. Every `attempt N:` item of both is
 * kept (an attempt number both used for different failures goes to the next
 * free number, so no attempt is lost); a keyed item both have takes the
 * winner's value; free text is united by value. Pure.
 */
export function mergeNotes(winner: string, loser: string): string {
  const items: NoteItem[] = parseNotes(winner)
  const attempts = new Map<number, string>()
  for (const item of items) {
    const n = attemptNumber(item)
    if (n !== undefined) attempts.set(n, item.value)
  }
  const keys = new Set(items.filter((item) => item.key !== undefined).map((item) => item.key))
  const texts = new Set(items.filter((item) => item.key === undefined).map((item) => item.value))
  for (const item of parseNotes(loser)) {
    const n = attemptNumber(item)
    if (n !== undefined) {
      if (attempts.get(n) === item.value) continue
      let free = n
      while (attempts.has(free)) free++
      attempts.set(free, item.value)
      items.push({key: `attempt ${free}`, value: item.value})
    } else if (item.key === undefined) {
      if (!texts.has(item.value)) items.push(item)
      texts.add(item.value)
    } else if (!keys.has(item.key) && !transient.has(item.key)) {
      items.push(item)
      keys.add(item.key)
    }
  }
  return formatNotes(items)
}

function attemptNumber(item: NoteItem): number | undefined {
  const match = item.key === undefined ? null : /^attempt (\d+)$/.exec(item.key)
  return match ? Number(match[1]) : undefined
}
