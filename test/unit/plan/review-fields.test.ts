import {describe, expect, it} from 'vitest'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {checkPlan} from '../../../src/plan/check-plan.js'
import {reviewGate, reviewValue} from '../../../src/plan/review-gate.js'
import {readReviewNote} from '../../../src/plan/review-note.js'
import {tableStatuses} from '../../../src/plan/table-statuses.js'
import {reviewPlan} from '../../helpers/review-plan.js'

const plan = (front: string, fields: Record<string, string>, rows = ['| A | pending | | | |', '| B | pending | | | |']) =>
  reviewPlan({front: front ? [front] : [], agents: [{id: 'A', name: 'first', review: fields.A}, {id: 'B', name: 'second', deps: ['A'], review: fields.B}], rows})

describe('review gates in the plan', () => {
  it('reads an agent field, and front matter for every agent; an agent\'s own value wins', () => {
    const gated = parsePlan(plan('review: true', {B: 'false'}), 'plan.md')
    expect(gated.settings.review).toBe(true)
    expect(gated.agents.map((agent) => reviewGate(agent, gated.settings))).toEqual([true, false])
    const own = parsePlan(plan('', {A: 'yes'}), 'plan.md')
    expect(own.agents.map((agent) => reviewGate(agent, own.settings))).toEqual([true, false])
    expect(checkPlan(gated).filter((d) => d.severity === 'error')).toEqual([])
    expect(['True', '`false`', 'on', 'No'].map(reviewValue)).toEqual([true, false, true, false])
  })

  it('errors on a value that is not a boolean, at its line and column, in the field and in front matter', () => {
    const bad = parsePlan(plan('review: sometimes', {B: 'maybe later'}), 'plan.md')
    const errors = checkPlan(bad).filter((d) => d.severity === 'error')
    expect(errors.map((d) => [d.rule, d.reason, d.place && 'line' in d.place ? `${d.place.line}:${d.place.column}` : ''])).toEqual([
      ['invalid-setting', 'front matter `review` must be `true` or `false`', '3:1'],
      ['invalid-review', '`review` of agent B must be `true` or `false`, not `maybe later`', '17:15']
    ])
  })

  it('reads `awaiting_review` and `awaiting review` (any case) as the one status', () => {
    const read = parsePlan(plan('', {}, ['| A | Awaiting Review | | | review: waiting |', '| B | awaiting_review | | | |']), 'plan.md')
    expect([...tableStatuses(read).values()]).toEqual(['awaiting_review', 'awaiting_review'])
    expect(checkPlan(read).filter((d) => d.rule === 'unknown-status')).toEqual([])
  })

  it('reads the Notes\' review item: waiting, approved, or rejected with its note (a rejection wins wherever it is)', () => {
    expect(readReviewNote('result: done; review: waiting')).toEqual({state: 'waiting'})
    expect(readReviewNote('review: approved; commit: abc')).toEqual({state: 'approved'})
    expect(readReviewNote('review: waiting; review: rejected: use tabs\\; not spaces')).toEqual({state: 'rejected', note: 'use tabs; not spaces'})
    expect(readReviewNote('Review: Rejected')).toEqual({state: 'rejected', note: ''})
    expect(readReviewNote('result: reviewed the code')).toBeUndefined()
  })
})
