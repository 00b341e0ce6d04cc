import {resetMarginMs} from '../executor/account-waits.js'

/** After a usage limit's reset, how long before launching there again: `MDPLAN_RESET_MARGIN_MS` (tests), else 30 s. */
export function resetMargin(): number {
  const raw = process.env.MDPLAN_RESET_MARGIN_MS
  const ms = Number(raw)
  return raw !== undefined && raw !== '' && Number.isFinite(ms) && ms >= 0 ? ms : resetMarginMs
}
