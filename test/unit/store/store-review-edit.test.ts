import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {applyReview} from '../../../src/store/apply-review.js'
import {reviewRow} from '../../../src/store/review-row.js'
import type {RowState} from '../../../src/store/table-state.js'
import {reviewPlan} from '../../helpers/review-plan.js'

const text = (rowA: string) =>
  reviewPlan({agents: [{id: 'A', name: 'first', review: 'true'}, {id: 'B', name: 'second', deps: ['A']}], rows: [rowA, '| B | pending | — | — | blocked by: A (awaiting review) |']})

const waiting = '| A | awaiting_review | sh-1a2b3c4d | 12s | base: 1a2b3c4; result: added the route; review: waiting |'

function planFile(rowA: string): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mdplan-review-')), 'plan.md')
  writeFileSync(file, text(rowA))
  return file
}

describe('the review edit', () => {
  it('approve is the hand edit of the Status cell alone: `awaiting_review` → `completed`, byte for byte', async () => {
    const file = planFile(waiting)
    const outcome = await applyReview(file, 'A', {kind: 'approve'})
    expect(outcome.kind).toBe('written')
    expect(readFileSync(file, 'utf8')).toBe(text(waiting.replace('| awaiting_review |', '| completed |')))
  })

  it('reject is Status → `pending` and `review: waiting` → `review: rejected: <note>`, byte for byte', async () => {
    const file = planFile(waiting)
    await applyReview(file, 'A', {kind: 'reject', note: 'use tabs; not spaces'})
    const hand = waiting.replace('| awaiting_review |', '| pending |').replace('review: waiting', 'review: rejected: use tabs\\; not spaces')
    expect(readFileSync(file, 'utf8')).toBe(text(hand))
  })

  it('applies only to a row awaiting review, hand-written `awaiting review` included; the file stays as it was otherwise', async () => {
    const file = planFile(waiting.replace('awaiting_review', 'completed'))
    const before = readFileSync(file, 'utf8')
    expect(await applyReview(file, 'A', {kind: 'approve'})).toEqual({kind: 'not-applicable', status: 'completed'})
    expect(await applyReview(file, 'Z', {kind: 'approve'})).toEqual({kind: 'unknown-agent'})
    expect(readFileSync(file, 'utf8')).toBe(before)
    const spaced = planFile(waiting.replace('awaiting_review', 'awaiting review'))
    await applyReview(spaced, 'A', {kind: 'approve'})
    expect(readFileSync(spaced, 'utf8')).toBe(text(waiting.replace('| awaiting_review |', '| completed |')))
  })

  it('a rejection without a `review:` item adds one at the end; a second one of the key goes', () => {
    const row = (notes: string): RowState => ({status: 'awaiting_review', agentId: '', duration: '', notes, extra: {}})
    expect(reviewRow(row('result: x'), {kind: 'reject', note: 'again'})!.notes).toBe('result: x; review: rejected: again')
    expect(reviewRow(row('review: waiting; TODO: Bob; review: old'), {kind: 'reject', note: 'two\nlines'})!.notes).toBe('review: rejected: two lines; TODO: Bob')
    expect(reviewRow({...row(''), status: 'in_progress'}, {kind: 'approve'})).toBeUndefined()
  })
})
