import {describe, expect, it} from 'vitest'
import {reviewWaiting} from '../../../src/executor/review-waiting.js'
import type {StepContext} from '../../../src/executor/step-context.js'
import {notifyEventOf} from '../../../src/notify/notify-event-of.js'

describe('the review gate’s hook', () => {
  it('emits review-waiting in the step that calls it, which the notifier makes a review_waiting notification', () => {
    const ctx = {effects: []} as unknown as StepContext
    reviewWaiting(ctx, 'B', 2, 'added the cache')
    expect(ctx.effects).toEqual([{type: 'emit', event: {type: 'review-waiting', agent: 'B', attempt: 2, note: 'added the cache'}}])
    const [effect] = ctx.effects as Array<{event: {type: 'review-waiting'; agent: string; attempt: number}}>
    const event = notifyEventOf({...effect!.event, time: '2026-01-15T14:24:00.000Z'}, {planKey: 'plan@1a2b3c4d', plan: '/p/plan.md', runStarted: 't'})
    expect(event).toMatchObject({id: 'plan@1a2b3c4d:review_waiting:B:2', kind: 'review_waiting', needs_you: true, text: 'B waits for your review: added the cache'})
  })
})
