import type {Budget} from './types.js'
import {formatTokenCount} from '../util/format-token-count.js'

/** The share of a budget at which a run says so, unless the front matter's `budget_warn` says otherwise. */
export const defaultBudgetWarn = 0.8

/** What has been spent against a budget: under the warning threshold, at or over it, or at 100 % (reached). */
export interface BudgetUse {
  level: 'under' | 'warn' | 'reached'
  /**
   * The line under the Execution State table that says so ('' when under): `budget: 16.2M of 20M tokens
   * (81 %)`, or the dimensions reached, `budget reached: 20.1M of 20M tokens`.
   */
  line: string
  /** Every dimension, whatever the level, for `status` and the scorecard: `12.1M of 20M tokens (60 %), $41.20 of $50 (82 %)`. */
  summary: string
}

/**
 * Spend against a budget, pure: reached when any dimension it names (tokens, dollars) is spent in full, at
 * the warning threshold when any is spent to that share. A dimension the budget does not name is not looked at.
 */
export function budgetUse(budget: Budget, spent: {tokens?: number; usd?: number}, warnAt = defaultBudgetWarn): BudgetUse {
  const parts: Array<{share: number; text: string}> = []
  if (budget.tokens !== undefined) {
    const used = spent.tokens ?? 0
    parts.push({share: used / budget.tokens, text: `${formatTokenCount(used)} of ${formatTokenCount(budget.tokens)} tokens`})
  }
  if (budget.usd !== undefined) {
    const used = spent.usd ?? 0
    parts.push({share: used / budget.usd, text: `$${used.toFixed(2)} of ${dollars(budget.usd)}`})
  }
  // Cut, not rounded: 99.6 % is not yet the whole budget.
  const summary = parts.map((part) => `${part.text} (${Math.floor(part.share * 100)} %)`).join(', ')
  const reached = parts.filter((part) => part.share >= 1)
  if (reached.length > 0) return {level: 'reached', line: `budget reached: ${reached.map((part) => part.text).join(', ')}`, summary}
  if (!parts.some((part) => part.share >= warnAt)) return {level: 'under', line: '', summary}
  return {level: 'warn', line: `budget: ${summary}`, summary}
}

/** `$50`, `$12.50`. */
function dollars(usd: number): string {
  return Number.isInteger(usd) ? `$${usd}` : `$${usd.toFixed(2)}`
}
