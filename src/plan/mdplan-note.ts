import type {NoteItem} from './notes.js'

/**
 * The Notes keys mdplan writes itself (docs/plan-format.md, "Notes": one item per kind). An item with
 * one of them is mdplan's: a run keeps its own value of it while the agent runs. Every other item
 * (`TODO: ask Bob`, free text) is the person's, and mdplan never changes it.
 */
const keys = new Set(['blocked by', 'soft-blocked by', 'checkpoint', 'question', 'result', 'base', 'commit', 'scope', 'paused', 'job', 'host', 'work', 'cost', 'tokens', 'relaunched', 'conflict', 'review'])

/** Whether mdplan wrote this item (or writes items of its kind). */
export function isMdplanNote(item: NoteItem): boolean {
  if (item.key === undefined) return item.value.startsWith('retrying at ') // the tail of an old `paused` note
  return keys.has(item.key) || /^attempt \d+$/.test(item.key)
}
