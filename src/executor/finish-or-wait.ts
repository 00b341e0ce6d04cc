import type {Assessment} from '../schedule/assess-agents.js'
import type {StepContext} from './step-context.js'
import {assess} from './schedule-pass.js'
import {heldByWaits, waitForReset} from './wait-for-reset.js'
import {budgetHolds} from './budget-check.js'

/** How long a run that cannot write its plan (agents ready, or rows not recorded yet) waits for a repair before it ends. */
export const repairWindowMs = 60_000

/**
 * After every event: is the run over? It is when nothing lives (no attempt,
 * no write, no question being written), nothing can launch, and one last
 * look at the file found no re-queue, answer or new agent. A rate-limit
 * pause with agents ready waits for its timer instead; so does a usage limit
 * with a reset when the run is to wait for it (else the run ends, `limited`).
 */
export function finishOrWait(ctx: StepContext, assessments: ReadonlyMap<string, Assessment> | undefined): void {
  const {state} = ctx
  if (state.attempts.size > 0 || state.write.inflight || state.questionsPending.size > 0 || state.approving.size > 0) return
  // Nothing lives: an event that ran no pass still must not finish with agents ready.
  const known = assessments ?? (state.stopping ? undefined : assess(ctx))
  const ready = known !== undefined && anyReady(known)
  // Ready agents a budget keeps back (the plan's, or their own) wait for a person to raise it, not for this run.
  const budgetHeld = ready && allHeldByBudget(ctx, known)
  if (ctx.state.budget) ctx.state.budget.held = budgetHeld && state.budget?.reached !== undefined
  if (ready && !budgetHeld && !state.stopping && !state.failFastTripped && state.write.failed === undefined) {
    // Ready agents whose accounts all wait for a usage limit to reset: wait for it, or end saying when to run again.
    const held = heldByWaits(ctx, known)
    if (held === undefined || waitForReset(ctx, held)) return
  } else state.limited = undefined
  // The table cannot be written (a person's edit damaged it): give them time to repair it, whether agents
  // are ready or the run only holds what it has not recorded yet (the last agent's completion). Past the
  // window, or on Ctrl-C, what is still unwritten goes to the journal (finishRun).
  const unrecorded = ready || state.write.dirty
  if (unrecorded && !state.stopping && state.write.failedSince !== undefined && ctx.now - state.write.failedSince < repairWindowMs) return
  if (!state.stopping && state.finalLook !== 'done') {
    if (state.finalLook === 'none') {
      state.finalLook = 'requested'
      ctx.effects.push({type: 'look'})
    }
    return
  }
  state.finished = true
  ctx.effects.push({type: 'finish'})
}

function allHeldByBudget(ctx: StepContext, assessments: ReadonlyMap<string, Assessment>): boolean {
  for (const [id, assessment] of assessments) if (assessment.kind === 'ready' && !budgetHolds(ctx, id)) return false
  return true
}

function anyReady(assessments: ReadonlyMap<string, Assessment>): boolean {
  for (const assessment of assessments.values()) if (assessment.kind === 'ready') return true
  return false
}
