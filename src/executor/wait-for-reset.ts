import type {Assessment} from '../schedule/assess-agents.js'
import {waitEnds} from './account-waits.js'
import {placeAttempt} from './place-attempt.js'
import {budgetHolds} from './budget-check.js'
import {isoSeconds, warn, type StepContext} from './step-context.js'

/** Accounts holding back every agent that is ready: when the first wait ends, and whether the CLIs named every reset. */
export interface Held {
  until: number
  accounts: string[]
  reset: boolean
}

/**
 * Nothing runs and agents are ready, but every one of them waits for its account (wait lines): the run can
 * make no progress before the first wait ends. Undefined when some ready agent could launch.
 */
export function heldByWaits(ctx: StepContext, assessments: ReadonlyMap<string, Assessment>): Held | undefined {
  const {state} = ctx
  if (state.waits.size === 0) return undefined
  // An agent a budget keeps back launches no sooner for a reset.
  for (const [id, assessment] of assessments) if (assessment.kind === 'ready' && !budgetHolds(ctx, id) && placeAttempt(ctx, id) !== undefined) return undefined
  let until = Infinity
  let reset = true
  const accounts: string[] = []
  for (const [account, wait] of state.waits) {
    if (ctx.now >= waitEnds(wait)) continue
    accounts.push(account)
    until = Math.min(until, waitEnds(wait))
    reset &&= wait.reset
  }
  return accounts.length === 0 ? undefined : {until, accounts, reset}
}

/**
 * The run can make no progress before a reset: with `--wait-for-reset` (or when a wait is mdplan's own short
 * backoff) it waits in the foreground and says so once; else it ends, recording `limited` for its exit code.
 * Returns whether the run waits.
 */
export function waitForReset(ctx: StepContext, held: Held): boolean {
  const {state, config} = ctx
  const waits = config.waitForReset === true || !held.reset
  if (waits && state.stalledUntil !== held.until) {
    state.stalledUntil = held.until
    warn(ctx, `no agent can launch before ${isoSeconds(held.until)}: ${held.accounts.join(', ')} ${held.accounts.length === 1 ? 'waits' : 'wait'} for a usage limit to reset; waiting`)
  }
  if (waits) return true
  state.limited = {until: held.until, accounts: held.accounts}
  return false
}
