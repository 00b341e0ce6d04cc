import {readNotes} from '../../src/executor/row-notes.js'
import {createExecState} from '../../src/executor/create-exec-state.js'
import {checkInvariants} from '../../src/executor/check-invariants.js'
import type {ExecConfig} from '../../src/executor/exec-config.js'
import type {ExecEffect} from '../../src/executor/exec-effect.js'
import type {ExecEvent} from '../../src/executor/exec-event.js'
import type {ExecState} from '../../src/executor/exec-state.js'
import {step} from '../../src/executor/step.js'
import {attemptLimit, failuresOf} from '../../src/executor/schedule-pass.js'
import {maxTransientRetries} from '../../src/executor/settle-attempt.js'
import type {StepContext} from '../../src/executor/step-context.js'
import {assessAgents} from '../../src/schedule/assess-agents.js'
import {updateAssessments} from '../../src/schedule/assessment-cache.js'
import type {Agent} from '../../src/plan/types.js'
import {longestRemainingPath} from '../../src/plan/longest-remaining-path.js'
import type {RunResult} from '../../src/runners/runner.js'
import type {HumanEdit, Conflict} from '../../src/store/merge-state.js'
import {mergeWaitLines} from '../../src/store/merge-wait-lines.js'
import {emptyRow, statusCell, type RowState, type TableState} from '../../src/store/table-state.js'
import {reviewRow} from '../../src/store/review-row.js'
import type {Attempt} from '../../src/executor/exec-state.js'
import {agentBudget} from '../../src/plan/agent-budget.js'
import type {ExecRow} from '../../src/executor/exec-row.js'

type ExecRowLike = Pick<ExecRow, 'notes'>

/** A row's Notes as values: the executor's row has them, a stored row has the cell's text. */
function notesOf(row: RowState | ExecRowLike): ReturnType<typeof readNotes> {
  return typeof row.notes === 'string' ? readNotes(row.notes) : row.notes
}

const span = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

export function simAgent(id: string, deps: string[], soft: string[] = []): Agent {
  const ref = (d: string) => ({id: d, position: span})
  return {id, name: id, position: span, section: span, dependsOn: deps.map(ref), softDependsOn: soft.map(ref), creates: [], modifies: [], deletes: [], fields: {}}
}

type Input = ExecEvent extends infer E ? (E extends unknown ? Omit<E, 'now'> : never) : never
export type ExitKind = 'success' | 'fail' | 'question' | 'rate' | 'limit' | 'unknown-session' | 'config' | 'transient' | 'never-started'

/** How long an engine's follow waits on a job state that does not move before it ends the attempt (src/hosts/job-attempt.ts stuckMs). */
export const stuckBoundMs = 60_000

/**
 * A deterministic world around the executor's core: the disk, the store's
 * merge, agent processes and git are simulated, every effect waits until a
 * test command completes it, and every promise is checked from the outside
 * (the agents' side): launches counted per agent, live processes against
 * the cap, the row on disk at each spawn.
 */
export class ExecSim {
  state: ExecState
  readonly config: ExecConfig
  now = 1_000_000
  /** The table on disk (a person edits this one). */
  disk: TableState
  /** The table mdplan last wrote: the merge base. */
  base: TableState
  writes: Array<Extract<ExecEffect, {type: 'write'}>> = []
  prepares: Array<{agent: string; attempt: number}> = []
  live = new Map<string, {attempt: number; killed: boolean; slots: number; stuckSince?: number; spent?: number}>()
  checks: Array<{agent: string; attempt: number}> = []
  /** Approved agents whose held work the run asked to merge (the `approve` effects not answered yet). */
  approves: string[] = []
  /** Agents whose work a review gate holds (`review: true`). */
  readonly gated: ReadonlySet<string>
  /** Agents a person sent back, with the note, and the failures their row recorded then: the next launch must carry the note and no new failure. */
  owedReview = new Map<string, {note: string; failures: number}>()
  /** Approved agents whose merge failed: mdplan set them failed, so a write issued before that (still saying completed) does not make them done. */
  mergeFailed = new Set<string>()
  /** Attempts already seen launched: a new one is checked against its dependencies once. */
  private seenAttempts = new WeakSet<Attempt>()
  questions: string[] = []
  looks = 0
  launches = new Map<string, number>()
  peak = 0
  /** Agents whose completed row a person set back: they may run again. */
  completedOnDisk = new Set<string>()
  /** Rows a person set to a status mdplan does not know while their agent was not running: never launched. */
  heldOnDisk = new Set<string>()
  recorded = new Set<string>()
  answers = new Map<string, string>()
  /**
   * Agents a person's answer was read for, until an attempt that used it ends (completed, failed, a new
   * question, or killed: its session has it): every launch meanwhile must carry it, so that a relaunch (its
   * session lost, a pause) never asks the question again for lack of it.
   */
  owed = new Set<string>()
  finished = false
  events: string[] = []
  violations: string[] = []
  agents: Agent[]
  /** The run lock was lost (removed, replaced, taken over from another host): nothing may launch or be written after. */
  lockLost = false
  /** A person's edit damaged the table (or left conflict markers): every write fails with DamagedTableError until repaired. */
  damaged = false

  /** A usage limit (`limit`) resets this long after the attempt ends. */
  limitResetMs = 3_600_000
  /** When each account's limit resets, as the CLIs said: nothing may launch on it before (the model's record). */
  resets = new Map<string, number>()

  constructor(
    agents: Agent[],
    concurrency: number,
    options: {
      git?: boolean
      maxAttempts?: number
      rows?: Map<string, RowState>
      childPlans?: Set<string>
      meta?: TableState['meta']
      account?: (agent: string) => string
      /** The most attempts each account may run at once (docs/limits.md, "Accounts"), by account. */
      accountCaps?: ReadonlyMap<string, number>
      waitForReset?: boolean
      now?: number
      budget?: ExecConfig['budget']
      gated?: ReadonlySet<string>
    } = {}
  ) {
    this.agents = agents
    const gated = options.gated ?? new Set<string>()
    this.gated = gated
    let ids = 0
    this.config = {
      concurrency,
      maxAttempts: options.maxAttempts ?? 2,
      failFast: false,
      canResume: () => true,
      newAgentId: (agent) => `${agent}-${++ids}`,
      git: options.git ?? true,
      childPlan: (agent) => options.childPlans?.has(agent) ?? false,
      logFile: (agent, attempt) => `/logs/${agent}.${attempt}.log`,
      rateLimitPauseMs: 60_000,
      ...(gated.size > 0 ? {review: (agent: Agent) => gated.has(agent.id)} : {}),
      ...(options.account ? {account: (agent: string) => options.account!(agent)} : {}),
      ...(options.accountCaps ? {accountCap: (agent: string) => options.accountCaps!.get(options.account?.(agent) ?? 'agents on local')} : {}),
      ...(options.waitForReset !== undefined ? {waitForReset: options.waitForReset} : {}),
      ...(options.budget ? {budget: options.budget} : {})
    }
    if (options.now !== undefined) this.now = options.now
    // A table as an earlier run left it: some rows done, failed, waiting for an answer, or orphaned in_progress.
    const table: TableState = {rows: new Map(agents.map((a) => [a.id, options.rows?.get(a.id) ?? emptyRow()])), meta: {...options.meta}}
    for (const [id, row] of table.rows) {
      if (row.status === 'completed') this.completedOnDisk.add(id)
      if (row.status === 'needs_input') this.recorded.add(id)
    }
    this.disk = clone(table)
    this.base = clone(table)
    this.state = createExecState({agents, priority: longestRemainingPath({agents} as never), table, rateLimitPauseMs: 60_000})
  }

  /** Set to an array to record every event with the table before it (replaying a failure). */
  trace: string[] | undefined

  /** Events dispatched while set are marked `more` (a batch the driver steps together); `batch` ends it. */
  more = false

  dispatch(event: Input): void {
    if (this.finished) return
    if (this.more) event = {...event, more: true}
    this.trace?.push(`${event.type} ${JSON.stringify(event).slice(0, 120)} | ${[...this.state.table.rows].map(([id, row]) => `${id}:${row.status}`).join(' ')} | live ${[...this.state.attempts.values()].map((a) => `${a.agent}:${a.phase}`).join(' ')}`)
    if (this.trace) console.log(this.trace.at(-1))
    const before = new Map([...this.gated].map((id) => [id, this.state.table.rows.get(id)?.status]))
    const result = step(this.state, {...event, now: this.now} as ExecEvent, this.config)
    this.state = result.state
    checkInvariants(this.state, this.config)
    this.checkAssessments()
    // A person's edit adopted by a write may complete a row the run had not launched yet: that is their approval.
    if (event.type !== 'write-done') this.checkGates(before)
    else this.checkGates(new Map())
    for (const effect of result.effects) this.perform(effect)
  }

  /**
   * The scheduler's kept assessments, brought up to date now (on a copy: the run's own is untouched),
   * equal those of a pass over every agent from scratch.
   */
  checkAssessments(): void {
    const {state} = this
    const kept = state.assessed
    if (!kept) return
    const ctx = {state, config: this.config} as StepContext
    const view = {
      agents: state.agents,
      status: new Map([...state.table.rows].map(([id, row]) => [id, row.status])),
      running: new Set([...state.attempts.keys(), ...state.approving]),
      attemptsUsed: new Map([...state.table.rows].map(([id, row]) => [id, failuresOf(row.notes)])),
      attemptLimit: (id: string) => attemptLimit(ctx, id),
      answered: new Set(state.answered.keys()),
      filesCreated: state.filesCreated,
      held: new Set([...state.table.rows].filter(([, row]) => row.held !== undefined).map(([id]) => id))
    }
    const copy = {...kept, inputs: new Map(kept.inputs), assessments: new Map(kept.assessments), ready: new Set(kept.ready), touched: new Set(kept.touched)}
    const live = {inputs: (id: string) => ({row: state.table.rows.get(id), running: state.attempts.has(id) || state.approving.has(id), answered: state.answered.has(id), limit: attemptLimit(ctx, id)})}
    const incremental = updateAssessments(copy, view, live)
    const full = assessAgents(view)
    for (const [id, assessment] of full) {
      const mine = incremental.assessments.get(id)
      if (JSON.stringify(mine) !== JSON.stringify(assessment)) this.violations.push(`${id}: kept assessment ${JSON.stringify(mine)}, from scratch ${JSON.stringify(assessment)}`)
      if ((assessment.kind === 'ready') !== incremental.ready.has(id)) this.violations.push(`${id}: ready set says ${incremental.ready.has(id)}, assessment ${assessment.kind}`)
    }
  }

  /**
   * The review gate's promises, from outside: a gated agent's attempt never completes it (only a person's
   * approval does), and no attempt starts while one of its hard dependencies awaits review or has its
   * approved work being merged.
   */
  checkGates(before: ReadonlyMap<string, string | undefined>): void {
    const {state} = this
    for (const [id, was] of before) {
      if (was === 'in_progress' && state.table.rows.get(id)?.status === 'completed') this.violations.push(`${id}: its gated work completed without a person's review`)
    }
    for (const attempt of state.attempts.values()) {
      if (this.seenAttempts.has(attempt)) continue
      this.seenAttempts.add(attempt)
      for (const dep of state.byId.get(attempt.agent)?.dependsOn ?? []) {
        if (state.table.rows.get(dep.id)?.status === 'awaiting_review') this.violations.push(`${attempt.agent} launched while ${dep.id} awaits review`)
        if (state.approving.has(dep.id)) this.violations.push(`${attempt.agent} launched while the approved work of ${dep.id} was being merged`)
      }
    }
  }

  perform(effect: ExecEffect): void {
    switch (effect.type) {
      case 'write':
        if (this.lockLost) this.violations.push(`wrote the table (seq ${effect.seq}) after the lock was lost`)
        this.writes.push(effect)
        return
      case 'prepare':
        this.prepares.push({agent: effect.agent, attempt: effect.attempt})
        return
      case 'spawn': {
        const id = effect.agent
        if (this.live.has(id)) this.violations.push(`${id} spawned beside its live process`)
        if (this.lockLost) this.violations.push(`${id} spawned after the lock was lost`)
        if (this.base.rows.get(id)?.status !== 'in_progress') this.violations.push(`${id} spawned while mdplan's last write says ${this.base.rows.get(id)?.status}`)
        if (this.completedOnDisk.has(id)) this.violations.push(`${id} relaunched after it completed, with no person asking`)
        if (this.heldOnDisk.has(id)) this.violations.push(`${id} launched while its row holds a status mdplan does not know`)
        if (this.owed.has(id) && !effect.answer) this.violations.push(`${id} launched without the answer it was given`)
        const review = this.owedReview.get(id)
        if (review && effect.review !== review.note) this.violations.push(`${id} launched without the review note it was sent back with (${JSON.stringify(effect.review)})`)
        if (review && failuresOf(this.state.table.rows.get(id)!.notes) !== review.failures) this.violations.push(`${id}: a review's rejection used an attempt`)
        this.owedReview.delete(id)
        this.checkBudgets(id)
        const account = this.config.account?.(id, undefined)
        const reset = account === undefined ? undefined : this.resets.get(account)
        if (reset !== undefined && this.now < reset) this.violations.push(`${id} launched on ${account} at ${this.now}, before its limit resets at ${reset}`)
        this.live.set(id, {attempt: effect.attempt, killed: false, slots: effect.slots})
        this.checkAccountCap(id)
        // A child plan's slots are the processes its own run may start.
        const processes = [...this.live.values()].reduce((sum, live) => sum + live.slots, 0)
        this.peak = Math.max(this.peak, processes)
        if (processes > this.config.concurrency) this.violations.push(`${processes} processes over a cap of ${this.config.concurrency}`)
        this.launches.set(id, (this.launches.get(id) ?? 0) + 1)
        return
      }
      case 'kill': {
        const process = this.live.get(effect.agent)
        if (process) process.killed = true
        return
      }
      case 'check':
        this.checks.push({agent: effect.agent, attempt: effect.attempt})
        return
      case 'record-question':
        this.questions.push(effect.agent)
        return
      case 'approve':
        this.approves.push(effect.agent)
        return
      case 'emit':
        this.events.push(effect.event.type)
        return
      case 'look':
        this.looks++
        return
      case 'finish':
        this.finished = true
        return
      case 'abandon':
      case 'timer':
        return
    }
  }

  /**
   * Nothing launches once a budget is spent (docs/limits.md, "Budgets"): the plan's, by what the rows record
   * on disk and in the run (and the running attempts have streamed), and the agent's own, by its row.
   */
  checkBudgets(id: string): void {
    const tokens = (rows: Iterable<RowState | ExecRowLike>): number => [...rows].reduce((sum, row) => sum + (notesOf(row).tokens ?? 0), 0)
    const streamed = [...this.live.values()].reduce((sum, live) => sum + (live.spent ?? 0), 0)
    const limit = this.config.budget?.limit.tokens
    if (limit !== undefined) {
      const known = tokens(this.state.table.rows.values()) + streamed
      if (known >= limit) this.violations.push(`${id} launched with ${known} tokens spent of a budget of ${limit}`)
      const onDisk = tokens(this.base.rows.values())
      if (onDisk >= limit) this.violations.push(`${id} launched with ${onDisk} tokens spent on disk of a budget of ${limit}`)
    }
    const own = agentBudget(this.state.byId.get(id))?.tokens
    const used = notesOf(this.state.table.rows.get(id) ?? emptyRow()).tokens ?? 0
    if (own !== undefined && used >= own) this.violations.push(`${id} launched with ${used} of its own budget of ${own} tokens spent`)
  }

  /** From the agents' side: the processes alive on the account of the one just spawned are at most its cap. */
  private checkAccountCap(id: string): void {
    const cap = this.config.childPlan(id) ? undefined : this.config.accountCap?.(id, undefined)
    if (cap === undefined) return
    const account = this.config.account?.(id, undefined)
    const alive = [...this.live.keys()].filter((other) => !this.config.childPlan(other) && this.config.account?.(other, undefined) === account).length
    if (alive > cap) this.violations.push(`${id} spawned: ${alive} live processes on ${account ?? 'the one account'}, over its cap of ${cap}`)
  }

  /** A running agent says what it has spent so far (opencode's steps, a script's `USAGE:` lines). */
  stream(pick: number, tokens: number): boolean {
    const entries = [...this.live].filter(([, process]) => !process.killed)
    const entry = entries[pick % Math.max(1, entries.length)]
    if (!entry) return false
    const [agent, process] = entry
    process.spent = (process.spent ?? 0) + tokens
    this.dispatch({type: 'spent', agent, attempt: process.attempt, usage: {tokens: process.spent}})
    return true
  }

  /** The store: merge a person's status edits (cell by cell against the base), then the disk is the write. */
  completeWrite(ok: boolean): boolean {
    const write = this.writes.shift()
    if (!write) return false
    if (this.damaged) {
      this.dispatch({type: 'write-failed', seq: write.seq, error: 'plan.md:12:1: the Execution State table no longer reads as a table [damaged-state-table]', repairable: true})
      return true
    }
    if (!ok) {
      // A full disk or a read-only folder: not a person's edit, nothing to wait for.
      this.dispatch({type: 'write-failed', seq: write.seq, error: 'plan.md: ENOSPC', repairable: false})
      return true
    }
    const merged = clone(write.table)
    const humanEdits: HumanEdit[] = []
    const conflicts: Conflict[] = []
    for (const [id, onDisk] of this.disk.rows) {
      const was = this.base.rows.get(id)
      const mine = merged.rows.get(id)
      if (!mine || !was || statusCell(onDisk) === statusCell(was)) continue
      if (write.running.has(id) && statusCell(mine) !== statusCell(onDisk)) {
        conflicts.push({agent: id, column: 'Status', mine: statusCell(mine), theirs: statusCell(onDisk), winner: 'mdplan'})
        humanEdits.push({agent: id, column: 'Status', from: statusCell(was), to: statusCell(onDisk)})
        continue
      }
      // A person's Notes (a review's rejection note) come with their Status edit.
      const next: RowState = {...mine, status: onDisk.status, ...(onDisk.notes !== was.notes ? {notes: onDisk.notes} : {})}
      if (onDisk.notes !== was.notes) humanEdits.push({agent: id, column: 'Notes', from: was.notes, to: onDisk.notes})
      if (onDisk.held === undefined) delete next.held
      else next.held = onDisk.held
      merged.rows.set(id, next)
      humanEdits.push({agent: id, column: 'Status', from: statusCell(was), to: statusCell(onDisk)})
    }
    // A person's edit of the wait lines stands (deleting one clears that wait), as the store merges it.
    const waits = mergeWaitLines(this.base.meta.waits, write.table.meta.waits, this.disk.meta.waits)
    if (waits.edited) humanEdits.push({agent: '', column: 'Waits', from: this.base.meta.waits ?? '', to: this.disk.meta.waits ?? ''})
    if (waits.text !== undefined) merged.meta.waits = waits.text
    this.disk = clone(merged)
    this.base = clone(merged)
    // A skip that meets an attempt mdplan launched meanwhile loses to it (the documented conflict rule).
    for (const [id, row] of merged.rows) if (row.status === 'completed' && !this.state.attempts.has(id) && !this.mergeFailed.has(id)) this.completedOnDisk.add(id)
    this.dispatch({type: 'write-done', seq: write.seq, result: {state: clone(merged), humanEdits, conflicts, bytes: 1, ms: 1}})
    return true
  }

  completePrepare(pick: number, error: boolean): boolean {
    const prepare = this.prepares.splice(pick % Math.max(1, this.prepares.length), 1)[0]
    if (!prepare) return false
    this.dispatch({type: 'prepared', ...prepare, cwd: '/work', notes: {base: 'abc123'}, warnings: [], error: error ? 'worktree: no space' : undefined})
    return true
  }

  exit(pick: number, kind: ExitKind, tokens = 0): boolean {
    // A job whose engine state never moves ends only by the follow's bound (`tick`), or when it is stopped.
    const entries = [...this.live].filter(([, process]) => process.stuckSince === undefined || process.killed)
    const entry = entries[pick % Math.max(1, entries.length)]
    if (!entry) return false
    return this.end(entry[0], kind, tokens)
  }

  /**
   * The engine leaves a live attempt's job in a state that never moves (a container stuck `created`, a queued
   * job gone from the queue): only the follow's bound ends it, as a job that never started its agent.
   */
  stick(pick: number): boolean {
    const entries = [...this.live].filter(([, process]) => process.stuckSince === undefined)
    const entry = entries[pick % Math.max(1, entries.length)]
    if (!entry) return false
    entry[1].stuckSince = this.now
    return true
  }

  private end(agent: string, kind: ExitKind, tokens = 0): boolean {
    const process = this.live.get(agent)!
    this.live.delete(agent)
    if (process.killed || ['success', 'fail', 'question', 'config'].includes(kind)) this.owed.delete(agent)
    // What the attempt spent in all, as its CLI says at its end: what it streamed, and more.
    const spent = (process.spent ?? 0) + tokens
    const ended: RunResult = process.killed
      ? {ok: false, finalText: '', interrupted: true, reason: 'interrupted'}
      : kind === 'success'
        ? {ok: true, finalText: 'RESULT: SUCCESS\ndone'}
        : kind === 'question'
          ? {ok: true, finalText: 'RESULT: QUESTION\nQuestion: which store?\nOptions:\n1. Redis\n2. SQLite'}
          : kind === 'rate'
            ? {ok: false, finalText: '', rateLimited: true, reason: 'rate limit'}
            : kind === 'limit'
            ? {ok: false, finalText: '', rateLimited: true, resetAt: this.now + this.limitResetMs, reason: "You've hit your usage limit"}
            : kind === 'transient'
              ? {ok: false, finalText: '', transient: true, reason: 'ECONNRESET'}
              : kind === 'unknown-session'
              ? {ok: false, finalText: '', unknownSession: true, reason: 'no such session'}
              : kind === 'never-started'
              ? {ok: false, finalText: '', notStarted: true, reason: 'the container stayed created and never started its job'}
              : {ok: false, finalText: '', reason: kind === 'config' ? 'Not logged in' : 'tests failed', configError: kind === 'config', exitCode: 1}
    const result: RunResult = spent > 0 ? {...ended, usage: {tokens: spent}} : ended
    const spends = failuresOf(this.state.table.rows.get(agent)?.notes ?? readNotes(''))
    const free = result.notStarted === true && (this.state.transientRetries.get(agent) ?? 0) < maxTransientRetries
    if (kind === 'limit' && !process.killed) {
      const account = this.config.account?.(agent, undefined) ?? 'agents on local'
      this.resets.set(account, Math.max(this.resets.get(account) ?? 0, this.now + this.limitResetMs))
    }
    this.dispatch({type: 'exited', agent, attempt: process.attempt, result})
    // Ended on purpose (Ctrl-C, a lost lock, a budget): no attempt used.
    if (process.killed && failuresOf(this.state.table.rows.get(agent)?.notes ?? readNotes('')) > spends) this.violations.push(`${agent}: an attempt ended on purpose used an attempt`)
    // A usage limit is the account's, not the agent's: it never uses an attempt.
    if (kind === 'limit' && !process.killed && failuresOf(this.state.table.rows.get(agent)?.notes ?? readNotes('')) > spends) this.violations.push(`${agent}: a usage limit used an attempt`)
    // A job that never started its agent is tried again without using an attempt (a few times in a row).
    if (free && failuresOf(this.state.table.rows.get(agent)?.notes ?? readNotes('')) > spends) this.violations.push(`${agent}: a job that never started used an attempt`)
    return true
  }

  completeCheck(pick: number, fail: boolean): boolean {
    const check = this.checks.splice(pick % Math.max(1, this.checks.length), 1)[0]
    if (!check) return false
    this.dispatch({type: 'checked', ...check, notes: {commit: 'def456'}, warnings: [], fail: fail ? 'scope: touched x' : undefined})
    return true
  }

  /** The approved work of an agent is merged (or, `fail`, conflicts). */
  completeApprove(pick: number, fail: boolean): boolean {
    const agent = this.approves.splice(pick % Math.max(1, this.approves.length), 1)[0]
    if (agent === undefined) return false
    // A merge that conflicts fails the agent: it may run again (a retry), as after any failed merge.
    if (fail) {
      this.completedOnDisk.delete(agent)
      this.mergeFailed.add(agent)
    }
    this.dispatch({type: 'approved', agent, notes: fail ? {} : {commit: 'abc999'}, warnings: [], ...(fail ? {fail: 'merge conflict in x'} : {})})
    return true
  }

  /** A person approves (`mdplan review --approve`) or sends back an agent awaiting review, through the command's own row edit. */
  review(pick: number, approve: boolean): boolean {
    const waiting = [...this.disk.rows].filter(([id, row]) => row.status === 'awaiting_review' && !this.state.attempts.has(id))
    const entry = waiting[pick % Math.max(1, waiting.length)]
    if (!entry) return false
    const [id, row] = entry
    const next = reviewRow(row, approve ? {kind: 'approve'} : {kind: 'reject', note: 'use tabs'})!
    this.disk.rows.set(id, next)
    this.owed.delete(id)
    this.mergeFailed.delete(id)
    if (approve) this.completedOnDisk.add(id)
    else this.owedReview.set(id, {note: 'use tabs', failures: failuresOf(this.state.table.rows.get(id)!.notes)})
    this.dispatch({type: 'file-changed'})
    return true
  }

  completeQuestion(): boolean {
    const agent = this.questions.shift()
    if (!agent) return false
    this.recorded.add(agent)
    this.answers.delete(agent)
    this.dispatch({type: 'question-written', agent})
    return true
  }

  answer(pick: number): boolean {
    const waiting = [...this.recorded].filter((id) => this.disk.rows.get(id)?.status === 'needs_input' && !this.answers.has(id))
    const agent = waiting[pick % Math.max(1, waiting.length)]
    if (!agent) return false
    this.answers.set(agent, '2')
    const answered = new Map([...this.answers].map(([id, answer]) => [id, {agent: id, question: 'which store?', context: '', options: ['Redis', 'SQLite'], resumeState: '', answer, position: span}]))
    this.dispatch({type: 'answers', answered})
    if (this.state.answered.has(agent)) this.owed.add(agent)
    return true
  }

  /** A person sets a row back to pending (a re-queue) or skips a pending one. */
  edit(pick: number, to: 'pending' | 'completed' | 'skipped'): boolean {
    const ids = [...this.disk.rows.keys()]
    const id = ids[pick % Math.max(1, ids.length)]
    if (!id) return false
    const row: RowState = {...this.disk.rows.get(id)!}
    delete row.held
    this.owed.delete(id)
    this.owedReview.delete(id)
    this.mergeFailed.delete(id)
    // `skipped` is no status mdplan knows: the row reads as pending, holding the text (a held agent).
    this.disk.rows.set(id, to === 'skipped' ? {...row, status: 'pending', held: to} : {...row, status: to})
    this.heldOnDisk.delete(id)
    if (to === 'skipped') {
      this.completedOnDisk.delete(id)
      if (!this.state.attempts.has(id)) this.heldOnDisk.add(id)
    } else if (to === 'pending') this.completedOnDisk.delete(id)
    // On a row mdplan is running, mdplan's value wins the merge (a conflict), so the skip does not hold.
    else if (!this.state.attempts.has(id)) this.completedOnDisk.add(id)
    this.dispatch({type: 'file-changed'})
    return true
  }

  completeLook(): boolean {
    if (this.looks === 0) return false
    this.looks--
    this.dispatch({type: 'looked'})
    return true
  }

  tick(ms: number): void {
    this.now += ms
    this.dispatch({type: 'tick'})
    // Every wait has an end: a job stuck past the bound ends as one that never started.
    for (const [agent, process] of [...this.live]) if (process.stuckSince !== undefined && !process.killed && this.now - process.stuckSince >= stuckBoundMs) this.end(agent, 'never-started')
  }

  addAgent(pick: number): void {
    const id = `N${this.agents.length}`
    const deps = this.agents.length > 0 ? [this.agents[pick % this.agents.length]!.id] : []
    this.agents = [...this.agents, simAgent(id, deps)]
    this.dispatch({type: 'plan-changed', agents: this.agents, priority: longestRemainingPath({agents: this.agents} as never)})
  }

  /**
   * Events that arrive together, as the driver steps them: every one but the last marked `more`. The
   * batch ends with an event that changes nothing (a stale agent-id), so whatever the commands did, its
   * last event is a plain one.
   */
  batch(commands: Array<(sim: ExecSim) => unknown>): void {
    this.more = true
    try {
      for (const command of commands) command(this)
    } finally {
      this.more = false
    }
    this.dispatch({type: 'agent-id', agent: '', attempt: -1, agentId: ''})
  }

  /** Let everything under way finish well, until the run ends. Returns false when it cannot end (a hang). */
  drain(limit = 10_000): boolean {
    for (let i = 0; i < limit && !this.finished; i++) {
      const progressed =
        this.completeWrite(true) ||
        this.completePrepare(0, false) ||
        this.exit(0, 'success') ||
        this.completeCheck(0, false) ||
        this.completeApprove(0, false) ||
        this.completeQuestion() ||
        this.completeLook()
      if (!progressed) this.tick(16 * 60_000)
    }
    return this.finished
  }
}

function clone(table: TableState): TableState {
  return {rows: new Map([...table.rows].map(([id, row]) => [id, {...row, extra: {...row.extra}}])), meta: {...table.meta}}
}
