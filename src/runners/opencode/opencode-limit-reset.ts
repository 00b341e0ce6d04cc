import {parseLimitReset, resetInstant} from '../parse-limit-reset.js'

/**
 * When opencode's provider lets it go on, from its `error` event: the provider's `retry-after` (or
 * `retry-after-ms`) header, which the event's `data.responseHeaders` carries, else what the provider's
 * message says (`try again in 20s`).
 */
export function opencodeLimitReset(error: {message?: string; retryAfter?: string; retryAfterMs?: string}, now: number, zone: string): number | undefined {
  if (error.retryAfterMs !== undefined && /^\d+$/.test(error.retryAfterMs.trim())) return now + Number(error.retryAfterMs.trim())
  if (error.retryAfter !== undefined) {
    const value = error.retryAfter.trim()
    if (/^\d+(?:\.\d+)?$/.test(value)) return now + Math.round(Number(value) * 1000)
    // The HTTP-date form: `Wed, 21 Oct 2026 07:28:00 GMT`.
    const date = Date.parse(value)
    if (Number.isFinite(date)) return date
  }
  return resetInstant(parseLimitReset(error.message ?? '', now, zone), now)
}
