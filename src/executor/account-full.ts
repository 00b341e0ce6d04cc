import type {ExecState} from './exec-state.js'
import type {ExecConfig} from './exec-config.js'
import {accountOf} from './account-waits.js'

type Context = {state: Pick<ExecState, 'attempts'>; config: Pick<ExecConfig, 'account' | 'accountCap' | 'childPlan'>}

/** The cap of the account an agent's attempt would use on `host`; undefined: none (a child plan is never capped). */
export function capOf(ctx: Context, agent: string, host: string | undefined): number | undefined {
  if (ctx.config.accountCap === undefined || ctx.config.childPlan(agent)) return undefined
  return ctx.config.accountCap(agent, host)
}

/** Live attempts on each account (a child plan's count toward the run's cap only, not an account). */
export function accountLoads(ctx: Context): Map<string, number> {
  const loads = new Map<string, number>()
  for (const attempt of ctx.state.attempts.values()) {
    if (ctx.config.childPlan(attempt.agent)) continue
    const account = accountOf(ctx, attempt.agent, attempt.host)
    loads.set(account, (loads.get(account) ?? 0) + 1)
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
  for (const attempt of ctx.state.attempts.values()) {
    if (!ctx.config.childPlan(attempt.agent) && accountOf(ctx, attempt.agent, attempt.host) === account && ++live >= cap) return true
  }
  return false
}
