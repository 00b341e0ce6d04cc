import {formatWaitLine, parseWaitLine} from '../plan/wait-line.js'
import type {AccountWait, ExecState} from './exec-state.js'
import type {ExecConfig} from './exec-config.js'
import {emit, type StepContext} from './step-context.js'

/** After a reset the CLI named, this much more before launching there again (clocks differ; resets land late). */
export const resetMarginMs = 30_000

/** The account of an agent's attempts when the run names none (the executor's own tests): one for every agent. */
export const defaultAccount = 'agents on local'


/** The account an agent's attempt uses on a host (undefined: this machine, or not placed yet). */
export function accountOf(ctx: {config: Pick<ExecConfig, 'account'>}, agent: string, host: string | undefined): string {
  return ctx.config.account?.(agent, host) ?? defaultAccount
}

/** When launching on the account may resume (ms): the reset plus the margin, or the backoff's end. */
export function waitEnds(wait: AccountWait): number {
  return wait.until
}

/** A wait for a reset the CLI named (`reset`), or for mdplan's own backoff to end. */
export function accountWait(what: string, at: number, reset: boolean, marginMs = resetMarginMs): AccountWait {
  return {what, at, reset, until: reset ? at + marginMs : at}
}

/** The account's wait, while it lasts. */
export function waiting(ctx: Pick<StepContext, 'state' | 'now'>, account: string): AccountWait | undefined {
  const wait = ctx.state.waits.get(account)
  return wait !== undefined && ctx.now < waitEnds(wait) ? wait : undefined
}

/** Whether an agent placed on `host` (or not placed yet) must wait for its account. */
export function agentWaits(ctx: StepContext, agent: string, host: string | undefined): boolean {
  return ctx.state.waits.size > 0 && waiting(ctx, accountOf(ctx, agent, host)) !== undefined
}

/**
 * An attempt on `account` ended by a limit: the account waits until `wait.at` (a later wait it had already
 * stands), the plan's line says so, and a timer wakes the run when it ends.
 */
export function startWait(ctx: StepContext, account: string, wait: AccountWait): AccountWait {
  const {state} = ctx
  const before = state.waits.get(account)
  const next = before !== undefined && waitEnds(before) >= waitEnds(wait) && ctx.now < waitEnds(before) ? before : wait
  next.reportedSeq = state.write.seq
  if (next !== before) {
    state.waits.set(account, next)
    writeWaits(state)
    emit(ctx, {type: 'paused', reason: `${account}: ${next.what}`, untilMs: waitEnds(next), account})
  }
  ctx.effects.push({type: 'timer', at: waitEnds(next)})
  return next
}

/** Waits that have ended are gone, from the state and from the plan. */
export function endWaits(ctx: StepContext): void {
  const {state} = ctx
  let ended = false
  for (const [account, wait] of state.waits) {
    if (ctx.now < waitEnds(wait)) continue
    state.waits.delete(account)
    ended = true
  }
  if (ended) writeWaits(state)
}

/**
 * The plan's wait lines say the resets the state knows ('' when none: the lines go). mdplan's own backoff
 * (a limit that named no reset) is a guess, not a fact about the account: a rerun need not wait for it.
 */
function writeWaits(state: ExecState): void {
  const lines = [...state.waits].filter(([, wait]) => wait.reset).map(([account, wait]) => formatWaitLine({account, what: wait.what, at: wait.at, reset: true}))
  const text = lines.join('\n')
  if ((state.table.meta.waits ?? '') === text) return
  state.table.meta.waits = text
  state.write.dirty = true
}

/**
 * A write merged a person's edit of the wait lines (a line deleted clears that wait): the accounts wait as the
 * file says now, except for waits the file cannot say (mdplan's own backoff) and limits reported since that
 * write was issued (a newer fact than the edit).
 */
export function adoptWaits(ctx: StepContext, seq: number): void {
  const {state} = ctx
  const waits = readWaits(state.table.meta.waits, ctx.config.resetMarginMs)
  for (const [account, wait] of state.waits) if (!wait.reset || (wait.reportedSeq ?? -1) >= seq) waits.set(account, wait)
  state.waits = waits
  writeWaits(state)
}

/** The waits the plan's lines say (a rerun honours them; a person's deleted line is a wait cleared). */
export function readWaits(text: string | undefined, marginMs = resetMarginMs): Map<string, AccountWait> {
  const waits = new Map<string, AccountWait>()
  for (const line of (text ?? '').split('\n')) {
    const wait = parseWaitLine(line)
    if (wait) waits.set(wait.account, accountWait(wait.what, wait.at, wait.reset, marginMs))
  }
  return waits
}

/** The earliest end of the waits that hold back the given agents (ready ones no account lets launch). */
export function earliestEnd(ctx: StepContext, agents: Iterable<string>): {at: number; accounts: string[]} | undefined {
  let at = Infinity
  const accounts = new Set<string>()
  for (const id of agents) {
    const account = accountOf(ctx, id, undefined)
    const wait = waiting(ctx, account)
    if (!wait) continue
    accounts.add(account)
    at = Math.min(at, waitEnds(wait))
  }
  return at === Infinity ? undefined : {at, accounts: [...accounts]}
}
