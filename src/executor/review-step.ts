import {readReviewNote} from '../plan/review-note.js'
import type {ExecEvent} from './exec-event.js'
import {renderNotes, withFailure, withNoteText, withNotes} from './row-notes.js'
import {attemptLimit, failuresOf} from './schedule-pass.js'
import {emit, row, setRow, warn, type StepContext} from './step-context.js'

/**
 * Approvals found in the table (docs/review.md): a row a person set to `completed` whose Notes still say
 * `review: waiting` has work held for review that is not merged yet. It is merged (or committed) first, and
 * its dependants wait for that (the scheduler reads an agent being approved as running). `ids`: the rows to
 * look at (every row at the start of a run, the rows a person's save changed after).
 */
export function startApprovals(ctx: StepContext, ids: Iterable<string>): void {
  const {state} = ctx
  if (state.stopping || state.lockLost !== undefined) return
  for (const id of ids) {
    const current = state.table.rows.get(id)
    if (current?.status !== 'completed' || current.held !== undefined || state.approving.has(id) || state.attempts.has(id)) continue
    if (!state.byId.has(id) || readReviewNote(renderNotes(current.notes))?.state !== 'waiting') continue
    state.approving.add(id)
    ctx.effects.push({type: 'approve', agent: id})
  }
}

/** An approved agent's held work is merged (or committed): its dependants may start; `review: approved` says so. */
export function approved(ctx: StepContext, event: Extract<ExecEvent, {type: 'approved'}>): void {
  const {state} = ctx
  const id = event.agent
  if (!state.approving.delete(id)) return
  for (const message of event.warnings) warn(ctx, message)
  // Not looked at (the lock was lost): the row still says completed with `review: waiting`, and the next run merges it.
  if (event.unchecked !== undefined) return
  const current = row(ctx, id)
  const notes = Object.entries(event.notes).reduce((next, [key, value]) => withNoteText(next, key, value), current.notes)
  if (event.fail !== undefined) {
    // Its work could not come in (a merge conflict): it fails as an attempt whose merge conflicted does, and is retried.
    const attempt = Math.max(1, state.attemptsSeen.get(id) ?? 0, ...current.notes.attempts.keys())
    const failed = withFailure(withNotes(notes, {review: undefined}), attempt, event.fail)
    setRow(ctx, id, {status: 'failed', notes: failed})
    const willRetry = failuresOf(failed) < attemptLimit(ctx, id) && !ctx.config.failFast
    emit(ctx, {type: 'failed', agent: id, attempt, durationMs: 0, reason: event.fail, willRetry})
    return
  }
  setRow(ctx, id, {notes: withNotes(notes, {review: 'approved'})})
  emit(ctx, {type: 'approved', agent: id})
}
