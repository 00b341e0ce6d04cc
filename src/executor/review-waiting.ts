import {emit, type StepContext} from './step-context.js'

/**
 * The hook of review gates (issue 34, built on another branch): the step that sets a row to `awaiting_review`
 * calls this, in the same step, so the `review-waiting` event (and the `review_waiting` notification the run's
 * notifier makes of it, docs/notify.md) is out before the write that records the row: a coordinator killed
 * after that write has already queued the notification.
 */
export function reviewWaiting(ctx: StepContext, agent: string, attempt: number, note?: string): void {
  emit(ctx, {type: 'review-waiting', agent, attempt, ...(note ? {note} : {})})
}
