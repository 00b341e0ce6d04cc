import type {Attempt, ExecState} from './exec-state.js'
import type {ExecConfig} from './exec-config.js'
import {accountOf} from './account-waits.js'

type Context = {state: Pick<ExecState, 'attempts'>; config: Pick<ExecConfig, 'account' | 'accountCap' | 'childPlan'>}

/** The cap of the account an agent's attempt would use on `host`; undefined: none (a child plan is never capped). */
export function capOf(ctx: Context, agent: string, host: string | undefined): number | undefined {
  if (ctx.config.accountCap === undefined || ctx.config.childPlan(agent)) return undefined
  return ctx.config.accountCap(agent, host)
}

/** A new attempt's `account`: the account it will use on `host` and its cap, when it has one. */
export function accountField(ctx: Context, agent: string, host: string | undefined): Pick<Attempt, 'account'> {
  const cap = capOf(ctx, agent, host)
  return cap === undefined ? {} : {account: {name: accountOf(ctx, agent, host), cap}}
}

/** Live attempts on each capped account, and its cap (each attempt counts on the account it was picked for). */
export function accountLoads(ctx: Pick<Context, 'state'>): Map<string, {live: number; cap: number}> {
  const loads = new Map<string, {live: number; cap: number}>()
  for (const {account} of ctx.state.attempts.values()) {
    if (account === undefined) continue
    const load = loads.get(account.name) ?? {live: 0, cap: account.cap}
    load.live++
    load.cap = Math.min(load.cap, account.cap)
    loads.set(account.name, load)
  }
  return loads
}

/**
 * Pure: whether an agent placed on `host` (undefined: this machine without hosts) must wait because its account
 * already runs as many attempts as its cap (front matter or host `accounts:`, else its runner's default).
 */
export function accountFull(ctx: Context, agent: string, host: string | undefined): boolean {
  const cap = capOf(ctx, agent, host)
  if (cap === undefined) return false
  const account = accountOf(ctx, agent, host)
  let live = 0
  for (const attempt of ctx.state.attempts.values()) if (attempt.account?.name === account && ++live >= cap) return true
  return false
}
