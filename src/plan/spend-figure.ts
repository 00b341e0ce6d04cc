import {parseTokenCount} from '../util/parse-token-count.js'

/**
 * A `tokens:` or `cost:` value (in the Notes or a `Tokens` / `Cost` cell) as a number: tokens as mdplan
 * writes them (`21002`, `21,002`) or a person types them (`21 002`, `21_002`, `21k`, `1.5M`); dollars as
 * `$0.0750`, `0.075` or `$1`. Undefined when the text reads as no figure (a person's `abc`: nothing spent,
 * and `validate` says so for a cell).
 */
export function spendFigure(key: 'tokens' | 'cost', text: string): number | undefined {
  const value = text.trim()
  if (key === 'cost') {
    const match = /^\$?\s*(\d+(?:\.\d*)?|\.\d+)$/.exec(value)
    return match ? Number(match[1]) : undefined
  }
  const plain = value.replace(/[\s_]/g, '')
  if (/^\d+(?:,\d+)*$/.test(plain)) return Number(plain.replace(/,/g, ''))
  return parseTokenCount(plain)
}
