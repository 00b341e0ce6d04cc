import {normalizeKey} from './normalize-key.js'

/** Where a table's `Tokens` and `Cost` columns are: -1 when it has none. */
export interface SpendColumns {
  tokens: number
  cost: number
}

const none: SpendColumns = Object.freeze({tokens: -1, cost: -1})
const found = new WeakMap<readonly string[], SpendColumns>()

/**
 * The Execution State table's spend columns, by header (any case, any position, added by a person). A
 * table with one holds the agent's spend there, not in its Notes (`tokens:`, `cost:`): see spend-into-notes.ts.
 */
export function spendColumns(columns: readonly string[]): SpendColumns {
  let spend = found.get(columns)
  if (spend === undefined) {
    const lower = columns.map((column) => normalizeKey(column))
    const tokens = lower.indexOf('tokens')
    const cost = lower.indexOf('cost')
    spend = tokens === -1 && cost === -1 ? none : {tokens, cost}
    found.set(columns, spend)
  }
  return spend
}
