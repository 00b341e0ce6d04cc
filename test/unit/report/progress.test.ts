import {afterEach, describe, expect, it, vi} from 'vitest'
import {createReporter} from '../../../src/report/create-reporter.js'
import {colorEnabled} from '../../../src/report/color-enabled.js'
import {applyProgressEvent, countStatuses, createProgressState, waitingOn} from '../../../src/report/progress-state.js'
import {renderLive} from '../../../src/report/render-live.js'
import type {RunEvent} from '../../../src/events.js'
import {everyEvent, scorecard} from '../../../fixtures/report/events.js'

const strip = (text: string): string => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')

describe('plain progress (no TTY)', () => {
  it('prints one timestamped line per event, then the scorecard', () => {
    const out: string[] = []
    const reporter = createReporter({mode: 'plain', write: (text) => void out.push(text)})
    for (const event of Object.values(everyEvent)) reporter.event(event)
    reporter.close()
    const text = out.join('')
    expect(text).not.toContain('\x1b')
    const lines = text.split('\n')
    // Every event but the state writes (which only --json prints) gets a line.
    const eventLines = lines.slice(0, Object.keys(everyEvent).length - 1)
    for (const line of eventLines) expect(line).toMatch(/^\d\d:\d\d:\d\d \S/)
    expect(eventLines).toEqual([
      '14:22:10 started plans/auth.md: 4 agents, concurrency 2',
      '14:22:10 pre verification: npm run typecheck',
      '14:22:12 pre verification passed (1 attempt) log .mdplan/logs/pre.log',
      '14:22:12 launched A (attempt 1) log .mdplan/logs/A-1.log',
      '14:22:13 A agent id sess-1234',
      '14:22:57 completed A in 45s (attempt 1) $0.12: added types',
      '14:23:30 failed B after 30s (attempt 1): tests failed, will retry',
      '14:24:00 question from C: Which database should the cache use?',
      '14:24:00 awaiting review F after 12s (attempt 1)',
      '14:24:00 approved F: its work is in',
      '14:24:01 blocked D by B, C',
      '14:24:02 paused: rate limited (until 14:25:02)',
      '14:24:02 budget: 16.2M of 20M tokens (81 %)',
      '14:24:03 hand edit kept: B Status = pending',
      '14:24:04 warning: row Z has no agent',
      '14:24:04 E › completed A in 1s (attempt 1)',
      '14:24:40 finished, exit code 1'
    ])
    expect(text).toContain('Scorecard')
    expect(text).toMatch(/Speedup\s+1\.17×/)
  })

  it('colours only when asked', () => {
    const out: string[] = []
    createReporter({mode: 'plain', write: (text) => void out.push(text), color: true}).event(everyEvent.completed)
    expect(out.join('')).toContain('\x1b[')
  })
})

describe('quiet', () => {
  it('prints nothing but the final scorecard', () => {
    const out: string[] = []
    const reporter = createReporter({mode: 'quiet', write: (text) => void out.push(text)})
    for (const event of Object.values(everyEvent)) reporter.event(event)
    reporter.close()
    expect(out).toHaveLength(1)
    expect(out[0]).toMatch(/^Scorecard\n/)
    expect(out[0]).toMatch(/B\s+api\s+failed\s+3\s+2m 10s/)
  })
})

describe('colorEnabled', () => {
  it('honours NO_COLOR, FORCE_COLOR and the terminal', () => {
    expect(colorEnabled({NO_COLOR: '1'}, true)).toBe(false)
    expect(colorEnabled({}, true)).toBe(true)
    expect(colorEnabled({}, false)).toBe(false)
    expect(colorEnabled({FORCE_COLOR: '1'}, false)).toBe(true)
    expect(colorEnabled({TERM: 'dumb'}, true)).toBe(false)
  })
})

const t = (s: number): string => new Date(Date.parse('2026-01-15T14:00:00Z') + s * 1000).toISOString()
const run: RunEvent[] = [
  {type: 'run-started', time: t(0), plan: 'plan.md', agents: 5, concurrency: 2, resumed: false},
  {type: 'launched', time: t(0), agent: 'A', attempt: 1, resumed: false, log: 'a.log'},
  {type: 'launched', time: t(1), agent: 'B', attempt: 2, resumed: false, log: 'b.log'},
  {type: 'blocked', time: t(2), agent: 'E', by: ['B']}
]

describe('live view frame', () => {
  it('shows each running agent with its elapsed time, the counts, and what waits on what', () => {
    const state = createProgressState()
    for (const event of run) applyProgressEvent(state, event, 0)
    // Unknown agents from events: C and D are only counted (run-started said 5).
    const frame = renderLive(state, Date.parse(t(65)))
    expect(frame.split('\n')).toEqual([
      'mdplan plan.md  1m 05s',
      '  ▶ A     1m 05s',
      '  ▶ B     1m 04s attempt 2',
      '  0 completed · 2 running · 3 pending',
      '  waiting: E ← B'
    ])
    expect(countStatuses(state)).toEqual({pending: 3, in_progress: 2, completed: 0, failed: 0, needs_input: 0, awaiting_review: 0})
    expect(waitingOn(state)).toEqual([{agent: 'E', on: ['B']}])
  })

  it('counts agents waiting for an answer and failed ones, and shows a pause while it lasts', () => {
    const state = createProgressState()
    for (const event of run) applyProgressEvent(state, event, 0)
    applyProgressEvent(state, {type: 'question', time: t(3), agent: 'A', question: 'Which table?'}, 0)
    applyProgressEvent(state, {type: 'failed', time: t(4), agent: 'B', attempt: 2, durationMs: 3000, reason: 'timeout', willRetry: false}, 0)
    applyProgressEvent(state, {type: 'paused', time: t(5), reason: 'rate limited', untilMs: Date.parse(t(35))}, 0)
    expect(renderLive(state, Date.parse(t(10))).split('\n')).toEqual([
      'mdplan plan.md  10s',
      '  0 completed · 0 running · 3 pending · 1 need input · 1 failed',
      '  paused: rate limited (25s left)',
      '  waiting: E ← B'
    ])
    expect(renderLive(state, Date.parse(t(40)))).not.toContain('paused')
  })

  it('cuts long lines to the terminal width', () => {
    const state = createProgressState()
    applyProgressEvent(state, {type: 'run-started', time: t(0), plan: 'x'.repeat(200), agents: 1, concurrency: 1, resumed: false}, 0)
    for (const line of renderLive(state, Date.parse(t(1)), {columns: 40}).split('\n')) expect(line.length).toBeLessThanOrEqual(40)
  })
})

describe('live reporter (tty mode, in-process)', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('redraws in place at most every 250ms, keeps finished agents above the view, ends with the scorecard', () => {
    vi.useFakeTimers()
    let clock = Date.parse(t(0))
    const out: string[] = []
    const reporter = createReporter({mode: 'tty', write: (text) => void out.push(text), now: () => clock, tickMs: 1000})
    for (const event of run) reporter.event(event)
    // Four events at once: one frame drawn now, the rest wait for the throttle.
    expect(out.length).toBe(1)
    clock += 250
    vi.advanceTimersByTime(250)
    expect(out.length).toBe(2)
    expect(out[1]).toMatch(/^\x1b\[2K\x1b\[1A/)
    expect(strip(out[1]!)).toContain('waiting: E ← B')

    clock += 5000
    reporter.event({type: 'completed', time: t(5), agent: 'A', attempt: 1, durationMs: 5000})
    const done = out.slice(2).join('')
    expect(strip(done)).toContain('14:00:05 completed A in 5s (attempt 1)')

    reporter.event({type: 'run-finished', time: t(6), exitCode: 0, scorecard})
    expect(strip(out.join(''))).toMatch(/Scorecard\n/)
    const before = out.length
    vi.advanceTimersByTime(5000)
    reporter.close()
    expect(out.length).toBe(before)
  })
})
