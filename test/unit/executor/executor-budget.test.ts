import {describe, expect, it} from 'vitest'
import {renderNotes} from '../../../src/executor/row-notes.js'
import type {ExecConfig} from '../../../src/executor/exec-config.js'
import type {Agent} from '../../../src/plan/types.js'
import {ExecSim, simAgent} from '../../helpers/exec-sim.js'

/**
 * Budgets in the executor's core (docs/limits.md, "Budgets"), through the simulator: the plan's budget is
 * checked before each launch against what the rows record, said once at the warning share and once at 100 %,
 * written under the table, and at 100 % nothing more launches (running agents finish, or with `on_budget:
 * stop` are ended resumably); a rerun from the file honours it; an agent's own budget stops it.
 */
const span = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}
const six = (): Agent[] => ['A', 'B', 'C', 'D', 'E', 'F'].map((id) => simAgent(id, []))
const budget = (tokens: number, more: Partial<NonNullable<ExecConfig['budget']>> = {}): NonNullable<ExecConfig['budget']> => ({limit: {tokens}, warnAt: 0.5, stop: false, ...more})

/** Writes, git setups and checks done until nothing is left to do. */
function settle(sim: ExecSim): void {
  for (let round = 0; round < 200; round++) {
    if (!(sim.completeWrite(true) || sim.completePrepare(0, false) || sim.completeCheck(0, false) || sim.completeLook())) return
  }
}

/** Every agent that runs completes, spending `tokens`, until the run ends. */
function runAll(sim: ExecSim, tokens: number): void {
  settle(sim)
  for (let round = 0; round < 100 && !sim.finished; round++) {
    if (!sim.exit(0, 'success', tokens)) sim.tick(60_000)
    settle(sim)
  }
}

/** The next run, from the plan as the last one left it. */
function rerun(from: ExecSim, agents: Agent[], concurrency: number, limit: NonNullable<ExecConfig['budget']>): ExecSim {
  const sim = new ExecSim(agents, concurrency, {rows: from.disk.rows, meta: from.disk.meta, now: from.now, budget: limit})
  sim.dispatch({type: 'start'})
  return sim
}

describe('the plan\'s budget', () => {
  it('launches nothing once the rows record the budget spent, says so once at the warning share and once at 100 %, and a raised budget goes on where it stopped', () => {
    const sim = new ExecSim(six(), 1, {budget: budget(3000)})
    sim.dispatch({type: 'start'})
    runAll(sim, 1000)
    expect(sim.finished).toBe(true)
    // Three agents of a thousand tokens each spent it: no fourth launched.
    expect([...sim.launches.keys()]).toEqual(['A', 'B', 'C'])
    expect(sim.events.filter((type) => type === 'budget')).toHaveLength(2)
    expect(sim.disk.meta.budget).toBe('budget reached: 3k of 3k tokens')
    expect(sim.state.budget).toMatchObject({held: true, reached: 'budget reached: 3k of 3k tokens'})
    expect(sim.violations).toEqual([])

    // A rerun with the same budget launches nothing and ends the same way.
    const same = rerun(sim, six(), 1, budget(3000))
    runAll(same, 1000)
    expect(same.launches.size).toBe(0)
    expect(same.state.budget?.held).toBe(true)

    // Raised: the other three run once each, none of the first three again; the line says the new figures.
    const raised = rerun(same, six(), 1, budget(8000))
    runAll(raised, 1000)
    expect([...raised.launches]).toEqual([
      ['D', 1],
      ['E', 1],
      ['F', 1]
    ])
    expect(raised.disk.meta.budget).toBe('budget: 6k of 8k tokens (75 %)')
    expect(raised.state.budget?.held).toBe(false)
    expect([...raised.state.table.rows.values()].every((row) => row.status === 'completed')).toBe(true)
    // Raised above the warning share: the line goes.
    const far = rerun(raised, six(), 1, budget(100_000))
    runAll(far, 1000)
    expect(far.disk.meta.budget).toBe('')
    expect(raised.violations.concat(far.violations)).toEqual([])
  })

  it('lets the running agents finish by default, and an attempt picked before the budget was spent never starts', () => {
    const sim = new ExecSim(six(), 3, {budget: budget(1000)})
    sim.dispatch({type: 'start'})
    settle(sim)
    expect([...sim.live.keys()]).toEqual(['A', 'B', 'C'])
    sim.exit(0, 'success', 1500)
    settle(sim)
    // B and C go on; nothing takes A's slot.
    expect([...sim.live.keys()]).toEqual(['B', 'C'])
    sim.exit(0, 'success', 10)
    sim.exit(0, 'fail', 10)
    settle(sim)
    expect(sim.finished).toBe(true)
    expect(sim.launches.size).toBe(3)
    // The failure is not retried past the budget.
    expect(sim.state.table.rows.get('C')!.status).toBe('failed')
    expect(sim.disk.meta.budget).toBe('budget reached: 1.52k of 1k tokens')
    expect(sim.violations).toEqual([])
  })

  it('takes back a launch picked before the budget was spent when the spend lands first', () => {
    const sim = new ExecSim(six(), 2, {budget: budget(1000)})
    sim.dispatch({type: 'start'})
    sim.completeWrite(true)
    sim.completePrepare(0, false)
    // A runs; B's setup is still under way when A ends having spent the budget.
    expect([...sim.live.keys()]).toEqual(['A'])
    sim.exit(0, 'success', 1000)
    // A's check settles it (its spend in its row) before B's setup is done.
    sim.completeCheck(0, false)
    settle(sim)
    expect(sim.launches.has('B')).toBe(false)
    expect(sim.state.table.rows.get('B')!.status).toBe('pending')
    expect(sim.finished).toBe(true)
    expect(sim.violations).toEqual([])
  })

  it('with on_budget: stop, ends the running agents the way Ctrl-C does (resumable, no attempt used) once the streamed spend reaches it', () => {
    const sim = new ExecSim(six(), 2, {budget: budget(1000, {stop: true})})
    sim.dispatch({type: 'start'})
    settle(sim)
    expect([...sim.live.keys()]).toEqual(['A', 'B'])
    sim.stream(0, 600)
    expect(sim.live.get('A')!.killed).toBe(false)
    sim.stream(1, 500)
    // The plan's budget is spent while both run: both are ended.
    expect([...sim.live.values()].every((process) => process.killed)).toBe(true)
    sim.exit(0, 'success')
    sim.exit(0, 'success')
    settle(sim)
    expect(sim.finished).toBe(true)
    expect(sim.state.budget).toMatchObject({stopped: true, reached: 'budget reached: 1.1k of 1k tokens'})
    for (const id of ['A', 'B']) {
      const row = sim.state.table.rows.get(id)!
      expect(row.status).toBe('in_progress')
      expect(row.notes.attempts.size).toBe(0)
    }
    // What they streamed is in their rows: a rerun knows the budget is spent and launches nothing.
    expect(renderNotes(sim.state.table.rows.get('A')!.notes)).toContain('tokens: 600')
    const again = rerun(sim, six(), 2, budget(1000, {stop: true}))
    runAll(again, 100)
    expect(again.launches.size).toBe(0)
    // Raised: A and B go on (resumed), then the rest.
    const raised = rerun(again, six(), 2, budget(100_000, {stop: true}))
    runAll(raised, 100)
    expect(raised.launches.get('A')).toBe(1)
    expect(raised.state.table.rows.get('A')!.notes.attempts.size).toBe(0)
    expect([...raised.state.table.rows.values()].every((row) => row.status === 'completed')).toBe(true)
    expect(sim.violations.concat(again.violations, raised.violations)).toEqual([])
  })
})

describe('an agent\'s own budget', () => {
  const withBudget = (value: string): Agent[] => [
    {...simAgent('A', []), fields: {budget: {key: 'budget', rawKey: 'budget', value, position: span}}},
    simAgent('B', [])
  ]

  it('stops the agent where its runner streams the spend, marks it, and never retries it', () => {
    const sim = new ExecSim(withBudget('{tokens: 500}'), 2)
    sim.dispatch({type: 'start'})
    settle(sim)
    sim.stream(0, 300)
    expect(sim.live.get('A')!.killed).toBe(false)
    sim.stream(0, 300)
    expect(sim.live.get('A')!.killed).toBe(true)
    sim.exit([...sim.live.keys()].indexOf('A'), 'success')
    runAll(sim, 10)
    const a = sim.state.table.rows.get('A')!
    expect(a.status).toBe('failed')
    expect(renderNotes(a.notes)).toMatch(/tokens: 600; budget reached: 600 of 500 tokens$/)
    // No attempt used, none more launched; B was not held back.
    expect(a.notes.attempts.size).toBe(0)
    expect(sim.launches.get('A')).toBe(1)
    expect(sim.state.table.rows.get('B')!.status).toBe('completed')
    expect(sim.violations).toEqual([])
  })

  it('is checked at the end where the runner says its spend only then: a failure over it is not retried; raised, it runs again', () => {
    const sim = new ExecSim(withBudget('500'), 1)
    sim.dispatch({type: 'start'})
    settle(sim)
    sim.exit(0, 'fail', 800)
    runAll(sim, 10)
    const a = sim.state.table.rows.get('A')!
    expect(a.status).toBe('failed')
    expect(renderNotes(a.notes)).toMatch(/tokens: 800; attempt 1: tests failed; budget reached: 800 of 500 tokens$/)
    expect(sim.launches.get('A')).toBe(1)
    const raised = new ExecSim(withBudget('2k'), 1, {rows: sim.disk.rows, meta: sim.disk.meta, now: sim.now})
    raised.dispatch({type: 'start'})
    runAll(raised, 10)
    const again = raised.state.table.rows.get('A')!
    expect(again.status).toBe('completed')
    expect(renderNotes(again.notes)).not.toContain('budget reached')
    expect(sim.violations.concat(raised.violations)).toEqual([])
  })
})
