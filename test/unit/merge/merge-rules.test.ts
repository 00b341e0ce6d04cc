import {describe, expect, it} from 'vitest'
import {mergeNotes} from '../../../src/merge/merge-notes.js'
import {mergeTableState, type TableSide} from '../../../src/merge/merge-table-state.js'
import {mergeOpenQuestions} from '../../../src/merge/merge-open-questions.js'
import type {RowState} from '../../../src/store/table-state.js'

const row = (status: RowState['status'], notes = '', agentId = '', duration = ''): RowState => ({status, agentId, duration, notes, extra: {}})
const side = (rows: Record<string, RowState>, lastUpdated?: string, more: TableSide['meta'] = {}): TableSide => ({
  rows: new Map(Object.entries(rows)),
  meta: {...(lastUpdated ? {lastUpdated} : {}), ...more}
})

describe('the merge rule for the Execution State', () => {
  it('a completed row beats a newer failure; every attempt is kept', () => {
    const base = side({A: row('in_progress', 'base: 1a2b', 'x')})
    const ours = side({A: row('completed', 'base: 1a2b; result: done', 'x', '45s')}, '2026-01-01T10:00:00Z')
    const theirs = side({A: row('failed', 'base: 1a2b; attempt 1: tests fail', 'y', '12s')}, '2026-01-01T11:00:00Z')
    const merged = mergeTableState(base, ours, theirs)
    expect(merged.conflicts).toEqual([])
    expect(merged.state.rows.get('A')).toEqual(row('completed', 'base: 1a2b; result: done; attempt 1: tests fail', 'x', '45s'))
  })

  it('two statuses short of completed: the side updated later wins', () => {
    const base = side({A: row('pending')})
    const ours = side({A: row('failed', 'attempt 1: x', 'a')}, '2026-01-01T10:00:00Z')
    const theirs = side({A: row('in_progress', '', 'b')}, '2026-01-01T09:00:00Z')
    expect(mergeTableState(base, ours, theirs).state.rows.get('A')!.status).toBe('failed')
    expect(mergeTableState(base, theirs, ours).state.rows.get('A')!.status).toBe('failed')
  })

  it('a re-queue against a completion is a conflict, either way round', () => {
    const base = side({A: row('failed', 'attempt 1: x')})
    const completed = side({A: row('completed', 'attempt 1: x; result: ok')})
    const requeued = side({A: row('pending', 'attempt 1: x')})
    expect(mergeTableState(base, completed, requeued).conflicts.map((c) => c.agent)).toEqual(['A'])
    expect(mergeTableState(base, requeued, completed).conflicts[0]!.reason).toBe('re-queued (pending) on ours, completed on theirs')
  })

  it('work held for review beats every status but completed, whichever side is later', () => {
    const base = side({A: row('pending')})
    const held = side({A: row('awaiting_review', 'result: done; review: waiting', 'a', '30s')}, '2026-01-01T09:00:00Z')
    for (const other of [row('in_progress', '', 'b'), row('pending', 'attempt 1: x', 'b'), row('failed', 'attempt 1: x', 'b'), row('needs_input', 'question: q', 'b')]) {
      const later = side({A: other}, '2026-01-01T10:00:00Z')
      expect(mergeTableState(base, held, later).state.rows.get('A')!.status, other.status).toBe('awaiting_review')
      expect(mergeTableState(base, later, held).state.rows.get('A')!.status, other.status).toBe('awaiting_review')
    }
    // Approved (completed) on one side beats the same work still held on the other; the approval's note stays.
    const approved = side({A: row('completed', 'result: done; review: approved', 'a', '30s')}, '2026-01-01T08:00:00Z')
    const merged = mergeTableState(base, held, approved)
    expect(merged.conflicts).toEqual([])
    expect(merged.state.rows.get('A')).toEqual(row('completed', 'result: done; review: approved', 'a', '30s'))
  })

  it('an approval against a rejection of the same held work is a conflict: both are a person\'s decision', () => {
    const base = side({A: row('awaiting_review', 'review: waiting', 'a')})
    const approved = side({A: row('completed', 'review: waiting', 'a')})
    const rejected = side({A: row('pending', 'review: rejected: use tabs', 'a')})
    expect(mergeTableState(base, approved, rejected).conflicts.map((c) => c.reason)).toEqual(['completed on ours, re-queued (pending) on theirs'])
    // Decided on one side only: that side's decision is taken.
    expect(mergeTableState(base, base, rejected).state.rows.get('A')).toEqual(rejected.rows.get('A'))
  })

  it('a row one side deleted: kept as the other side has it, never turned into an empty pending row', () => {
    const base = side({A: row('completed', '', 'x', '1s'), B: row('pending')})
    const ours = side({A: row('completed', '', 'x', '1s'), B: row('failed', 'attempt 1: y')})
    const theirs = side({})
    expect(mergeTableState(base, ours, theirs).state.rows).toEqual(ours.rows)
    // Ours deleted B, theirs left it alone: it stays deleted; theirs changed A: it comes back.
    const changed = side({A: row('completed', 'result: z', 'x', '1s'), B: row('pending')})
    expect([...mergeTableState(base, side({}), changed).state.rows.keys()]).toEqual(['A'])
  })

  it('a row only theirs has goes after the row before it there', () => {
    const base = side({A: row('pending'), C: row('pending')})
    const theirs = side({A: row('pending'), B: row('completed'), C: row('pending'), D: row('pending')})
    expect([...mergeTableState(base, base, theirs).state.rows.keys()]).toEqual(['A', 'B', 'C', 'D'])
  })

  it('Started takes the earlier, Last updated the later, Build the side that changed it', () => {
    const base = side({}, undefined, {build: 'not yet run'})
    const ours = side({}, '2026-01-01T10:00:00Z', {started: '2026-01-01T09:00:00Z', build: 'not yet run'})
    const theirs = side({}, '2026-01-01T09:30:00Z', {started: '2026-01-01T08:00:00Z', build: 'pass'})
    expect(mergeTableState(base, ours, theirs).state.meta).toEqual({started: '2026-01-01T08:00:00Z', lastUpdated: '2026-01-01T10:00:00Z', build: 'pass'})
  })

  it('notes: attempts both sides numbered alike are all kept; stale blockers of the losing side are not', () => {
    expect(mergeNotes('attempt 1: lint; result: ok', 'attempt 1: tests; blocked by: C; checkpoint: 3')).toBe('attempt 1: lint; result: ok; attempt 2: tests; checkpoint: 3')
    expect(mergeNotes('a note', 'a note; another')).toBe('a note; another')
  })

  it('open questions are united by agent; an answer on one side is kept', () => {
    const base = '## Open Questions\n\n### A: Which?\n- **answer**:\n'
    const ours = '## Open Questions\n\n### A: Which?\n- **answer**: Redis\n'
    const theirs = '## Open Questions\n\n### A: Which?\n- **answer**:\n\n### B: Port?\n- **answer**:\n'
    expect(mergeOpenQuestions(base, ours, theirs)).toEqual({text: '## Open Questions\n\n### A: Which?\n- **answer**: Redis\n\n### B: Port?\n- **answer**:\n', conflicts: []})
    const other = '## Open Questions\n\n### A: Which?\n- **answer**: SQLite\n'
    const both = mergeOpenQuestions(base, ours, other)
    expect(both.conflicts).toEqual(['A'])
    expect(both.text).toContain('<<<<<<< ours: open question of agent A\n### A: Which?\n- **answer**: Redis\n=======\n### A: Which?\n- **answer**: SQLite\n>>>>>>> theirs: open question of agent A\n')
  })
})
