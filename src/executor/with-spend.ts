import type {RunResult} from '../runners/runner.js'
import {spentTokens} from '../runners/spent-tokens.js'
import type {Attempt} from './exec-state.js'
import {withNotes, type RowNotes} from './row-notes.js'

/**
 * The row's Notes with what an attempt spent added to the agent's totals (`cost:`, `tokens:`): what its CLI
 * reported at its end, or else what its runner streamed while it ran (an attempt ended before its CLI said).
 */
export function withSpend(notes: RowNotes, attempt: Attempt, result: RunResult): RowNotes {
  let next = notes
  const usd = result.costUsd ?? attempt.spent?.usd
  if (usd !== undefined) {
    // Notes keep the agent's total; a resumed claude session reports its own running total.
    const before = next.cost ?? 0
    const spent = result.costUsd !== undefined && result.cumulativeCost ? Math.max(0, usd - before) : usd
    next = withNotes(next, {cost: before + spent})
  }
  const tokens = spentTokens(result.usage) ?? attempt.spent?.tokens
  if (tokens !== undefined) {
    // Summed over the agent's attempts; codex reports its thread's running total, which a resumed thread goes on from.
    const before = next.tokens ?? 0
    const spent = result.usage !== undefined && result.cumulativeUsage && attempt.resumeSession !== undefined ? Math.max(0, tokens - before) : tokens
    next = withNotes(next, {tokens: before + spent})
  }
  return next
}
