import {parseLimitReset, resetInstant} from '../parse-limit-reset.js'

/**
 * When claude's usage limit resets, from its failure text (the result's text, its `errors`, stderr):
 * `You've hit your 5-hour limit · resets 3pm (Europe/Paris)` (2.1.330, its own zone), `… · resets Dec 1,
 * 3:30pm (…)` (more than a day out), `5-hour limit reached ∙ resets 3am` (1.x), `Claude AI usage limit
 * reached|1767193200` (older). Undefined when it does not say (a bare 429 or 529).
 */
export function claudeLimitReset(text: string, now: number, zone: string): number | undefined {
  return resetInstant(parseLimitReset(text, now, zone), now)
}
