import {isMdplanNote} from '../plan/mdplan-note.js'
import {formatNotes, parseNotes, type NoteItem} from '../plan/notes.js'

export interface NotesMerge {
  notes: string
  /** Keys of mdplan's items the person changed while the agent ran: not taken (mdplan's value stands). */
  refused: string[]
  /** Keys of items both changed, each its own way: the person's value when idle, mdplan's while running. */
  clashed: string[]
}

/**
 * Three-way merge of a Notes cell item by item (a whole-cell merge lost a person's `TODO: ask Bob`
 * whenever mdplan added `base:` to the same row). An item the person added, changed or removed is
 * theirs to decide, except mdplan's own items (`base:`, `attempt 1:`, …) of an agent that is
 * running: those keep mdplan's value. The items stand in the person's order (a reorder of theirs is
 * an edit too), each with its exact text; an item only mdplan's cell has (one it added, or kept while
 * its agent runs) follows them, in mdplan's order, as mdplan adds its items at the end. So a cell only
 * the person changed is theirs byte for byte, unless it changed mdplan's item of a running agent.
 * Items are matched by key (mdplan's) or by their text (the person's). Pure.
 */
export function mergeNoteItems(base: string, mine: string, theirs: string, running: boolean): NotesMerge {
  const b = indexed(base)
  const m = indexed(mine)
  const t = indexed(theirs)
  const refused: string[] = []
  const clashed: string[] = []
  const pick = (id: string): NoteItem | undefined => {
    const was = b.get(id)
    const want = m.get(id)
    const now = t.get(id)
    // Unchanged by the person: mdplan's value, in the person's bytes when mdplan's is the same.
    if (same(now, was)) return same(want, now) ? now : want
    const item = (now ?? was ?? want)!
    // A `conflict:` note is there for the person: theirs to edit or delete at any time.
    const guarded = running && isMdplanNote(item) && item.key !== 'conflict'
    if (same(want, was) || same(want, now)) {
      if (!guarded || same(want, now)) return now
      refused.push(item.key ?? item.value)
      return want
    }
    clashed.push(item.key ?? item.value)
    return running ? want : now
  }
  // The person's order (their cell is what they see and arrange), then what only mdplan's cell has.
  const order = [...t.keys()]
  for (const id of m.keys()) if (!t.has(id)) order.push(id)
  const items: NoteItem[] = []
  for (const id of order) {
    const item = pick(id)
    if (item) items.push(item)
  }
  // A cell that is one side's, item for item, keeps that side's bytes.
  const notes = sameItems(items, t) ? theirs : sameItems(items, m) ? mine : formatNotes(items)
  return {notes, refused, clashed}
}

function sameItems(items: readonly NoteItem[], side: ReadonlyMap<string, NoteItem>): boolean {
  if (items.length !== side.size) return false
  let i = 0
  for (const item of side.values()) if (items[i++] !== item) return false
  return true
}

/** Items by identity: `k:<key>` for a keyed item, `t:<text>#<n>` for the nth item of that text otherwise. */
function indexed(cell: string): Map<string, NoteItem> {
  const items = new Map<string, NoteItem>()
  const seen = new Map<string, number>()
  for (const item of parseNotes(cell)) {
    let id: string
    if (item.key !== undefined && isMdplanNote(item)) id = `k:${item.key}`
    else {
      const text = item.raw ?? item.value
      const n = seen.get(text) ?? 0
      seen.set(text, n + 1)
      id = `t:${text}#${n}`
    }
    if (!items.has(id)) items.set(id, item)
  }
  return items
}

function same(a: NoteItem | undefined, b: NoteItem | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.key === b.key && a.value === b.value
}
