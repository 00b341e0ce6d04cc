import type {Outcome, Question} from '../protocol/interpret-result.js'
import type {OpenQuestion} from '../protocol/read-answers.js'
import type {RunResult} from '../runners/runner.js'
import type {NotePatch} from '../git/git-guard.js'
import {formatDuration} from '../util/format-duration.js'
import {actionableLine} from '../protocol/actionable-line.js'
import type {Attempt} from './exec-state.js'
import {attemptLimit, failuresOf} from './schedule-pass.js'
import {withFailure, withNotes, withNoteText, type RowNotes, type WorkNote} from './row-notes.js'
import {emit, isoSeconds, row, seeAttempt, setRow, warn, type StepContext} from './step-context.js'
import {spentTokens} from '../runners/spent-tokens.js'
import {withSpend} from './with-spend.js'
import {ownBudgetReached} from './budget-check.js'
import {accountOf, accountWait, startWait, waitEnds} from './account-waits.js'

/** Passing network or server trouble: retried without using an attempt this many times in a row. */
export const maxTransientRetries = 5

/** The most one agent may keep the run paused in total, unless the run says otherwise (`--max-pause`). */
export const defaultMaxPauseMs = 30 * 60_000

/** An attempt being settled: what every way it can end needs. */
interface Ending {
  ctx: StepContext
  attempt: Attempt
  result: RunResult
  /** The Agent ID it reported (or was given). */
  agentId: string | undefined
  /** The Agent ID its row keeps. */
  keepId: string
  durationMs: number
  /** Its row's Notes, with what every ending records (git's notes, its host, its cost, its checkpoint). */
  notes: RowNotes
}

/**
 * An attempt is over (its process ended and its git check, commit or merge
 * is done): turn its outcome into the row's new state and free its slot.
 */
export function settleAttempt(ctx: StepContext, attempt: Attempt, result: RunResult, settled: Outcome, gitNotes: NotePatch): void {
  const {state, now} = ctx
  const id = attempt.agent
  state.attempts.delete(id)
  seeAttempt(ctx, attempt)
  const current = row(ctx, id)
  const agentId = result.agentId ?? attempt.sessionId
  const notes = settledNotes(attempt, result, settled, current.notes, gitNotes)
  for (const text of settled.discoveries) state.discoveries.push({agent: id, text})
  const end: Ending = {ctx, attempt, result, agentId, keepId: agentId ?? current.agentId, durationMs: Math.min(now, attempt.endedAt ?? now) - attempt.startedAt, notes}
  if (result.notStarted && goAgain(end, current.notes)) return
  if (attempt.overBudget !== undefined) return overBudget(end, attempt.overBudget)
  const outcome = pauseOrGiveUp(end, settled)
  if (outcome === undefined) return
  if (outcome.unknownSession) return relaunch(end)
  // What it took, to the ms: the run's own scorecard counts it instead of the rounded Duration cell.
  state.tookMs ??= new Map()
  state.tookMs.set(id, end.durationMs)
  if (outcome.kind === 'completed') return complete(end, outcome)
  if (outcome.kind === 'question' && outcome.question) return ask(end, outcome.question)
  fail(end, outcome)
}

/** What the row's Notes record of any ending: git's notes, where it ran, what it cost, its checkpoint. */
function settledNotes(attempt: Attempt, result: RunResult, outcome: Outcome, before: RowNotes, gitNotes: NotePatch): RowNotes {
  let notes = Object.entries(gitNotes).reduce((next, [key, value]) => withNoteText(next, key, value), before)
  // Settled: its key names no live job any more (a next attempt draws its own); the row keeps where it ran.
  if (attempt.key) notes = withNotes(notes, {job: undefined, host: attempt.host})
  notes = withSpend(notes, attempt, result)
  // Where its session and work stay for the next attempt, when that one goes on from this one (its question
  // answered, its session relaunched, its pause over: place-attempt.ts; see `stays`). Completed or failed,
  // nothing goes on from it: the note goes, and the run's sweep removes the folder.
  notes = withNotes(notes, {work: undefined})
  if (outcome.checkpoint) notes = withNotes(notes, {checkpoint: outcome.checkpoint})
  return notes
}

/** The Notes of an attempt the next one goes on from: its `work:` names where (with hosts). */
function stays(end: Ending): RowNotes {
  return withNotes(end.notes, {work: end.ctx.config.hosts ? workPlace(end.attempt) : undefined})
}

/**
 * Not the agent's fault (a limit, the network): wait, then try again without using an attempt. A usage limit
 * is its account's (a runner on a host): that account waits while the others go on. A limit whose reset the
 * CLI named waits for it, however long, and never fails the attempt. A limit that named none, and a network
 * that never comes back, must not hold the agent (and the run) forever: their pauses back off and have a
 * total budget (`--max-pause`), and the pause that would go beyond it fails the attempt, with the cause;
 * transient trouble gets a few tries before it counts as a failure.
 * Returns the outcome left to settle, or undefined when the agent waits.
 */
function pauseOrGiveUp(end: Ending, outcome: Outcome): Outcome | undefined {
  const {ctx, attempt} = end
  const {state, config} = ctx
  const id = attempt.agent
  const transient = outcome.transient && (state.transientRetries.get(id) ?? 0) < maxTransientRetries
  if (!outcome.rateLimited && !transient) return outcome
  const what = outcome.rateLimited ? 'rate or usage limit' : 'network or server trouble'
  // One Notes item: a `;` inside it would split it into items of its own (`retrying at …` left behind).
  const cause = `${what} (${(outcome.reason ?? 'limit reached').replace(/\s*;\s*/g, ', ')})`
  const account = outcome.rateLimited ? accountOf(ctx, id, attempt.host) : undefined
  if (account !== undefined && end.result.resetAt !== undefined) {
    const wait = startWait(ctx, account, accountWait('usage limit', Math.max(end.result.resetAt, ctx.now), true, config.resetMarginMs))
    return waitRow(end, `${cause}, ${account} resets ${isoSeconds(wait.at)}`)
  }
  const paused = state.pausedFor.get(id) ?? 0
  const pauseMs = account === undefined ? state.pauseMs : (state.accountPauseMs.get(account) ?? config.rateLimitPauseMs)
  const maxPauseMs = config.maxPauseMs ?? defaultMaxPauseMs
  if (paused + pauseMs > maxPauseMs) {
    end.notes = withNotes(end.notes, {paused: undefined})
    return {...outcome, kind: 'failed', unknownSession: false, reason: `paused ${formatDuration(paused)} in total, the limit is ${formatDuration(maxPauseMs)} (--max-pause), last cause: ${cause}`}
  }
  if (outcome.transient) state.transientRetries.set(id, (state.transientRetries.get(id) ?? 0) + 1)
  state.pausedFor.set(id, paused + pauseMs)
  const next = Math.min(pauseMs * 2, 15 * 60_000)
  let until = ctx.now + pauseMs
  if (account !== undefined) {
    until = waitEnds(startWait(ctx, account, accountWait(what, until, false)))
    state.accountPauseMs.set(account, next)
  } else {
    state.pausedUntil = until
    state.pauseMs = next
    emit(ctx, {type: 'paused', reason: `${cause}, retrying at ${new Date(until).toISOString().slice(11, 19)}Z`, untilMs: until})
    ctx.effects.push({type: 'timer', at: until})
  }
  return waitRow(end, `${cause}, retrying at ${new Date(until).toISOString().slice(11, 19)}Z`)
}

/** The agent waits (a limit, the network): its row goes back to pending, or to its answered question, saying why. */
function waitRow(end: Ending, reason: string): undefined {
  const {ctx, attempt} = end
  const waiting = withNotes(stays(end), {paused: reason})
  if (attempt.answer) answerAgain(ctx, attempt, attempt.answer, end.keepId, waiting)
  else setRow(ctx, attempt.agent, {status: 'pending', agentId: end.keepId, notes: waiting})
  return undefined
}

/**
 * Its job never started the agent (its engine confirmed it ended): nothing of the attempt was spent. It goes
 * again at once under a new key, keeping its number (`relaunched`), its `work:` and an answer it was to use;
 * an engine that never starts anything fails it after a few tries in a row, as transient trouble does.
 * Returns false when those tries are used up (the attempt then settles as the failure it is).
 */
function goAgain(end: Ending, before: RowNotes): boolean {
  const {ctx, attempt} = end
  const {state} = ctx
  const id = attempt.agent
  const tries = state.transientRetries.get(id) ?? 0
  if (tries >= maxTransientRetries) return false
  state.transientRetries.set(id, tries + 1)
  const why = actionableLine(end.result.reason ?? 'its job never started').replace(/\s*;\s*/g, ', ')
  warn(ctx, `${id}: ${why}; launched again under a new key (no attempt used)`)
  const again = withNotes(end.notes, {work: before.work, relaunched: why})
  if (attempt.answer) answerAgain(ctx, attempt, attempt.answer, end.keepId, again)
  else setRow(ctx, id, {status: 'pending', agentId: end.keepId, notes: again})
  return true
}

/** Its session could not be resumed: it is launched anew, with the whole prompt (and the answer after it: answerFollowUp). */
function relaunch(end: Ending): void {
  const {ctx, attempt} = end
  const notes = withNotes(stays(end), {relaunched: `session ${end.agentId ?? ''} could not be resumed`})
  if (attempt.answer) return answerAgain(ctx, attempt, attempt.answer, '', notes)
  setRow(ctx, attempt.agent, {status: 'pending', agentId: '', notes})
}

function complete(end: Ending, outcome: Outcome): void {
  const {ctx, attempt, durationMs} = end
  // Notes that only mean something until the agent completes.
  let notes = withNotes(end.notes, {blockedBy: undefined, softBlockedBy: undefined, question: undefined, relaunched: undefined, paused: undefined})
  if (outcome.note) notes = withNotes(notes, {result: outcome.note})
  // A review gate (docs/review.md): its work is held, unmerged, until a person approves it; the note says so, last.
  notes = withNotes(notes, {review: attempt.held ? 'waiting' : undefined})
  const status = attempt.held ? 'awaiting_review' : 'completed'
  setRow(ctx, attempt.agent, {status, agentId: end.keepId, duration: formatDuration(durationMs), notes})
  if (attempt.held) return emit(ctx, {type: 'awaiting-review', agent: attempt.agent, agentId: end.agentId, attempt: attempt.attempt, durationMs, note: outcome.note})
  const tokens = spentTokens(end.result.usage)
  emit(ctx, {type: 'completed', agent: attempt.agent, agentId: end.agentId, attempt: attempt.attempt, durationMs, note: outcome.note, costUsd: end.result.costUsd, ...(tokens !== undefined ? {tokens} : {})})
}

function ask(end: Ending, question: Question): void {
  const {ctx, attempt} = end
  const {state} = ctx
  const id = attempt.agent
  setRow(ctx, id, {status: 'needs_input', agentId: end.keepId, duration: formatDuration(end.durationMs), notes: withNotes(stays(end), {question: actionableLine(question.question)})})
  emit(ctx, {type: 'question', agent: id, agentId: end.agentId, attempt: attempt.attempt, question: question.question})
  // An answer read before this question is written belongs to an older question.
  state.answered.delete(id)
  state.questionsPending.add(id)
  ctx.effects.push({type: 'record-question', agent: id, question})
}

function fail(end: Ending, outcome: Outcome): void {
  const {ctx, attempt, durationMs} = end
  const {state, config} = ctx
  const id = attempt.agent
  // The actionable part of the reason (the variable to set, the command to run); the log has it all.
  const reason = actionableLine(outcome.reason ?? end.result.reason ?? 'failed')
  const notes = withFailure(end.notes, attempt.attempt, reason)
  // A configuration error (not logged in, a refused option) fails the same way every time: try once.
  if (outcome.permanent) state.noRetry.add(id)
  setRow(ctx, id, {status: 'failed', agentId: end.keepId, duration: formatDuration(durationMs), notes})
  // The failures the row records, this one included, against the limit (a re-queued agent's numbers go on from its last);
  // an agent whose own budget is spent is not tried again (the scheduling pass notes why).
  const willRetry = failuresOf(notes) < attemptLimit(ctx, id) && !config.failFast && ownBudgetReached(ctx, id) === undefined
  emit(ctx, {type: 'failed', agent: id, agentId: end.agentId, attempt: attempt.attempt, durationMs, reason, willRetry})
  if (config.failFast) state.failFastTripped = true
}

/**
 * Ended by its own budget (spent while it ran, as its runner streamed it): failed, saying so, with no attempt
 * used and no retry; raising the agent's `budget` lets the next run launch it again.
 */
function overBudget(end: Ending, reached: string): void {
  const {ctx, attempt, durationMs} = end
  const notes = withNotes(end.notes, {budgetReached: ownBudgetReached(ctx, attempt.agent) ?? reached})
  setRow(ctx, attempt.agent, {status: 'failed', agentId: end.keepId, duration: formatDuration(durationMs), notes})
  emit(ctx, {type: 'failed', agent: attempt.agent, agentId: end.agentId, attempt: attempt.attempt, durationMs, reason: `budget reached: ${reached}`, willRetry: false})
}

/** The `work:` note of an attempt whose next one goes on from it: the job folder it ran in, or its host. */
function workPlace(attempt: Attempt): WorkNote | undefined {
  if (attempt.host === undefined) return undefined
  return attempt.key === undefined ? {host: attempt.host} : {host: attempt.host, key: attempt.work ?? attempt.key}
}

/**
 * An attempt that was to go on with a person's answer ended before it could use it (its session could not be
 * resumed; a limit or the network cut it): its row waits with its question answered again, and the next launch
 * gets the question, the answer and the resume state, so the question is never asked anew for lack of them.
 * The answer is still under `## Open Questions` (nothing rewrites an entry but the agent's next question), so a
 * run that stops before that launch leaves the next run the same.
 */
function answerAgain(ctx: StepContext, attempt: Attempt, answer: OpenQuestion, agentId: string, notes: RowNotes): void {
  ctx.state.answered.set(attempt.agent, answer)
  setRow(ctx, attempt.agent, {status: 'needs_input', agentId, notes: withNotes(notes, {question: actionableLine(answer.question)})})
}
