/**
 * Whether a CLI's failure text is a rate or usage limit (HTTP 429, 529 overloaded,
 * provider quota messages): such a run is retried later instead of burning an attempt.
 */
const patterns = [
  /\b429\b/,
  /\b529\b/,
  /rate[ _-]?limit/i,
  /usage limit/i,
  /hit your (?:usage )?limit/i,
  // claude 2.1.330: `You've hit your 5-hour limit · resets 3pm (…)`, `… weekly limit`, `… Opus limit`.
  /hit your [\w -]{1,24} limit\b/i,
  /\b(?:5-hour|weekly|usage|spend) limit reached\b/i,
  /overloaded/i,
  /too many requests/i,
  /resource[ _]exhausted/i,
  /quota (?:will reset|exceeded)/i,
  /exhausted your capacity/i
]

export function isRateLimited(text: string): boolean {
  return patterns.some((pattern) => pattern.test(text))
}
