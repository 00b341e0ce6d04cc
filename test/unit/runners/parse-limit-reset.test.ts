import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {parseLimitReset, resetInstant} from '../../../src/runners/parse-limit-reset.js'
import {isRateLimited} from '../../../src/runners/is-rate-limited.js'
import {opencodeLimitReset} from '../../../src/runners/opencode/opencode-limit-reset.js'

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/limits/${name}`, import.meta.url), 'utf8')
const at = (iso: string): number => Date.parse(iso)
const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString())

describe('parseLimitReset: the CLIs\' own words (test/fixtures/limits/)', () => {
  it('claude 2.1.330: `resets 3pm (Europe/Paris)` is 3pm in Paris, whatever zone the machine is in', () => {
    // 10:00Z is 11:00 in Paris (winter, UTC+1): 3pm Paris is 14:00Z the same day.
    const reset = parseLimitReset(fixture('claude-5-hour.jsonl'), at('2026-11-28T10:00:00Z'), 'America/Los_Angeles')
    expect(iso(reset.resetAt)).toBe('2026-11-28T14:00:00.000Z')
  })

  it('claude 2.1.330: a weekly limit with a date and minutes, in its own zone', () => {
    const reset = parseLimitReset(fixture('claude-weekly.jsonl'), at('2026-11-28T10:00:00Z'))
    // Dec 1, 3:30pm in New York (UTC-5) is 20:30Z.
    expect(iso(reset.resetAt)).toBe('2026-12-01T20:30:00.000Z')
  })

  it('claude before 2.x: the epoch after `usage limit reached|`', () => {
    expect(iso(parseLimitReset(fixture('claude-epoch.jsonl'), 0).resetAt)).toBe(new Date(1767193200 * 1000).toISOString())
  })

  it('claude 1.x: `resets 3am` said at 23:00 is tomorrow, across a month and a year', () => {
    const reset = parseLimitReset(fixture('claude-older-5-hour.txt'), at('2026-12-31T23:00:00Z'), 'UTC')
    expect(iso(reset.resetAt)).toBe('2027-01-01T03:00:00.000Z')
  })

  it('codex: `try again in 2 hours 5 minutes` is a wait', () => {
    const reset = parseLimitReset(fixture('codex-try-again-in.jsonl'), 0)
    expect(reset).toEqual({retryAfterMs: (2 * 60 + 5) * 60_000})
    expect(resetInstant(reset, 1000)).toBe(1000 + (2 * 60 + 5) * 60_000)
  })

  it('codex 0.169: `try again at 3:05 PM` is in the zone of the machine it ran on', () => {
    const now = at('2026-11-28T12:00:00Z')
    expect(iso(parseLimitReset(fixture('codex-try-again-at.jsonl'), now, 'UTC').resetAt)).toBe('2026-11-28T15:05:00.000Z')
    // In Tokyo (UTC+9) it is 21:00 already: 3:05 PM is tomorrow's, 06:05Z.
    expect(iso(parseLimitReset(fixture('codex-try-again-at.jsonl'), now, 'Asia/Tokyo').resetAt)).toBe('2026-11-29T06:05:00.000Z')
  })

  it('codex 0.169: another day, `Nov 29th, 2026 3:05 PM`', () => {
    const reset = parseLimitReset(fixture('codex-try-again-at-date.jsonl'), at('2026-11-28T12:00:00Z'), 'Europe/Berlin')
    expect(iso(reset.resetAt)).toBe('2026-11-29T14:05:00.000Z')
  })

  it('gemini: `Please retry in 37.540230958s` (before the RetryInfo detail)', () => {
    expect(parseLimitReset(fixture('gemini-retry-in.jsonl'), 0)).toEqual({retryAfterMs: 37_540})
  })

  it('gemini: a RetryInfo `retryDelay` alone', () => {
    expect(parseLimitReset(fixture('gemini-retry-delay.json'), 0)).toEqual({retryAfterMs: 3_600_000})
  })

  it('opencode: the provider\'s `retry-after` header', () => {
    expect(parseLimitReset(fixture('opencode-retry-after.jsonl'), 0)).toEqual({retryAfterMs: 30_000})
  })
})

describe('the limit messages are limits', () => {
  it.each(['claude-5-hour.jsonl', 'claude-weekly.jsonl', 'claude-epoch.jsonl', 'claude-older-5-hour.txt', 'codex-try-again-in.jsonl', 'codex-try-again-at.jsonl', 'codex-try-again-at-date.jsonl', 'gemini-retry-in.jsonl', 'gemini-retry-delay.json', 'opencode-retry-after.jsonl'])(
    '%s reads as a rate or usage limit',
    (name) => {
      expect(isRateLimited(fixture(name))).toBe(true)
    }
  )

  it('opencode: retry-after in seconds, in ms, or as an HTTP date', () => {
    expect(opencodeLimitReset({retryAfter: '30'}, 1000, 'UTC')).toBe(31_000)
    expect(opencodeLimitReset({retryAfterMs: '1500', retryAfter: '2'}, 1000, 'UTC')).toBe(2500)
    expect(opencodeLimitReset({retryAfter: 'Sat, 28 Nov 2026 15:00:00 GMT'}, 0, 'UTC')).toBe(at('2026-11-28T15:00:00Z'))
    expect(opencodeLimitReset({message: 'Rate limit exceeded: 429'}, 0, 'UTC')).toBeUndefined()
  })
})

describe('parseLimitReset: time zones and date changes', () => {
  it('a time a little past is now, not tomorrow (the CLI rounds to the minute)', () => {
    const reset = parseLimitReset('usage limit reached · resets 3pm', at('2026-11-28T15:02:00Z'), 'UTC')
    expect(iso(reset.resetAt)).toBe('2026-11-28T15:00:00.000Z')
  })

  it('across a DST change: 3am in Paris on the night summer time ends', () => {
    // 2026-10-25: Paris goes from UTC+2 to UTC+1 at 03:00 local. Said at 22:00Z on the 24th (midnight local).
    const reset = parseLimitReset('resets 3am (Europe/Paris)', at('2026-10-24T22:00:00Z'))
    expect(iso(reset.resetAt)).toBe('2026-10-25T02:00:00.000Z')
    // A week later, 3am is UTC+1.
    expect(iso(parseLimitReset('resets 3am (Europe/Paris)', at('2026-10-31T22:00:00Z')).resetAt)).toBe('2026-11-01T02:00:00.000Z')
  })

  it('a date with no year that has passed is next year\'s', () => {
    const reset = parseLimitReset('resets Jan 2, 9am (UTC)', at('2026-12-30T12:00:00Z'))
    expect(iso(reset.resetAt)).toBe('2027-01-02T09:00:00.000Z')
  })

  it('an unknown zone name falls back to the machine\'s zone', () => {
    const reset = parseLimitReset('resets 3pm (Mars/Olympus)', at('2026-11-28T10:00:00Z'), 'Asia/Kolkata')
    // 3pm in Kolkata (UTC+5:30) is 09:30Z: past at 10:00Z, so tomorrow's.
    expect(iso(reset.resetAt)).toBe('2026-11-29T09:30:00.000Z')
  })

  it('24-hour times, ISO instants and mixed waits', () => {
    expect(iso(parseLimitReset('limit resets at 17:45', at('2026-11-28T10:00:00Z'), 'UTC').resetAt)).toBe('2026-11-28T17:45:00.000Z')
    expect(iso(parseLimitReset('usage limit, resets 2026-11-28T15:00Z', 0).resetAt)).toBe('2026-11-28T15:00:00.000Z')
    expect(parseLimitReset('try again in 2 days, 3 hours and 4 minutes', 0)).toEqual({retryAfterMs: ((2 * 24 + 3) * 60 + 4) * 60_000})
    expect(parseLimitReset('"retry-after-ms": "1500"', 0)).toEqual({retryAfterMs: 1500})
  })

  it('says nothing when the words do not say when', () => {
    expect(parseLimitReset('API Error: 429 rate_limit_error', 0)).toEqual({})
    expect(parseLimitReset('the usage limit resets (send a prompt after it resets to continue)', 0)).toEqual({})
    expect(resetInstant({}, 5)).toBeUndefined()
  })
})
