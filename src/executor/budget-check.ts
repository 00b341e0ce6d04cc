import {agentBudget} from '../plan/agent-budget.js'
import {budgetUse} from '../plan/budget-use.js'
import type {Attempt} from './exec-state.js'
import {withNotes} from './row-notes.js'
import {emit, row, setRowNotes, warn, type StepContext} from './step-context.js'
import {stopRun} from './stop-run.js'

/** Tokens and dollars spent. */
interface Spent {
  tokens: number
  usd: number
}

/**
 * What every attempt of every run has spent, from the rows' Notes (`tokens:`, `cost:`: on disk, so a rerun
 * after a SIGKILL knows it), plus what the running attempts have streamed so far.
 */
export function planSpent(ctx: Pick<StepContext, 'state'>): Spent {
  const spent: Spent = {tokens: 0, usd: 0}
  for (const current of ctx.state.table.rows.values()) {
    spent.tokens += current.notes.tokens ?? 0
    spent.usd += current.notes.cost ?? 0
  }
  for (const attempt of ctx.state.attempts.values()) addLive(spent, attempt)
  return spent
}

/**
 * The plan's budget before launching (the scheduling pass, the moment an attempt would start): keeps the
 * line under the table true, says once when the warning share and then the whole are reached (an event and
 * a line), and at 100 % launches nothing more: running agents finish, or with `on_budget: stop` are ended
 * as Ctrl-C ends them (resumable; no attempt used). Returns whether launching may go on.
 */
export function checkBudget(ctx: StepContext): boolean {
  const {state, config} = ctx
  const budget = config.budget
  if (!budget) {
    // No budget (a person took it out of the front matter): an old line goes.
    if (state.table.meta.budget) setLine(ctx, '')
    return true
  }
  const spent = planSpent(ctx)
  const use = budgetUse(budget.limit, spent, budget.warnAt)
  setLine(ctx, use.line)
  const seen = (state.budget ??= {})
  if (use.level !== 'under' && seen.said !== use.level && seen.said !== 'reached') {
    seen.said = use.level
    const reached = use.level === 'reached'
    emit(ctx, {type: 'budget', reached, line: use.line, spent: {tokens: spent.tokens, usd: spent.usd}, budget: budget.limit})
    // The event's line says it; what happens to the running agents is said where it is not the default.
    if (reached && budget.stop && state.attempts.size > 0) warn(ctx, `${use.line}: nothing more launches; the running agents are ended (on_budget: stop), resumable`)
  }
  if (use.level !== 'reached') {
    seen.reached = undefined
    return true
  }
  seen.reached = use.line
  if (budget.stop && !state.stopping && [...state.attempts.values()].some((attempt) => attempt.phase === 'running')) {
    seen.stopped = true
    stopRun(ctx)
  }
  return false
}

/** Whether the plan's budget is spent now (an attempt about to start is taken back). */
export function planBudgetReached(ctx: StepContext): boolean {
  const budget = ctx.config.budget
  return budget !== undefined && budgetUse(budget.limit, planSpent(ctx), budget.warnAt).level === 'reached'
}

/**
 * The agent's own budget is spent (its `budget` field against its row's spend and its live attempt's): the
 * `budget reached:` note's text (`2.1M of 2M tokens`), or undefined.
 */
export function ownBudgetReached(ctx: StepContext, id: string): string | undefined {
  const limit = agentBudget(ctx.state.byId.get(id))
  if (!limit) return undefined
  const notes = row(ctx, id).notes
  const spent: Spent = {tokens: notes.tokens ?? 0, usd: notes.cost ?? 0}
  const attempt = ctx.state.attempts.get(id)
  if (attempt) addLive(spent, attempt)
  const use = budgetUse(limit, spent)
  return use.level === 'reached' ? use.line.replace(/^budget reached: /, '') : undefined
}

/** A ready agent whose own budget is spent is not launched; its row says why. */
export function heldByOwnBudget(ctx: StepContext, id: string): boolean {
  const reached = ownBudgetReached(ctx, id)
  if (reached === undefined) return false
  if (row(ctx, id).notes.budgetReached !== reached) setRowNotes(ctx, id, (notes) => withNotes(notes, {budgetReached: reached}))
  return true
}

/** Whether a budget keeps the agent from launching now: the plan's, or its own. */
export function budgetHolds(ctx: StepContext, id: string): boolean {
  return ctx.state.budget?.reached !== undefined || ownBudgetReached(ctx, id) !== undefined
}

/**
 * A running attempt said what it has spent so far: its own budget spent ends it (settled as that, no attempt
 * used); the plan's budget spent ends every running agent when the plan says `on_budget: stop`.
 */
export function spentSoFar(ctx: StepContext, attempt: Attempt, spent: {tokens?: number; usd?: number}): void {
  attempt.spent = spent
  const own = attempt.overBudget === undefined ? ownBudgetReached(ctx, attempt.agent) : undefined
  if (own !== undefined && !attempt.killed) {
    attempt.overBudget = own
    attempt.killed = true
    ctx.effects.push({type: 'kill', agent: attempt.agent})
  }
  if (ctx.config.budget?.stop) checkBudget(ctx)
}

function addLive(spent: Spent, attempt: Attempt): void {
  spent.tokens += attempt.spent?.tokens ?? 0
  spent.usd += attempt.spent?.usd ?? 0
}

function setLine(ctx: StepContext, line: string): void {
  const {state} = ctx
  if ((state.table.meta.budget ?? '') === line) return
  state.table.meta.budget = line
  state.write.dirty = true
}
