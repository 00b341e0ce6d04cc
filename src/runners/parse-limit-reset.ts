import {knownZone} from '../util/zoned-time.js'
import {parseWallClock} from './parse-wall-clock.js'

/** When a usage limit lifts, as a CLI said it: an instant, or a wait from the moment it said so. */
export interface LimitReset {
  /** The instant the limit resets (ms since the epoch). */
  resetAt?: number
  /** How long to wait from `now` (ms). */
  retryAfterMs?: number
}

const unitMs: Record<string, number> = {d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000, ms: 1}

/** One `<number> <unit>` of a wait: `2 hours`, `5m`, `37.5s`, `250ms`, `3 days`. */
const durationPart = String.raw`\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s|ms)\b`
/** A wait of one or more parts: `2 hours 5 minutes`, `1h 5m`, `2 days, 3 hours and 4 minutes`. */
const duration = String.raw`(${durationPart}(?:[\s,]+(?:and\s+)?${durationPart})*)`

/** Forms that say how long to wait, most specific first. */
const waitForms: RegExp[] = [
  // gemini (and the Gemini API under it): `Please retry in 37.540230958s.`, `Your quota will reset after 2h.`;
  // codex: `try again in 2 hours 5 minutes`.
  new RegExp(String.raw`(?:try again|retry|resets?)\s+(?:in|after)\s+(?:about\s+|~)?${duration}`, 'i'),
  // The Gemini API's RetryInfo detail: `"retryDelay": "37s"`.
  /retry_?delay\\?["']?\s*[:=]\s*\\?["']?(\d+(?:\.\d+)?(?:ms|s))\b/i,
  // A `retry-after` header as a CLI reports it (opencode's responseHeaders), in seconds.
  // `retry-after-ms: 1500` (OpenAI-compatible providers): the number is ms, read as `1500ms`.
  /retry[-_]after[-_]ms\\?["']?\s*[:=]\s*\\?["']?(\d+)(?=\D|$)()/i,
  /retry[-_]after\\?["']?\s*[:=]\s*\\?["']?(\d+(?:\.\d+)?)(?![\d:])/i
]

/**
 * When a usage or rate limit a CLI reported resets, from its words; `{}` when they do not say. Pure: `now`
 * is the moment the words were said, `zone` the IANA zone of the machine that said them (a time without a
 * zone of its own, as codex prints it, is that zone's; UTC when unknown). Forms:
 *
 * - claude: `Claude AI usage limit reached|1767193200` (epoch seconds); `You've hit your 5-hour limit ·
 *   resets 3pm (Europe/Paris)`, `… · resets Dec 1, 3:30pm (Europe/Paris)`, `5-hour limit reached ∙ resets 3pm`
 * - codex: `You've hit your usage limit. … try again in 2 hours 5 minutes.` / `… try again at 3:05 PM.` /
 *   `… try again at Nov 29th, 2026 3:05 PM.`
 * - gemini: `Please retry in 37.5s`, `"retryDelay": "37s"`
 * - any: `retry-after: 30`, `resets 2026-11-28T15:00:00Z`
 *
 * A time of day with no date is its next occurrence: `resets 3am` said at 23:00 is tomorrow's 3am.
 */
export function parseLimitReset(text: string, now: number, zone?: string): LimitReset {
  const epoch = /limit reached\s*\|\s*(\d{10,13})\b/i.exec(text)
  if (epoch) return {resetAt: epoch[1]!.length === 13 ? Number(epoch[1]) : Number(epoch[1]) * 1000}
  const iso = /(?:resets?|try again|retry)\s+(?:at\s+|on\s+)?(\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d))/i.exec(text)
  if (iso) {
    const at = Date.parse(iso[1]!)
    if (Number.isFinite(at)) return {resetAt: at}
  }
  for (const form of waitForms) {
    const match = form.exec(text)
    if (!match) continue
    // A form with a second (empty) group counts in ms.
    const ms = waitMs(match[2] === undefined ? match[1]! : `${match[1]!}ms`)
    if (ms !== undefined) return {retryAfterMs: ms}
  }
  const clock = /(?:\bresets|try again at|resets at)\s+([^.\n\u00b7\u2219\u2022]*?(?:\d{1,2}(?::\d\d)?\s*[ap]\.?m\.?|\d{1,2}:\d\d))(?:\s*\(([A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)*)\))?/i.exec(text)
  if (clock) {
    const named = clock[2] !== undefined && knownZone(clock[2]) ? clock[2] : undefined
    const at = parseWallClock(clock[1]!, now, named ?? zoneOr(zone))
    if (at !== undefined) return {resetAt: at}
  }
  return {}
}

/** When the limit resets, as an instant: the reset, or now plus the wait; undefined when the words did not say. */
export function resetInstant(reset: LimitReset, now: number): number | undefined {
  if (reset.resetAt !== undefined) return reset.resetAt
  return reset.retryAfterMs === undefined ? undefined : now + reset.retryAfterMs
}

function zoneOr(zone: string | undefined): string {
  return zone !== undefined && knownZone(zone) ? zone : 'UTC'
}

/** A wait's text in ms: parts summed; a bare number is seconds. */
function waitMs(text: string): number | undefined {
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000)
  let total = 0
  let any = false
  for (const match of text.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
    const unit = unitOf(match[2]!.toLowerCase())
    if (unit === undefined) return undefined
    total += Number(match[1]) * unitMs[unit]!
    any = true
  }
  return any ? Math.round(total) : undefined
}

function unitOf(word: string): string | undefined {
  if (word === 'ms') return 'ms'
  if (/^(?:d|days?)$/.test(word)) return 'd'
  if (/^(?:h|hrs?|hours?)$/.test(word)) return 'h'
  if (/^(?:m|mins?|minutes?)$/.test(word)) return 'm'
  if (/^(?:s|secs?|seconds?)$/.test(word)) return 's'
  return undefined
}
