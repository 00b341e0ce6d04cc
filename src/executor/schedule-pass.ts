import type {Assessment} from '../schedule/assess-agents.js'
import {markRunning, updateAssessments, type AssessmentCache} from '../schedule/assessment-cache.js'
import {blockedNote} from '../schedule/blocked-note.js'
import {nextLaunches} from '../schedule/next-launches.js'
import type {Attempt, ResumeKind} from './exec-state.js'
import {attemptNumber} from './attempt-number.js'
import {placeAttempt, sessionHost, type Placement} from './place-attempt.js'
import {accountField} from './account-full.js'
import {endWaits} from './account-waits.js'
import {checkBudget, heldByOwnBudget} from './budget-check.js'
import {renderNotes, withNotes, type RowNotes} from './row-notes.js'
import {readReviewNote} from '../plan/review-note.js'
import {emit, isoSeconds, row, setRow, setRowNotes, type StepContext} from './step-context.js'

/**
 * Failed attempts recorded in a row's Notes (its `attempt N:` items): what the attempt limit counts.
 * Counted, not the highest N: a re-queued agent's attempts go on from its last number (attempt-number.ts),
 * and the attempts that completed before are not failures.
 */
export function failuresOf(notes: RowNotes): number {
  return notes.attempts.size
}

export function attemptLimit(ctx: StepContext, id: string): number {
  if (ctx.state.noRetry.has(id)) return 0
  return ctx.config.maxAttempts + (ctx.state.extraAttempts.get(id) ?? 0)
}

/**
 * Every agent classified from the table and the live attempts alone. Kept in the state between passes
 * (`state.assessed`): a pass assesses again only the agents whose row, attempt, answer or limit changed,
 * and the dependants that read them differently since, so an event costs what it changed, not the plan.
 */
export function assess(ctx: StepContext): Map<string, Assessment> {
  return assessed(ctx).assessments
}

function assessed(ctx: StepContext): AssessmentCache {
  const {state} = ctx
  const rows = state.table.rows
  const cache = updateAssessments(
    state.assessed,
    {
      agents: state.agents,
      status: {get: (id) => rows.get(id)?.status},
      // An approved agent whose held work is being merged is not done yet: its dependants wait for the merge.
      running: {has: (id) => state.attempts.has(id) || state.approving.has(id)},
      // Only a failed row's attempts decide anything (retry or give up): no other row's notes are read.
      attemptsUsed: {get: (id) => failuresOf(row(ctx, id).notes)},
      attemptLimit: (id) => attemptLimit(ctx, id),
      answered: state.answered,
      filesCreated: state.filesCreated,
      held: {has: (id) => rows.get(id)?.held !== undefined},
      // Read from the definitions, which a new cache comes with: an edit that fixes the host lifts the hold.
      unplaced: {has: (id) => ctx.config.unplaceable?.(state.byId.get(id)!) !== undefined}
    },
    {inputs: (id) => ({row: rows.get(id), running: state.attempts.has(id) || state.approving.has(id), answered: state.answered.has(id), limit: attemptLimit(ctx, id)})}
  )
  state.assessed = cache
  return cache
}

export function canLaunch(ctx: StepContext): boolean {
  const {state} = ctx
  return !state.stopping && state.write.failed === undefined && !state.failFastTripped && ctx.now >= state.pausedUntil
}

/**
 * The scheduling pass: note what blocks each pending agent, then mark as many
 * ready agents launched as there are free slots (longest remaining path
 * first). A marked attempt is `recording`: it spawns once the write that
 * records it is done. Returns the assessments it decided on.
 */
export function schedulePass(ctx: StepContext): Map<string, Assessment> {
  const cache = assessed(ctx)
  const {assessments} = cache
  noteBlocked(ctx, cache)
  endWaits(ctx)
  // The budgets first: the plan's line and the rows of agents whose own budget is spent stay true while
  // nothing can launch for another reason (those agents are not launched).
  const ready = [...cache.ready].filter((id) => !heldByOwnBudget(ctx, id))
  if (!checkBudget(ctx) || !canLaunch(ctx)) return assessments
  const {state, config} = ctx
  let used = slotsUsed(ctx)
  // Only the ready agents, in plan order (ties keep it); without hosts, not those whose account waits for a
  // reset (they would take the free slots from agents of other accounts).
  const order = ready
    .filter((id) => config.hosts !== undefined || state.waits.size === 0 || placeAttempt(ctx, id) !== undefined)
    .sort((a, b) => cache.index.get(a)! - cache.index.get(b)!)
  // With hosts, a ready agent whose pool is full must not hold back one that fits elsewhere; with account caps,
  // one whose account is full must not hold back an agent of another account: look at all of them.
  const all = config.hosts !== undefined || config.accountCap !== undefined
  const launches = nextLaunches({order, assessments, runningCount: all ? 0 : used, concurrency: all ? state.order.length : config.concurrency, priority: state.priority})
  const freeAtStart = config.concurrency - used
  launches.forEach((id, index) => {
    const free = config.concurrency - used
    if (free <= 0) return
    const place = placeAttempt(ctx, id)
    if (!place) return
    // A child plan takes what the launches after it leave of the free slots (at least one).
    // Never more than the free slots: with hosts or account caps the launches list agents that may not be placed.
    const slots = config.childPlan(id) ? Math.min(free, Math.max(1, free - (Math.min(freeAtStart, launches.length) - index - 1))) : 1
    const assessment = assessments.get(id)!
    startAttempt(ctx, id, assessment.kind === 'ready' ? assessment.resume : 'fresh', slots, place)
    markRunning(cache, id)
    used += slots
  })
  return assessments
}

/** Slots of the cap the live attempts hold. */
export function slotsUsed(ctx: Pick<StepContext, 'state'>): number {
  let used = 0
  for (const attempt of ctx.state.attempts.values()) used += attempt.slots
  return used
}

/** Keep each pending row's `blocked by` note true; only agents assessed again (or whose row changed) can need it. */
function noteBlocked(ctx: StepContext, cache: AssessmentCache): void {
  const touched = [...cache.touched].sort((a, b) => cache.index.get(a)! - cache.index.get(b)!)
  cache.touched.clear()
  for (const id of touched) {
    const current = row(ctx, id)
    if (current.status !== 'pending') continue
    const assessment = cache.assessments.get(id)
    const value = blockedNote(assessment)
    if (current.notes.blockedBy === value) continue
    setRowNotes(ctx, id, {blockedBy: value})
    if (value && assessment?.kind === 'blocked') emit(ctx, {type: 'blocked', agent: id, by: assessment.by.map((b) => b.id)})
  }
}

function startAttempt(ctx: StepContext, id: string, resume: 'answer' | 'retry' | 'fresh', slots: number, place: Placement): void {
  const {state, config} = ctx
  const previous = row(ctx, id)
  const answer = resume === 'answer' ? state.answered.get(id) : undefined
  // A row left in_progress by a run that died is resumed through the runner when it can.
  const orphaned = previous.status === 'in_progress' && (previous.agentId !== '' || place.reattach !== undefined)
  // Its work sent back by a person (docs/review.md): the note goes to it as an answer does, its session resumed.
  // A retry after the rerun failed still gets the note, after what failed (its session is not resumed then).
  const review = previous.status === 'pending' || previous.status === 'failed' ? reviewRejection(previous.notes) : undefined
  const rejected = review !== undefined && previous.status === 'pending'
  // A session lives on the machine it ran on: placed elsewhere (its host lost, or no longer in the pool), it starts anew.
  const home = sessionHost(previous)
  const here = home === undefined || home === place.host
  const resumeSession =
    config.canResume(id) && previous.agentId !== '' && here && (orphaned || answer !== undefined || rejected) ? previous.agentId : undefined
  const resumeKind: ResumeKind = orphaned ? 'orphan' : rejected ? 'review' : resume
  let notes = previous.notes
  // It goes on in the folder its session was made in, with the work left there; elsewhere, in a folder of its own.
  const work = here ? notes.work?.key : undefined
  if (!here) notes = withNotes(notes, {work: undefined})
  // A `conflict:` note told what an edit of the row met before this launch (docs/plan-format.md): the launch writes the row anew.
  notes = withNotes(notes, {blockedBy: undefined, softBlockedBy: undefined, paused: undefined, conflict: undefined, budgetReached: undefined})
  // A job still named by its key is not relaunched: the attempt attaches to it (or submits it, if the host never got it).
  if (orphaned && !resumeSession && !place.reattach) notes = withNotes(notes, {relaunched: `run ended while ${previous.agentId || 'it'} ran`})
  const number = attemptNumber(previous.notes, state.attemptsSeen.get(id) ?? 0, previous.status === 'in_progress' || answer !== undefined)
  const remote = config.hosts?.remote(place.host) ?? false
  const key = place.reattach ?? (remote ? config.hosts!.newKey(id, number) : config.localJobs?.newKey(id, number))
  // The write-ahead log: the key is in the row, on disk, before anything is submitted under it.
  notes = withNotes(notes, {job: key ? {host: place.host, key} : undefined})
  if (answer) {
    notes = withNotes(notes, {question: undefined})
    // Used once: a second question from the same agent waits for a new answer.
    state.answered.delete(id)
  }
  const sessionId = resumeSession ?? (place.reattach && previous.agentId !== '' ? previous.agentId : config.newAgentId(id))
  const attempt: Attempt = {
    agent: id,
    attempt: number,
    phase: 'recording',
    // A re-attached job has run since its launch: its Duration counts from then, not from the re-attach.
    startedAt: Math.min(ctx.now, (place.reattach !== undefined ? launchedAt(ctx, place.reattach, remote) : undefined) ?? ctx.now),
    recordedBy: state.write.seq + 1,
    sessionId,
    resumeSession,
    resumeKind,
    previous,
    answer,
    ...(review !== undefined ? {review} : {}),
    killed: false,
    slots,
    ...accountField(ctx, id, config.hosts ? place.host : undefined),
    ...(config.hosts ? {host: place.host} : {}),
    ...(key ? {key, reattach: place.reattach !== undefined} : {}),
    ...(key && work !== undefined && work !== key ? {work} : {})
  }
  state.attempts.set(id, attempt)
  state.peakConcurrency = Math.max(state.peakConcurrency, slotsUsed(ctx))
  state.firstLaunchAt ??= ctx.now
  state.finalLook = 'none'
  if (!state.table.meta.started || state.newTiming) state.table.meta.started = isoSeconds(ctx.now)
  if (state.newTiming) state.newTiming = false
  setRow(ctx, id, {status: 'in_progress', agentId: sessionId ?? '', duration: '', notes})
  // The write is the gate to the spawn, even when the row reads the same (a resumed orphan).
  state.write.dirty = true
}

/** When the job a rerun goes back to was launched, if known. */
function launchedAt(ctx: StepContext, key: string, remote: boolean): number | undefined {
  return remote ? ctx.config.hosts?.launchedAt?.(key) : ctx.config.localJobs?.launchedAt?.(key)
}

/** The note a person sent an agent's work back with (`review: rejected: <note>`), or undefined. */
function reviewRejection(notes: RowNotes): string | undefined {
  if (notes.review === undefined) return undefined
  const review = readReviewNote(renderNotes(notes))
  return review?.state === 'rejected' ? review.note : undefined
}
