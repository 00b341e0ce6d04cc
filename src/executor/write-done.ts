import type {WriteResult} from '../store/plan-store.js'
import {adoptWrite} from './adopt-write.js'
import {warnHeld} from './warn-held.js'
import {adoptWaits} from './account-waits.js'
import {jobField} from './place-attempt.js'
import {failuresOf} from './schedule-pass.js'
import {renderNotes} from './row-notes.js'
import {emit, row, undoLaunch, warn, type StepContext} from './step-context.js'
import {startApprovals} from './review-step.js'

/**
 * A write reached the disk: adopt what it merged of a person's edits, report them, and move the
 * launches it recorded on to `preparing` (on disk before spawned).
 */
export function writeDone(ctx: StepContext, seq: number, result: WriteResult, held?: ReadonlyMap<string, string>): void {
  const {state} = ctx
  state.write.inflight = false
  state.write.doneSeq = seq
  state.write.onDisk = result.state
  state.write.unreadable = undefined
  if (state.write.failed !== undefined) {
    ctx.reschedule = true
    state.write.failed = undefined
    state.write.failedSince = undefined
    warn(ctx, 'the plan can be written again: launching resumes')
  }
  // Edits mdplan did not take (their agent is live) are reported once, as what happened, and never as
  // a `human-edit`; the file is written again so it says what mdplan knows (`in_progress`), not the edit.
  const notTaken = new Set<string>()
  for (const kept of adoptWrite(state.table, result, new Set(state.attempts.keys()))) {
    notTaken.add(`${kept.agent}\u0000${kept.column}`)
    const value = kept.column.toLowerCase() === 'status' ? ` (${row(ctx, kept.agent).status})` : ''
    // The whole cell as typed: what mdplan did not take (a `result:` of theirs) stays readable in the run's log.
    if (kept.items) warn(ctx, `${kept.agent}: Notes was edited by hand to ${JSON.stringify(kept.to)} while ${kept.agent} ran; kept mdplan's ${kept.items.join(' and ')}, and the items you wrote`)
    else warn(ctx, `${kept.agent}: ${kept.column} was edited by hand to ${JSON.stringify(kept.to)} while ${kept.agent} ran; kept mdplan's value${value}`)
    state.write.dirty = true
  }
  warnHeld(ctx, held)
  // A person deleted (or wrote) a wait line: the accounts wait as the file now says.
  if (result.humanEdits.some((edit) => edit.agent === '' && edit.column === 'Waits')) adoptWaits(ctx, seq)
  for (const conflict of result.conflicts) if (conflict.winner === 'mdplan') notTaken.add(`${conflict.agent}\u0000${conflict.column}`)
  // The store stamps `Last updated:`; the table keeps what it wrote, so the next write stamps again.
  state.table.meta.lastUpdated = result.state.meta.lastUpdated
  for (const edit of result.humanEdits) {
    if (notTaken.has(`${edit.agent}\u0000${edit.column}`)) continue
    emit(ctx, {type: 'human-edit', agent: edit.agent, column: edit.column, value: edit.to})
    if (state.attempts.has(edit.agent)) continue
    // A person setting a row back to pending asks for one more try, whatever the history says.
    if (edit.column.toLowerCase() === 'status' && edit.to.toLowerCase() === 'pending' && edit.agent !== '') {
      const used = failuresOf(row(ctx, edit.agent).notes)
      state.extraAttempts.set(edit.agent, Math.max(0, used + 1 - ctx.config.maxAttempts))
      state.noRetry.delete(edit.agent)
      state.finalLook = 'none'
    }
  }
  // A person approved a held agent (its Status set to completed): its work is merged before its dependants start.
  startApprovals(ctx, approvals(result, notTaken))
  for (const conflict of result.conflicts) {
    warn(ctx, `${conflict.agent}: ${conflict.column} was edited by hand while mdplan changed it; kept ${conflict.winner === 'person' ? 'the edit' : "mdplan's value"}`)
  }
  // A save that brought back an older table: what was kept, and which cells were taken as an undo.
  for (const notice of result.notices ?? []) warn(ctx, notice)
  // A write that would have changed nothing was skipped: nothing to report.
  if (result.bytes > 0) emit(ctx, {type: 'state-written', file: '', bytes: result.bytes, ms: result.ms})
  for (const attempt of [...state.attempts.values()]) {
    if (attempt.phase !== 'recording' || attempt.recordedBy > seq) continue
    if (state.stopping) {
      undoLaunch(ctx, attempt)
      continue
    }
    attempt.phase = 'preparing'
    // A row a killed run left in_progress means its agent may have run, even when the write recording its
    // `base` never landed (the spawn does not wait for it); a retry's earlier attempt ran for sure.
    const earlier = attempt.previous.status === 'in_progress' || failuresOf(attempt.previous.notes) > 0
    // Git and the hosts read the row's Notes as the file has them (`base:`).
    ctx.effects.push({type: 'prepare', agent: attempt.agent, attempt: attempt.attempt, notes: renderNotes(row(ctx, attempt.agent).notes), earlier, ...jobField(attempt)})
  }
}

/** The agents whose Status a person's save set to completed (and the run took): approvals, when their work is held. */
function approvals(result: WriteResult, notTaken: ReadonlySet<string>): string[] {
  return result.humanEdits
    .filter((edit) => edit.agent !== '' && edit.column.toLowerCase() === 'status' && edit.to.trim().toLowerCase() === 'completed' && !notTaken.has(`${edit.agent}\u0000${edit.column}`))
    .map((edit) => edit.agent)
}
