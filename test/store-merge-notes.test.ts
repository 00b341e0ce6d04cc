import {describe, expect, it} from 'vitest'
import {mergeNoteItems} from '../src/store/merge-note-items.js'
import {mergeState} from '../src/store/merge-state.js'
import {emptyRow, type RowState, type TableState} from '../src/store/table-state.js'

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
