import {afterEach, beforeEach, describe, expect, it, vi} from 'vitest'
import {createExecState} from '../../../src/executor/create-exec-state.js'
import {finishRun} from '../../../src/run/finish-run.js'
import {parsePlan} from '../../../src/plan/parse-plan.js'
import {formatScorecard} from '../../../src/report/format-scorecard.js'
import {emptyRow} from '../../../src/store/table-state.js'
import {execRow} from '../../../src/executor/exec-row.js'
import {shellPlan} from '../../helpers/run-cli.js'

// The run's scorecard times the run with its own millisecond clock; the table's `Started:` and
// `Last updated:` are whole seconds, so a run shorter than a second read `Wall-clock 0ms`.

const t0 = Date.UTC(2026, 0, 1, 10, 0, 0)

beforeEach(() => {
  vi.useFakeTimers({toFake: ['Date']})
})
afterEach(() => {
  vi.useRealTimers()
})

/** The executor's state at the end of a run of `agents` (id → [duration cell, ms it took]), stamped as the table would be. */
function finished(agents: Record<string, [string, number]>, meta: {started: string; lastUpdated: string}, firstLaunchAt: number) {
  const plan = parsePlan(shellPlan(Object.fromEntries(Object.keys(agents).map((id) => [id, {script: 'true'}]))), 'plan.md')
  const rows = new Map(Object.entries(agents).map(([id, [duration]]) => [id, {...emptyRow(), status: 'completed' as const, duration}]))
  const state = createExecState({agents: plan.agents, priority: new Map(), table: {rows, meta}, rateLimitPauseMs: 0})
  state.firstLaunchAt = firstLaunchAt
  state.peakConcurrency = Object.keys(agents).length
  state.tookMs = new Map(Object.entries(agents).map(([id, [, ms]]) => [id, ms]))
  return {plan, state}
}

describe('the run’s scorecard', () => {
  it('times a run shorter than a second from its first launch, not 0ms from its stamps', async () => {
    // Launched at 10:00:00.100, done at 10:00:00.520: `Started:` and `Last updated:` both read 10:00:00.
    const {plan, state} = finished({A: ['380ms', 380]}, {started: '2026-01-01T10:00:00Z', lastUpdated: '2026-01-01T10:00:00Z'}, t0 + 100)
    vi.setSystemTime(t0 + 520)
    const {scorecard} = await finishRun({plan, state, runStart: t0, emit: () => {}})
    expect(scorecard.wallClockMs).toBe(420)
    expect(scorecard.sumOfPartsMs).toBe(380)
    expect(scorecard.speedup).toBe(0.9)
    expect(formatScorecard(scorecard)).toMatch(/^Wall-clock +420ms$/m)
  })

  it('counts each attempt’s own milliseconds, not its Duration cell rounded to the second', async () => {
    // A took 480ms and B 1499ms (`1s` in the table); launched at 10:00:00.100, done at 10:00:01.700.
    const {plan, state} = finished({A: ['480ms', 480], B: ['1s', 1499]}, {started: '2026-01-01T10:00:00Z', lastUpdated: '2026-01-01T10:00:01Z'}, t0 + 100)
    vi.setSystemTime(t0 + 1700)
    const {scorecard} = await finishRun({plan, state, runStart: t0, emit: () => {}})
    expect(scorecard.agents.map((agent) => agent.durationMs)).toEqual([480, 1499])
    expect(scorecard.sumOfPartsMs).toBe(1979)
    expect(scorecard.wallClockMs).toBe(1600)
    expect(scorecard.speedup).toBe(1.24)
    // The table's own stamps are as they were.
    expect(state.table.meta).toMatchObject({started: '2026-01-01T10:00:00Z', lastUpdated: '2026-01-01T10:00:01Z'})
  })

  it('keeps a Duration a person edited, and times a resumed run from the earlier run’s `Started:`', async () => {
    // The timing began with a run a minute earlier; this one launched at 10:00:00.100 and finished at 10:00:02.000.
    const {plan, state} = finished({A: ['30s', 30_000], B: ['2s', 1900]}, {started: '2026-01-01T09:59:00Z', lastUpdated: '2026-01-01T10:00:02Z'}, t0 + 100)
    // A person wrote A's Duration since its attempt settled: their cell, not the attempt's milliseconds.
    state.table.rows.set('A', {...state.table.rows.get('A')!, duration: '45s'})
    vi.setSystemTime(t0 + 2000)
    const {scorecard} = await finishRun({plan, state, runStart: t0, emit: () => {}})
    expect(scorecard.agents.map((agent) => agent.durationMs)).toEqual([45_000, 1900])
    expect(scorecard.wallClockMs).toBe(62_000)
  })

  it('has no times of its own when nothing launched', async () => {
    const {plan, state} = finished({A: ['30s', 30_000]}, {started: '2026-01-01T09:59:00Z', lastUpdated: '2026-01-01T09:59:30Z'}, t0)
    state.firstLaunchAt = undefined
    state.tookMs = undefined
    state.table.rows.set('A', execRow({...emptyRow(), status: 'completed', duration: '30s'}))
    vi.setSystemTime(t0 + 2000)
    const {scorecard} = await finishRun({plan, state, runStart: t0, emit: () => {}})
    expect(scorecard.nothingRan).toBe(true)
    expect(scorecard).not.toHaveProperty('wallClockMs')
  })
})
