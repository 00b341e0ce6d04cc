const unitMs: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  secs: 1000,
  second: 1000,
  seconds: 1000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hr: 3_600_000,
  hrs: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000
}

const part = /(\d+(?:\.\d+)?)\s*([a-z]+)/g

/**
 * Parse a human duration (`140ms`, `45s`, `5m`, `~5 min`, `1h30m`, `2m 05s`)
 * into milliseconds; `undefined` when the text is not a duration.
 * A bare number is taken as seconds.
 */
export function parseDuration(text: string): number | undefined {
  const value = text.trim().toLowerCase().replace(/^[~\u2248]\s*/, '')
  if (value === '') return undefined
  if (/^\d+(?:\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000)
  let total = 0
  let consumed = 0
  for (const match of value.matchAll(part)) {
    const ms = unitMs[match[2]!]
    if (ms === undefined) return undefined
    total += Number(match[1]) * ms
    consumed += match[0].length
  }
  // Everything but spaces must have been a number-unit pair.
  if (consumed === 0 || consumed < value.replace(/\s+/g, '').length) return undefined
  return Math.round(total)
}
