import {emptyExecRow, sameCells, type ExecRow} from './exec-row.js'
import {withNotes, type NotesPatch, type RowNotes} from './row-notes.js'
import type {ExecConfig} from './exec-config.js'
import type {ExecEffect, Emitted} from './exec-effect.js'
import type {Attempt, ExecState} from './exec-state.js'

/** One step's working set: the state it owns, the clock of its event, and the effects it asks for. */
export interface StepContext {
  state: ExecState
  config: ExecConfig
  now: number
  effects: ExecEffect[]
  /** A write failed and this event may try again (a timer, a person's save). */
  retryWrite: boolean
  /** The event may change what is ready: run a scheduling pass after it. */
  reschedule: boolean
}

export function row(ctx: StepContext, id: string): ExecRow {
  return ctx.state.table.rows.get(id) ?? emptyExecRow()
}

/** Change a row's cells; the table is written when they read otherwise than before. */
export function setRow(ctx: StepContext, id: string, patch: Partial<ExecRow>): void {
  const before = row(ctx, id)
  const next = {...before, ...patch}
  // A status mdplan sets replaces a held cell's text (it never sets one on a held row: a held agent is never launched).
  if (patch.status !== undefined) delete next.held
  if (sameCells(next, before)) return
  ctx.state.table.rows.set(id, next)
  ctx.state.write.dirty = true
}

/** Set Notes fields of a row (in the patch's order). */
export function setRowNotes(ctx: StepContext, id: string, patch: NotesPatch | ((notes: RowNotes) => RowNotes)): void {
  const notes = row(ctx, id).notes
  setRow(ctx, id, {notes: typeof patch === 'function' ? patch(notes) : withNotes(notes, patch)})
}

export function emit(ctx: StepContext, event: Emitted): void {
  ctx.effects.push({type: 'emit', event})
}

export function warn(ctx: StepContext, message: string): void {
  emit(ctx, {type: 'warning', message})
}

/** The live attempt an answer event is about; stale answers (an older attempt) find none. */
export function attemptOf(ctx: StepContext, agent: string, attempt: number): Attempt | undefined {
  const live = ctx.state.attempts.get(agent)
  return live && live.attempt === attempt ? live : undefined
}

/** An attempt spawned or settled: its number is taken, and the agent's next attempt is a later one. */
export function seeAttempt(ctx: StepContext, attempt: Attempt): void {
  const seen = ctx.state.attemptsSeen
  seen.set(attempt.agent, Math.max(seen.get(attempt.agent) ?? 0, attempt.attempt))
}

/** Take back a launch that never started: its row goes back to what it was. */
export function undoLaunch(ctx: StepContext, attempt: Attempt): void {
  ctx.state.attempts.delete(attempt.agent)
  ctx.state.table.rows.set(attempt.agent, attempt.previous)
  ctx.state.write.dirty = true
}

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z')
}
