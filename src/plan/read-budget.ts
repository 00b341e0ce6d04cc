import {normalizeKey} from './normalize-key.js'
import type {Budget} from './types.js'
import {parseTokenCount} from '../util/parse-token-count.js'

/** What a budget must look like, for messages. */
export const budgetForm = 'a budget such as `{tokens: 20M, usd: 50}` (either or both; tokens like `20M`, `1.5k` or `20000000`, usd a number)'

/**
 * A budget as the front matter, an agent's `budget` field or `--budget` writes it: `{tokens: 20M, usd: 50}`
 * (a YAML mapping, or that text), `tokens=20M,usd=50`, `tokens: 20M`, a bare count (`20M`: tokens) or
 * dollars (`$50`). Returns the budget, or what is wrong with it.
 */
export function readBudget(raw: unknown): {budget: Budget} | {problem: string} {
  if (typeof raw === 'number' || (typeof raw === 'string' && !/[=:]/.test(raw))) return bare(raw)
  let entries: Array<[string, unknown]>
  if (typeof raw === 'string') {
    const inner = raw.trim().replace(/^\{([^]*)\}$/, '$1')
    entries = inner
      .split(/[,;]/)
      .filter((part) => part.trim() !== '')
      .map((part) => {
        const at = part.search(/[=:]/)
        return at === -1 ? [part.trim(), undefined] : [part.slice(0, at), part.slice(at + 1).trim()]
      })
  } else if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) entries = Object.entries(raw)
  else return {problem: `${budgetForm}, not ${shown(raw)}`}
  const budget: Budget = {}
  for (const [rawKey, value] of entries) {
    const key = normalizeKey(rawKey)
    if (key === 'tokens') {
      const tokens = parseTokenCount(value)
      if (tokens === undefined) return {problem: `${budgetForm}: \`tokens\` is ${shown(value)}, not a count of tokens`}
      budget.tokens = tokens
    } else if (key === 'usd' || key === 'dollars' || key === 'cost') {
      const usd = dollars(value)
      if (usd === undefined) return {problem: `${budgetForm}: \`usd\` is ${shown(value)}, not a positive number`}
      budget.usd = usd
    } else return {problem: `${budgetForm}: unknown key \`${rawKey.trim()}\``}
  }
  if (budget.tokens === undefined && budget.usd === undefined) return {problem: `${budgetForm}, not ${shown(raw)}`}
  return {budget}
}

/** `20M` (tokens) or `$50` (dollars). */
function bare(raw: string | number): {budget: Budget} | {problem: string} {
  if (typeof raw === 'string' && raw.trim().startsWith('$')) {
    const usd = dollars(raw)
    return usd === undefined ? {problem: `${budgetForm}, not ${shown(raw)}`} : {budget: {usd}}
  }
  const tokens = parseTokenCount(raw)
  return tokens === undefined ? {problem: `${budgetForm}, not ${shown(raw)}`} : {budget: {tokens}}
}

function dollars(value: unknown): number | undefined {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\$?\s*\d*\.?\d+\s*$/.test(value) ? Number(value.replace(/[$\s]/g, '')) : NaN
  return Number.isFinite(number) && number > 0 ? number : undefined
}

function shown(value: unknown): string {
  return value === undefined ? 'missing' : `\`${typeof value === 'string' ? value.trim() : JSON.stringify(value)}\``
}
