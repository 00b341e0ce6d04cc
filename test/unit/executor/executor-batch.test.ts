import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {ExecSim, simAgent} from '../../helpers/exec-sim.js'

/**
 * Events that arrive together are stepped as one batch (issue 24): every event but the last is marked
 * `more`, and the last one makes the scheduling pass and the write for all of them. The write is the
 * dearest step of a thousand-agent run, so a batch of endings must cost one write, not one each.
 */
describe('events stepped as a batch', () => {
  /** Four independent agents, then four more each depending on one of them; all of the first four running. */
  const running = (): ExecSim => {
    const first = ['A', 'B', 'C', 'D']
    const agents = [...first.map((id) => simAgent(id, [])), ...first.map((id) => simAgent(`${id}2`, [id]))]
    const sim = new ExecSim(agents, 4, {git: false})
    sim.dispatch({type: 'start'})
    sim.completeWrite(true)
    while (sim.completePrepare(0, false));
    // The prepares' notes (`base:`) go to disk too.
    while (sim.completeWrite(true));
    expect([...sim.live.keys()].sort()).toEqual(first)
    expect(sim.writes).toEqual([])
    return sim
  }

  it('writes the endings of agents that ended together, and the launches they free, in one write', () => {
    const sim = running()
    sim.batch([(s) => s.exit(0, 'success'), (s) => s.exit(0, 'success'), (s) => s.exit(0, 'success'), (s) => s.exit(0, 'success')])
    expect(sim.writes).toHaveLength(1)
    const table = sim.writes[0]!.table
    for (const id of ['A', 'B', 'C', 'D']) expect(table.rows.get(id)?.status, id).toBe('completed')
    for (const id of ['A2', 'B2', 'C2', 'D2']) expect(table.rows.get(id)?.status, id).toBe('in_progress')
    // Launched, but spawned only once that write is on disk.
    expect(sim.live.size).toBe(0)
    sim.completeWrite(true)
    while (sim.completePrepare(0, false));
    expect([...sim.live.keys()].sort()).toEqual(['A2', 'B2', 'C2', 'D2'])
    expect(sim.violations).toEqual([])
  })

  it('makes no write and no launch before the last event of the batch', () => {
    const sim = running()
    sim.more = true
    sim.exit(0, 'success')
    sim.exit(0, 'success')
    expect(sim.writes).toEqual([])
    expect(sim.state.attempts.size).toBe(2)
    sim.more = false
    sim.exit(0, 'success')
    expect(sim.writes).toHaveLength(1)
    expect(sim.violations).toEqual([])
  })

  it('runs a plain DAG with every agent exactly once when its events come in batches of any size', () => {
    const dag = fc.integer({min: 1, max: 40}).chain((size) =>
      fc.array(fc.array(fc.nat(), {maxLength: 3}), {minLength: size, maxLength: size}).map((edges) =>
        edges.map((hard, i) => simAgent(`A${i}`, [...new Set(i === 0 ? [] : hard.map((n) => `A${n % i}`))]))
      )
    )
    fc.assert(
      fc.property(dag, fc.integer({min: 1, max: 8}), fc.array(fc.integer({min: 1, max: 6}), {minLength: 1, maxLength: 20}), fc.boolean(), (agents, cap, sizes, git) => {
        const sim = new ExecSim(agents, cap, {git})
        sim.dispatch({type: 'start'})
        for (let round = 0; round < 2000 && !sim.finished; round++) {
          const size = sizes[round % sizes.length]!
          const parts = Array.from({length: size}, (_, i) => (s: ExecSim) => s.completeWrite(true) || s.completePrepare(i, false) || s.exit(i, 'success') || s.completeCheck(i, false) || s.completeLook())
          sim.batch(parts)
        }
        expect(sim.drain()).toBe(true)
        expect(sim.violations).toEqual([])
        for (const agent of agents) expect(sim.launches.get(agent.id), agent.id).toBe(1)
        expect(sim.peak).toBeLessThanOrEqual(cap)
      }),
      {seed: 20261123, numRuns: 300}
    )
  })
})
