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
  /overloaded/i,
  /too many requests/i,
  /resource[ _]exhausted/i,
  /quota (?:will reset|exceeded)/i,
  /exhausted your capacity/i
]

export function isRateLimited(text: string): boolean {
  return patterns.some((pattern) => pattern.test(text))
}
