import {getNote, setNote} from '../plan/notes.js'
import type {Outcome} from '../protocol/interpret-result.js'
import type {OpenQuestion} from '../protocol/read-answers.js'
import type {RunResult} from '../runners/runner.js'
import type {NotePatch} from '../git/git-guard.js'
import {formatDuration} from '../util/format-duration.js'
import {actionableLine} from '../protocol/actionable-line.js'
import type {Attempt} from './exec-state.js'
import {attemptLimit, failuresOf} from './schedule-pass.js'
import {emit, row, seeAttempt, setRow, type StepContext} from './step-context.js'

/** Passing network or server trouble: retried without using an attempt this many times in a row. */
export const maxTransientRetries = 5

/** The most one agent may keep the run paused in total, unless the run says otherwise (`--max-pause`). */
export const defaultMaxPauseMs = 30 * 60_000

/** Notes items that only mean something until the agent completes. */
const clearedOnCompletion = ['blocked by', 'soft-blocked by', 'question', 'relaunched', 'paused']

/**
 * An attempt is over (its process ended and its git check, commit or merge
 * is done): turn its outcome into the row's new state and free its slot.
 */
export function settleAttempt(ctx: StepContext, attempt: Attempt, result: RunResult, settled: Outcome, gitNotes: NotePatch): void {
  let outcome = settled
  const {state, config, now} = ctx
  const id = attempt.agent
  state.attempts.delete(id)
  seeAttempt(ctx, attempt)
  const durationMs = now - attempt.startedAt
  const agentId = result.agentId ?? attempt.sessionId
  const current = row(ctx, id)
  let notes = Object.entries(gitNotes).reduce((cell, [key, value]) => setNote(cell, key, value), current.notes)
  // Settled: its key names no live job any more (a next attempt draws its own); the row keeps where it ran.
  if (attempt.key) notes = setNote(setNote(notes, 'job', undefined), 'host', attempt.host)
  if (result.costUsd !== undefined) {
    // Notes keep the agent's total; a resumed claude session reports its own running total.
    const before = Number(getNote(notes, 'cost')?.replace(/^\$/, '') ?? 0) || 0
    const spent = result.cumulativeCost ? Math.max(0, result.costUsd - before) : result.costUsd
    notes = setNote(notes, 'cost', `$${(before + spent).toFixed(4)}`)
  }
  // Where its session and work stay for the next attempt, when that one goes on from this one (its question
  // answered, its session relaunched, its pause over: place-attempt.ts). Completed or failed, nothing goes on from
  // it: the note goes, and the run's sweep removes the folder.
  notes = setNote(notes, 'work', undefined)
  const stays = (cell: string): string => setNote(cell, 'work', config.hosts ? workPlace(attempt) : undefined)
  if (outcome.checkpoint) notes = setNote(notes, 'checkpoint', outcome.checkpoint)
  for (const text of outcome.discoveries) state.discoveries.push({agent: id, text})
  const keepId = agentId ?? current.agentId

  // Not the agent's fault: wait, then try again without using an attempt; a network that never
  // comes back would retry forever, so transient trouble gets a few tries before it counts as a failure.
  const transient = outcome.transient && (state.transientRetries.get(id) ?? 0) < maxTransientRetries
  const what = outcome.rateLimited ? 'rate or usage limit' : 'network or server trouble'
  // One Notes item: a `;` inside it would split it into items of its own (`retrying at …` left behind).
  const cause = `${what} (${(outcome.reason ?? 'limit reached').replace(/\s*;\s*/g, ', ')})`
  // A limit or an outage that never ends must not hold the agent (and the run) forever: its pauses have a
  // total budget, and the pause that would go beyond it fails the attempt, with the cause, instead.
  const paused = state.pausedFor.get(id) ?? 0
  const maxPauseMs = config.maxPauseMs ?? defaultMaxPauseMs
  const overBudget = (outcome.rateLimited || transient) && paused + state.pauseMs > maxPauseMs
  if (overBudget) {
    notes = setNote(notes, 'paused', undefined)
    outcome = {...outcome, kind: 'failed', unknownSession: false, reason: `paused ${formatDuration(paused)} in total, the limit is ${formatDuration(maxPauseMs)} (--max-pause), last cause: ${cause}`}
  } else if (outcome.rateLimited || transient) {
    if (outcome.transient) state.transientRetries.set(id, (state.transientRetries.get(id) ?? 0) + 1)
    state.pausedFor.set(id, paused + state.pauseMs)
    state.pausedUntil = now + state.pauseMs
    const reason = `${cause}, retrying at ${new Date(state.pausedUntil).toISOString().slice(11, 19)}Z`
    emit(ctx, {type: 'paused', reason, untilMs: state.pausedUntil})
    ctx.effects.push({type: 'timer', at: state.pausedUntil})
    state.pauseMs = Math.min(state.pauseMs * 2, 15 * 60_000)
    const waiting = setNote(stays(notes), 'paused', reason)
    if (attempt.answer) return answerAgain(ctx, attempt, attempt.answer, keepId, waiting)
    setRow(ctx, id, {status: 'pending', agentId: keepId, notes: waiting})
    return
  }
  if (outcome.unknownSession) {
    notes = setNote(stays(notes), 'relaunched', `session ${agentId ?? ''} could not be resumed`)
    // No session to resume: the relaunch gets the whole prompt, and the answer after it (answerFollowUp).
    if (attempt.answer) return answerAgain(ctx, attempt, attempt.answer, '', notes)
    setRow(ctx, id, {status: 'pending', agentId: '', notes})
    return
  }
  const duration = formatDuration(durationMs)
  state.tookMs ??= new Map()
  state.tookMs.set(id, durationMs)
  if (outcome.kind === 'completed') {
    for (const key of clearedOnCompletion) notes = setNote(notes, key, undefined)
    if (outcome.note) notes = setNote(notes, 'result', outcome.note)
    setRow(ctx, id, {status: 'completed', agentId: keepId, duration, notes})
    emit(ctx, {type: 'completed', agent: id, agentId, attempt: attempt.attempt, durationMs, note: outcome.note, costUsd: result.costUsd})
    return
  }
  if (outcome.kind === 'question' && outcome.question) {
    const question = outcome.question
    setRow(ctx, id, {status: 'needs_input', agentId: keepId, duration, notes: setNote(stays(notes), 'question', actionableLine(question.question))})
    emit(ctx, {type: 'question', agent: id, agentId, question: question.question})
    // An answer read before this question is written belongs to an older question.
    state.answered.delete(id)
    state.questionsPending.add(id)
    ctx.effects.push({type: 'record-question', agent: id, question})
    return
  }
  // The actionable part of the reason (the variable to set, the command to run); the log has it all.
  const reason = actionableLine(outcome.reason ?? result.reason ?? 'failed')
  notes = setNote(notes, `attempt ${attempt.attempt}`, reason)
  // A configuration error (not logged in, a refused option) fails the same way every time: try once.
  if (outcome.permanent) state.noRetry.add(id)
  setRow(ctx, id, {status: 'failed', agentId: keepId, duration, notes})
  // The failures the row records, this one included, against the limit (a re-queued agent's numbers go on from its last).
  const willRetry = failuresOf(notes) < attemptLimit(ctx, id) && !config.failFast
  emit(ctx, {type: 'failed', agent: id, agentId, attempt: attempt.attempt, durationMs, reason, willRetry})
  if (config.failFast) state.failFastTripped = true
}

/** The `work:` note of an attempt whose next one goes on from it: the job folder it ran in, or its host. */
function workPlace(attempt: Attempt): string | undefined {
  if (attempt.host === undefined) return undefined
  return attempt.key === undefined ? attempt.host : `${attempt.host} ${attempt.work ?? attempt.key}`
}

/**
 * An attempt that was to go on with a person's answer ended before it could use it (its session could not be
 * resumed; a limit or the network cut it): its row waits with its question answered again, and the next launch
 * gets the question, the answer and the resume state, so the question is never asked anew for lack of them.
 * The answer is still under `## Open Questions` (nothing rewrites an entry but the agent's next question), so a
 * run that stops before that launch leaves the next run the same.
 */
function answerAgain(ctx: StepContext, attempt: Attempt, answer: OpenQuestion, agentId: string, notes: string): void {
  ctx.state.answered.set(attempt.agent, answer)
  setRow(ctx, attempt.agent, {status: 'needs_input', agentId, notes: setNote(notes, 'question', actionableLine(answer.question))})
}
