import {interpretResult} from '../protocol/interpret-result.js'
import {emptyExecRow, storeTable} from './exec-row.js'
import {withNoteText} from './row-notes.js'
import type {ExecConfig} from './exec-config.js'
import type {ExecEffect} from './exec-effect.js'
import type {ExecEvent} from './exec-event.js'
import type {ExecState} from './exec-state.js'
import {finishOrWait} from './finish-or-wait.js'
import {schedulePass} from './schedule-pass.js'
import {settleAttempt} from './settle-attempt.js'
import {attemptOf, emit, row, seeAttempt, setRow, setRowNotes, undoLaunch, warn, type StepContext} from './step-context.js'
import {spawnEffect} from './spawn-effect.js'
import {jobField} from './place-attempt.js'
import {writeDone} from './write-done.js'
import {writeFailed} from './write-failed.js'
import {approved, startApprovals} from './review-step.js'
import {agentWaits} from './account-waits.js'
import {leaveResumable, stopRun} from './stop-run.js'
import {budgetHolds, planBudgetReached, spentSoFar} from './budget-check.js'
import {spentTokens} from '../runners/spent-tokens.js'

export interface StepResult {
  state: ExecState
  effects: ExecEffect[]
}

/**
 * The executor's core: one event in, the new state and the effects to
 * perform out. No I/O, no clock (the event carries it), no randomness
 * (the config draws Agent IDs): the same events give the same effects.
 * `step` owns `state` and changes it in place, as a reducer over a draft
 * does; the driver feeds it one event at a time, so no decision ever reads
 * state that another task is halfway through changing.
 */
export function step(state: ExecState, event: ExecEvent, config: ExecConfig): StepResult {
  const ctx: StepContext = {state, config, now: event.now, effects: [], retryWrite: false, reschedule: reschedules(event)}
  const liveBefore = state.attempts.size
  handle(ctx, event)
  if (!state.finished) {
    // A pass costs a look at every agent: only after an event that can free a slot or change what is ready.
    const due = ctx.reschedule || state.attempts.size < liveBefore
    if (event.more) {
      // The last event of the batch makes the pass, the write and the decision to finish for all of them.
      state.passDue ||= due
      if (ctx.retryWrite) state.retryDue = true
      return {state, effects: ctx.effects}
    }
    const pass = !state.stopping && (due || state.passDue === true)
    state.passDue = false
    if (state.retryDue) ctx.retryWrite = true
    state.retryDue = false
    const assessments = pass ? schedulePass(ctx) : undefined
    flushWrite(ctx)
    finishOrWait(ctx, assessments)
  }
  return {state, effects: ctx.effects}
}

/** Events that can change what is ready (statuses, definitions, answers, files, time, a person's edits). */
function reschedules(event: ExecEvent): boolean {
  switch (event.type) {
    case 'agent-id':
    case 'spent':
    case 'progress':
    case 'prepared':
    case 'question-written':
    case 'warning':
    case 'abort':
    case 'lock-lost':
      return false
    case 'write-done':
      // Moving launches on to `preparing` changes nothing the scheduler reads; a person's edits may.
      return event.result.humanEdits.length > 0
    default:
      return true
  }
}

function handle(ctx: StepContext, event: ExecEvent): void {
  const {state} = ctx
  switch (event.type) {
    case 'start':
    case 'files':
    case 'tick':
      if (event.type === 'files') state.filesCreated = event.created
      // Approvals a person made while no run was going on: the held work is merged before anything else.
      if (event.type === 'start') startApprovals(ctx, state.order)
      // A timer or a poll may retry a write that failed (a repaired table, freed disk space).
      ctx.retryWrite = true
      return
    case 'file-changed':
      state.write.dirty = true
      ctx.retryWrite = true
      return
    case 'write-done':
      return writeDone(ctx, event.seq, event.result, event.held)
    case 'write-failed':
      return writeFailed(ctx, event.seq, event.error, event.repairable)
    case 'prepared':
      return prepared(ctx, event)
    case 'agent-id':
      return agentIdReported(ctx, event)
    case 'progress':
      return progressed(ctx, event)
    case 'exited':
      return exited(ctx, event)
    case 'checked':
      return checked(ctx, event)
    case 'approved':
      return approved(ctx, event)
    case 'question-written':
      state.questionsPending.delete(event.agent)
      if (event.error) warn(ctx, `could not write the question of ${event.agent}: ${event.error}`)
      return
    case 'plan-changed':
      return planChanged(ctx, event.agents, event.priority)
    case 'answers':
      return answersRead(ctx, event.answered)
    case 'lock-lost':
      return lockLost(ctx, event.reason)
    case 'abort':
      return stopRun(ctx)
    case 'spent': {
      const attempt = attemptOf(ctx, event.agent, event.attempt)
      if (attempt?.phase === 'running') spentSoFar(ctx, attempt, {tokens: spentTokens(event.usage), usd: event.costUsd})
      return
    }
    case 'warning':
      return warn(ctx, event.message)
    case 'looked':
      if (state.finalLook === 'requested') state.finalLook = 'done'
      return
  }
}

type EventOf<T extends ExecEvent['type']> = Extract<ExecEvent, {type: T}>

/** The attempt's git base, snapshot or worktree is ready: it spawns (or, that failing, it fails). */
function prepared(ctx: StepContext, event: EventOf<'prepared'>): void {
  const attempt = attemptOf(ctx, event.agent, event.attempt)
  if (!attempt || attempt.phase !== 'preparing') return
  for (const message of event.warnings) warn(ctx, message)
  // Stopping; its account hit a usage limit since it was picked (the breaker); or a budget was spent meanwhile:
  // it never starts, its row goes back.
  if (ctx.state.stopping || agentWaits(ctx, attempt.agent, attempt.host) || budgetHolds(ctx, attempt.agent) || planBudgetReached(ctx)) {
    ctx.effects.push({type: 'abandon', agent: attempt.agent})
    return undoLaunch(ctx, attempt)
  }
  setRowNotes(ctx, attempt.agent, (notes) => Object.entries(event.notes).reduce((next, [key, value]) => withNoteText(next, key, value), notes))
  if (event.error) {
    const result = {ok: false, finalText: '', reason: event.error}
    return settleAttempt(ctx, attempt, result, interpretResult(result), {})
  }
  attempt.phase = 'running'
  seeAttempt(ctx, attempt)
  ctx.effects.push(spawnEffect(ctx, attempt, event.cwd))
}

function agentIdReported(ctx: StepContext, event: EventOf<'agent-id'>): void {
  const attempt = attemptOf(ctx, event.agent, event.attempt)
  if (!attempt) return
  attempt.sessionId = event.agentId
  if (row(ctx, event.agent).agentId === event.agentId) return
  setRow(ctx, event.agent, {agentId: event.agentId})
  emit(ctx, {type: 'agent-id', agent: event.agent, agentId: event.agentId})
}

/** A child plan's progress (`child: 3/7 completed`), or a host's note of the job (`slurm: 1234`; empty removes it). */
function progressed(ctx: StepContext, event: EventOf<'progress'>): void {
  if (!attemptOf(ctx, event.agent, event.attempt)) return
  if (event.key === undefined) setRowNotes(ctx, event.agent, {child: event.note.replace(/^child:\s*/, '')})
  else setRowNotes(ctx, event.agent, (notes) => withNoteText(notes, event.key!, event.note || undefined))
}

/** The agent's process ended: its work is checked (with git), or it is settled now. */
function exited(ctx: StepContext, event: EventOf<'exited'>): void {
  const {state} = ctx
  const attempt = attemptOf(ctx, event.agent, event.attempt)
  if (!attempt || attempt.phase !== 'running') return
  const result = event.result
  if (event.endedAt !== undefined) attempt.endedAt = event.endedAt
  // Ended by its own budget: settled as that (settle-attempt.ts), not left to resume.
  if (result.interrupted && (state.stopping || (attempt.killed && attempt.overBudget === undefined))) return leaveResumable(ctx, attempt, result)
  const outcome = interpretResult(result)
  attempt.result = result
  // A lost host's result is never collected: a late one from its key is not merged (fencing by key).
  if (result.hostLost) state.hostsLost.add(result.hostLost)
  const definition = state.byId.get(attempt.agent)
  // Decided once, here: the check keeps the work unmerged exactly when the attempt settles as awaiting review.
  attempt.held = outcome.kind === 'completed' && definition !== undefined && ctx.config.review?.(definition) === true
  if (ctx.config.git && !outcome.rateLimited && !outcome.transient && !outcome.unknownSession && !result.hostLost && !result.notStarted) {
    attempt.phase = 'checking'
    ctx.effects.push({type: 'check', agent: attempt.agent, attempt: attempt.attempt, succeeded: outcome.kind === 'completed', ...(attempt.held ? {hold: true} : {}), ...jobField(attempt)})
    return
  }
  if (ctx.config.git) ctx.effects.push({type: 'abandon', agent: attempt.agent})
  return settleAttempt(ctx, attempt, result, outcome, {})
}

/** Its scope check, commit or merge is done: the attempt is settled. */
function checked(ctx: StepContext, event: EventOf<'checked'>): void {
  const attempt = attemptOf(ctx, event.agent, event.attempt)
  if (!attempt || attempt.phase !== 'checking' || !attempt.result) return
  for (const message of event.warnings) warn(ctx, message)
  // Its work was not taken in: like an agent ended on purpose, the row stays in_progress for the next run.
  if (event.unchecked !== undefined) return leaveResumable(ctx, attempt, attempt.result)
  const outcome = interpretResult(attempt.result)
  if (event.fail && outcome.kind === 'completed') {
    outcome.kind = 'failed'
    outcome.reason = event.fail
  }
  return settleAttempt(ctx, attempt, attempt.result, outcome, event.notes)
}

function answersRead(ctx: StepContext, answered: EventOf<'answers'>['answered']): void {
  for (const [agent, answer] of answered) {
    // An answer read before the agent's newest question was written belongs to an older one.
    if (ctx.state.questionsPending.has(agent) || row(ctx, agent).status !== 'needs_input') continue
    ctx.state.answered.set(agent, answer)
  }
}

function lockLost(ctx: StepContext, reason: string): void {
  const {state} = ctx
  if (state.lockLost !== undefined) return
  state.lockLost = reason
  warn(
    ctx,
    `the run lock was lost (${reason}): nothing launches and the table is not written any more; ` +
      'running agents are ended (their rows stay in_progress and resume on the next run), ' +
      'and remote jobs are left running, no longer followed (the run that holds the lock now may follow them)'
  )
  // Launches whose recording write was never issued never will be: take them back now.
  for (const attempt of [...state.attempts.values()]) if (attempt.phase === 'recording' && attempt.recordedBy > state.write.seq) undoLaunch(ctx, attempt)
  stopRun(ctx)
}

function planChanged(ctx: StepContext, agents: ExecState['agents'], priority: ReadonlyMap<string, number>): void {
  const {state} = ctx
  state.agents = agents
  const byId = new Map(agents.map((agent) => [agent.id, agent]))
  // An agent whose section was deleted while it ran finishes as it was launched: its check, commit or merge
  // needs the definition it ran with. It is not in `agents` any more, so it never launches again.
  for (const id of state.attempts.keys()) {
    const launched = state.byId.get(id)
    if (!byId.has(id) && launched) byId.set(id, launched)
  }
  state.byId = byId
  state.order = agents.map((agent) => agent.id)
  state.priority = priority
  for (const agent of agents) {
    if (state.table.rows.has(agent.id)) continue
    state.table.rows.set(agent.id, emptyExecRow())
    state.write.dirty = true
  }
  state.finalLook = 'none'
}

/** Send the table to disk when it changed and no write is under way (later changes join the next write). */
function flushWrite(ctx: StepContext): void {
  const {write} = ctx.state
  // The lock is lost: the table may be another run's now; what is not on disk goes to the journal at the end.
  if (!write.dirty || write.inflight || ctx.state.lockLost !== undefined) return
  if (write.failed !== undefined && !ctx.retryWrite) return
  write.seq++
  write.inflight = true
  write.dirty = false
  // The store's edge: the table goes out as the store writes it (a row rendered once, an unchanged one as it came).
  ctx.effects.push({type: 'write', seq: write.seq, table: storeTable(ctx.state.table), running: new Set(ctx.state.attempts.keys())})
}
