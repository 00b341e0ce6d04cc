import {describe, expect, it} from 'vitest'
import {notifyEventOf} from '../../../src/notify/notify-event-of.js'
import {notifyPlanKey} from '../../../src/notify/event-id.js'
import {everyEvent, scorecard} from '../../../fixtures/report/events.js'
import type {RunEvent} from '../../../src/events.js'

const context = {planKey: 'plan@1a2b3c4d', plan: '/home/me/app/plan.md', runStarted: '2026-01-15T14:22:10.000Z'}
const of = (event: RunEvent) => notifyEventOf(event, context)
const sample = <T extends RunEvent['type']>(type: T) => everyEvent[type] as Extract<RunEvent, {type: T}>

describe('the notifications a run’s events make', () => {
  it('a question: needs you, its id the plan, kind, agent, attempt and the question', () => {
    const event = of(everyEvent.question)
    expect(event).toEqual({
      v: 1,
      id: expect.stringMatching(/^plan@1a2b3c4d:question:C:1:[0-9a-f]{8}$/),
      kind: 'question',
      time: '2026-01-15T14:24:00.000Z',
      plan: '/home/me/app/plan.md',
      agent: 'C',
      attempt: 1,
      text: 'C asks: Which database should the cache use?',
      needs_you: true
    })
    // The same question learnt again (a rerun collecting the job) has the same id; another question of the attempt (after an answer) another.
    expect(of({...sample('question'), time: 'later'})!.id).toBe(event!.id)
    expect(of({...sample('question'), question: 'And the TTL?'})!.id).not.toBe(event!.id)
  })

  it('an agent failed for good, not one that will be tried again', () => {
    expect(of(everyEvent.failed)).toBeUndefined()
    expect(of({...sample('failed'), willRetry: false, attempt: 3})).toMatchObject({id: 'plan@1a2b3c4d:failed:B:3', kind: 'failed', agent: 'B', attempt: 3, text: 'B failed for good (attempt 3): tests failed', needs_you: true})
  })

  it('a review waiting', () => {
    expect(of(everyEvent['awaiting-review'])).toMatchObject({id: 'plan@1a2b3c4d:review_waiting:F:1', kind: 'review_waiting', text: 'F waits for your review', needs_you: true})
    expect(of({type: 'awaiting-review', time: '2026-01-15T14:24:00.500Z', agent: 'F', attempt: 1, durationMs: 12_000, note: 'added types'})).toMatchObject({text: 'F waits for your review: added types'})
  })

  it('a usage-limit wait, not a run-wide backoff', () => {
    expect(of(everyEvent.paused)).toBeUndefined()
    const wait = of({...sample('paused'), reason: 'claude on local: usage limit, resets 15:00', account: 'claude on local'})
    expect(wait).toMatchObject({kind: 'usage_limit', account: 'claude on local', until: '2026-01-15T14:25:02.000Z', needs_you: false})
    expect(wait!.id).toBe('plan@1a2b3c4d:usage_limit:claude%20on%20local:2026-01-15T14%3A25%3A02.000Z')
    expect(wait!.id).toMatch(/^[\x21-\x7e]+$/)
  })

  it('the run finished, or stopped, with its counts; once per run', () => {
    expect(of(everyEvent['run-finished'])).toMatchObject({
      id: 'plan@1a2b3c4d:run_finished:2026-01-15T14%3A22%3A10.000Z',
      kind: 'run_finished',
      text: 'run finished (exit 1): 1 completed, 1 failed',
      needs_you: true,
      exit_code: 1,
      counts: {completed: 1, failed: 1}
    })
    expect(of({type: 'run-finished', time: 't', exitCode: 130, scorecard})).toMatchObject({kind: 'run_stopped', text: 'run stopped (exit 130): 1 completed, 1 failed', needs_you: true})
    expect(of({type: 'run-finished', time: 't', exitCode: 0, scorecard: {...scorecard, counts: {completed: 2}}})).toMatchObject({kind: 'run_finished', needs_you: false})
  })

  it('nothing else', () => {
    for (const type of ['run-started', 'launched', 'completed', 'blocked', 'warning', 'state-written', 'human-edit', 'child'] as const) expect(of(everyEvent[type]), type).toBeUndefined()
  })

  it('text is one line, cut at 300 characters', () => {
    const text = of({...sample('question'), question: `Which\nstore?\n\n${'x'.repeat(400)}`})!.text
    expect(text).not.toContain('\n')
    expect(text).toHaveLength(300)
    expect(text.startsWith('C asks: Which store? xxx')).toBe(true)
  })

  it('the plan key tells two plans of one name apart', () => {
    expect(notifyPlanKey('/a/plan.md')).toMatch(/^plan@[0-9a-f]{8}$/)
    expect(notifyPlanKey('/a/plan.md')).not.toBe(notifyPlanKey('/b/plan.md'))
    expect(notifyPlanKey('/a/plan.md')).toBe(notifyPlanKey('/a/plan.md'))
  })
})
