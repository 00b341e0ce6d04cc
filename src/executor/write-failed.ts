import {undoLaunch, warn, type StepContext} from './step-context.js'

/** How soon a failed write is tried again. */
export const writeRetryMs = 2_000

/** A write of the table failed: nothing launches until one succeeds; launches it was to record are taken back. */
export function writeFailed(ctx: StepContext, seq: number, error: string, repairable: boolean): void {
  const {state} = ctx
  state.write.inflight = false
  if (state.write.failed === undefined) {
    warn(ctx, `cannot write ${error}; no new agents will launch${repairable ? ' until it is repaired' : ''}`)
    if (repairable) state.write.failedSince = ctx.now
  }
  state.write.failed = error
  // A damaged table no longer says what earlier writes recorded: every row the run knows is unrecorded now.
  if (repairable) state.write.unreadable = true
  // Try again soon: a person repairing the table, or a disk with room again, lets the run go on.
  ctx.effects.push({type: 'timer', at: ctx.now + writeRetryMs})
  // Not on disk, so not launched: the next run would not know they ran.
  for (const attempt of [...state.attempts.values()]) {
    if (attempt.phase === 'recording' && attempt.recordedBy <= seq) undoLaunch(ctx, attempt)
  }
  state.write.dirty = true
}
