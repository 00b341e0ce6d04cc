import {describe, expect, it} from 'vitest'
import {parseDuration} from '../../../src/util/parse-duration.js'
import {formatDuration} from '../../../src/util/format-duration.js'
import {attemptsInNotes, formatNotes, getNote, parseNotes, setNote} from '../../../src/plan/notes.js'

describe('parseDuration', () => {
  it.each([
    ['140ms', 140],
    ['45s', 45_000],
    ['5m', 300_000],
    ['~5 min', 300_000],
    ['1h30m', 5_400_000],
    ['2m 05s', 125_000],
    ['30', 30_000],
    ['1.5h', 5_400_000]
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms)
  })

  it.each(['', 'soon', '5 parsecs', '—', '5m later'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeUndefined()
  })
})

describe('formatDuration', () => {
  it.each([
    [140, '140ms'],
    [45_000, '45s'],
    [125_000, '2m 05s'],
    [3_720_000, '1h 02m']
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text)
    expect(parseDuration(text)).toBe(ms)
  })
})

describe('notes', () => {
  it('splits keyed and free items and joins them back', () => {
    const cell = 'blocked by: A, B; attempt 1: tests failed; looks flaky'
    expect(parseNotes(cell)).toEqual([
      {key: 'blocked by', value: 'A, B', raw: 'blocked by: A, B'},
      {key: 'attempt 1', value: 'tests failed', raw: 'attempt 1: tests failed'},
      {value: 'looks flaky', raw: 'looks flaky'}
    ])
    expect(formatNotes(parseNotes(cell))).toBe(cell)
  })

  it('replaces, adds and removes keyed items, keeping free text', () => {
    let cell = 'blocked by: A; keep me'
    cell = setNote(cell, 'blocked by', undefined)
    expect(cell).toBe('keep me')
    cell = setNote(cell, 'checkpoint', 'step 2')
    expect(getNote(cell, 'checkpoint')).toBe('step 2')
    expect(cell).toBe('keep me; checkpoint: step 2')
  })

  it('keeps one current item per kind through repeated pauses, the time whole', () => {
    // The reason settleAttempt writes: `<what> (<why>); retrying at <time>Z`.
    const pause = (at: string) => `rate or usage limit (429 Too Many Requests); retrying at ${at}Z`
    let cell = setNote('', 'paused', pause('18:37:20'))
    cell = setNote(cell, 'cost', '$0.0100')
    cell = setNote(cell, 'paused', pause('18:39:21'))
    // A `;` inside the item is escaped, not replaced: it reads back as written.
    expect(cell).toBe('cost: $0.0100; paused: rate or usage limit (429 Too Many Requests)\\; retrying at 18:39:21Z')
    expect(getNote(cell, 'paused')).toBe(pause('18:39:21'))
    // A time is never read as a key (`retrying at 18` with the value `37:20Z`).
    expect(parseNotes('retrying at 18:37:20Z')).toEqual([{value: 'retrying at 18:37:20Z', raw: 'retrying at 18:37:20Z'}])
    // What older versions wrote goes with the next pause.
    const old = 'retrying at 18: 37:20Z; cost: $0.01; paused: rate or usage limit (429); retrying at 18:39:21Z'
    expect(setNote(old, 'paused', pause('18:41:22'))).toBe('cost: $0.01; paused: rate or usage limit (429 Too Many Requests)\\; retrying at 18:41:22Z')
  })

  it('reads the attempt history in order', () => {
    expect(attemptsInNotes('attempt 2: timed out after 5m; attempt 1: exit 1')).toEqual([
      {attempt: 1, reason: 'exit 1'},
      {attempt: 2, reason: 'timed out after 5m'}
    ])
  })
})
