import {parseLimitReset, resetInstant} from '../parse-limit-reset.js'

/**
 * When codex's usage limit resets, from its `turn.failed` or `error` message: `You've hit your usage limit.
 * … try again in 2 hours 5 minutes.` (a wait), `… try again at 3:05 PM.` (0.169: a local time with no zone,
 * so the zone of the machine it ran on), `… try again at Nov 29th, 2026 3:05 PM.` (another day).
 */
export function codexLimitReset(text: string, now: number, zone: string): number | undefined {
  return resetInstant(parseLimitReset(text, now, zone), now)
}
