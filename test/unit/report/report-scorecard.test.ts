import {describe, expect, it} from 'vitest'
import {loadPlan} from '../../../src/plan/load-plan.js'
import {computeScorecard} from '../../../src/report/compute-scorecard.js'
import {formatScorecard} from '../../../src/report/format-scorecard.js'
import {tableStateFromPlan} from '../../../src/store/table-state.js'

const fixture = (name: string): string => new URL(`../../../fixtures/report/${name}/plan.md`, import.meta.url).pathname

describe('computeScorecard', () => {
  it('reads durations, attempts, wall-clock, build and integration from the file', async () => {
    const plan = await loadPlan(fixture('every-status'))
    expect(plan.messages.filter((m) => m.severity === 'error')).toEqual([])
    const scorecard = computeScorecard(plan)
    expect(scorecard.agents).toEqual([
      {id: 'A', name: 'types', status: 'completed', attempts: 1, durationMs: 45_000, costUsd: 0.12},
      {id: 'B', name: 'api', status: 'in_progress', attempts: 2},
      {id: 'C', name: 'ui "list" <view>', status: 'needs_input', attempts: 1, durationMs: 70_000},
      {id: 'D', name: 'db', status: 'failed', attempts: 3, durationMs: 125_000},
      {id: 'end', name: 'docs', status: 'pending', attempts: 0}
    ])
    expect(scorecard.wallClockMs).toBe(180_000)
    expect(scorecard.sumOfPartsMs).toBe(240_000)
    expect(scorecard.speedup).toBe(1.33)
    // A build result the file records is shown; integration tests the plan does not have are not.
    expect(scorecard.build).toBe('fail (2 attempts)')
    expect(scorecard.integration).toBeUndefined()
    expect(scorecard.costUsd).toBe(0.12)
    expect(scorecard.counts).toEqual({pending: 1, in_progress: 1, completed: 1, failed: 1, needs_input: 1, awaiting_review: 0})
  })

  it('gives the same scorecard from the executor’s table as from the file, so a run need not parse its plan again', async () => {
    const plan = await loadPlan(fixture('every-status'))
    const state = tableStateFromPlan(plan)
    expect(computeScorecard(plan, state)).toEqual(computeScorecard(plan))
    // And it reads the table it is given, not the file's.
    state.rows.set('end', {...state.rows.get('end')!, status: 'completed', duration: '10s'})
    const changed = computeScorecard(plan, state)
    expect(changed.agents.at(-1)).toEqual({id: 'end', name: 'docs', status: 'completed', attempts: 1, durationMs: 10_000})
    expect(changed.counts.completed).toBe(2)
    expect(changed.sumOfPartsMs).toBe(250_000)
  })

  it('works on a plan with no Execution State yet', async () => {
    const {parsePlan} = await import('../../../src/plan/parse-plan.js')
    const plan = parsePlan('# Plan\n\n## Agents\n\n### A: one\n- **depends_on**: []\n- **prompt**: |\n    Do it.\n', 'p.md')
    const scorecard = computeScorecard(plan)
    expect(scorecard.agents).toEqual([{id: 'A', name: 'one', status: 'pending', attempts: 0}])
    expect(scorecard.wallClockMs).toBeUndefined()
    expect(scorecard.speedup).toBeUndefined()
    expect(scorecard.build).toBeUndefined()
    expect(formatScorecard(scorecard)).toContain('Wall-clock    —')
    expect(formatScorecard(scorecard)).not.toContain('Build')
  })
})

describe('formatScorecard', () => {
  it('is a compact table of agents then the run’s figures', async () => {
    const text = formatScorecard(computeScorecard(await loadPlan(fixture('every-status'))))
    expect(text).toBe(
      [
        'Scorecard',
        'Agent  Name              Status       Attempts  Time',
        'A      types             completed    1         45s',
        'B      api               in_progress  2         —',
        'C      ui "list" <view>  needs_input  1         1m 10s',
        'D      db                failed       3         2m 05s',
        'end    docs              pending      0         —',
        '',
        'Wall-clock    3m 00s',
        'Sum of parts  4m 00s',
        'Speedup       1.33×',
        'Build         failed (2 attempts)',
        'Cost          $0.12',
        'Agents        1 pending, 1 in_progress, 1 completed, 1 failed, 1 needs_input',
        ''
      ].join('\n')
    )
  })

  it('colours statuses only when asked', async () => {
    const scorecard = computeScorecard(await loadPlan(fixture('every-status')))
    expect(formatScorecard(scorecard)).not.toContain('\x1b')
    expect(formatScorecard(scorecard, {color: true})).toContain('\x1b[32mcompleted')
  })
})
