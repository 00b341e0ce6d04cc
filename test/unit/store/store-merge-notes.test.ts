import {describe, expect, it} from 'vitest'
import {mergeNoteItems} from '../../../src/store/merge-note-items.js'
import {mergeState} from '../../../src/store/merge-state.js'
import {emptyRow, type RowState, type TableState} from '../../../src/store/table-state.js'

const table = (rows: Record<string, Partial<RowState>>): TableState => ({rows: new Map(Object.entries(rows).map(([id, f]) => [id, {...emptyRow(), ...f}])), meta: {}})

describe('mergeNoteItems: Notes merge item by item', () => {
  it('a person’s item and mdplan’s new item both stay, running or not, each as written', () => {
    for (const running of [true, false]) {
      expect(mergeNoteItems('', 'base: 1a2b', 'TODO: ask Bob', running)).toEqual({notes: 'TODO: ask Bob; base: 1a2b', refused: [], clashed: []})
      expect(mergeNoteItems('base: 1a2b', 'base: 1a2b; result: done', 'base: 1a2b; mine \\; exact', running).notes).toBe('base: 1a2b; mine \\; exact; result: done')
    }
  })

  it('mdplan’s items of a running agent keep mdplan’s value; idle, the person’s edit stands', () => {
    expect(mergeNoteItems('base: 1a2b', 'base: 1a2b', 'done by hand', true)).toEqual({notes: 'done by hand; base: 1a2b', refused: ['base'], clashed: []})
    expect(mergeNoteItems('base: 1a2b', 'base: 1a2b', 'done by hand', false)).toEqual({notes: 'done by hand', refused: [], clashed: []})
    expect(mergeNoteItems('attempt 1: x', 'attempt 1: y', 'attempt 1: z', true)).toEqual({notes: 'attempt 1: y', refused: [], clashed: ['attempt 1']})
    expect(mergeNoteItems('attempt 1: x', 'attempt 1: y', 'attempt 1: z', false)).toEqual({notes: 'attempt 1: z', refused: [], clashed: ['attempt 1']})
  })

  it('the person may delete a `conflict:` note while the agent runs', () => {
    expect(mergeNoteItems('base: 1a2b; conflict: Status kept in_progress', 'base: 1a2b; conflict: Status kept in_progress', 'base: 1a2b', true)).toEqual({notes: 'base: 1a2b', refused: [], clashed: []})
  })

  it('a person removes their own item, mdplan removes its own: both gone', () => {
    expect(mergeNoteItems('blocked by: A; TODO', 'TODO', 'blocked by: A', true).notes).toBe('')
  })

  it('a reorder only the person made keeps their cell byte for byte, repeated items included', () => {
    for (const running of [true, false]) {
      expect(mergeNoteItems('first; second; first', 'first; second; first', 'second;first ;  first', running)).toEqual({notes: 'second;first ;  first', refused: [], clashed: []})
      expect(mergeNoteItems('first; second; first', 'first; second; first', 'second; first', running).notes).toBe('second; first')
      expect(mergeNoteItems('TODO; base: 1a2b', 'TODO; base: 1a2b', 'base: 1a2b; TODO', running).notes).toBe('base: 1a2b; TODO')
    }
  })

  it('both changed: the person’s order, mdplan’s values, and mdplan’s new items after theirs', () => {
    expect(mergeNoteItems('a; b; base: 1a2b', 'a; b; base: 3c4d', 'b; base: 1a2b; a', true).notes).toBe('b; base: 3c4d; a')
    expect(mergeNoteItems('x; y', 'x; y; base: 1a2b', 'y; x', false).notes).toBe('y; x; base: 1a2b')
    // setNote moves an item it changes to the end of mdplan's cell: in the person's cell it stays where it was.
    expect(mergeNoteItems('blocked by: A; mine', 'mine; blocked by: A, B', 'blocked by: A; mine; more', false).notes).toBe('blocked by: A, B; mine; more')
  })

  it('a cell that is one side’s, item for item, keeps its bytes', () => {
    expect(mergeNoteItems('', '', 'a;b ;  c', true).notes).toBe('a;b ;  c')
  })
})

describe('mergeState: Notes of a running agent', () => {
  it('keeps the person’s item beside mdplan’s change, with no conflict', () => {
    const base = table({A: {status: 'in_progress', agentId: 'a1'}})
    const mine = table({A: {status: 'in_progress', agentId: 'a1', notes: 'base: 1a2b'}})
    const theirs = table({A: {status: 'in_progress', agentId: 'a1', notes: 'TODO: ask Bob'}})
    const merged = mergeState(base, mine, theirs, new Set(['A']))
    expect(merged.state.rows.get('A')!.notes).toBe('TODO: ask Bob; base: 1a2b')
    expect(merged.conflicts).toEqual([])
    expect(merged.humanEdits).toEqual([{agent: 'A', column: 'Notes', from: '', to: 'TODO: ask Bob'}])
  })
})
