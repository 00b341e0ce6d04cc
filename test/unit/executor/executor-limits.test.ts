import {describe, expect, it} from 'vitest'
import {resetMarginMs} from '../../../src/executor/account-waits.js'
import {renderNotes} from '../../../src/executor/row-notes.js'
import {ExecSim, simAgent} from '../../helpers/exec-sim.js'

/** A and B run on claude, C and D on codex (one account each, on this machine). */
const account = (agent: string): string => (agent < 'C' ? 'claude on local' : 'codex on local')
const agents = () => ['A', 'B', 'C', 'D'].map((id) => simAgent(id, []))

/** Writes, git setups and checks done until nothing is left to do. */
function settle(sim: ExecSim): void {
  for (let round = 0; round < 200; round++) {
    if (!(sim.completeWrite(true) || sim.completePrepare(0, false) || sim.completeCheck(0, false) || sim.completeLook())) return
  }
}

function exitAgent(sim: ExecSim, id: string, kind: 'success' | 'limit'): void {
  const live = [...sim.live.keys()]
  expect(live, `${id} is not running`).toContain(id)
  sim.exit(live.indexOf(id), kind)
  settle(sim)
}

describe('a usage limit is its account\'s (a circuit breaker)', () => {
  it('stops launches on that account only, spends no attempt, records the reset in the row and under the table, and resumes after it', () => {
    const sim = new ExecSim(agents(), 2, {account, waitForReset: true})
    sim.dispatch({type: 'start'})
    settle(sim)
    expect([...sim.live.keys()]).toEqual(['A', 'B'])
    const limitAt = sim.now
    exitAgent(sim, 'A', 'limit')
    const reset = limitAt + sim.limitResetMs
    // B goes on; the freed slot goes to codex, not to claude.
    expect([...sim.live.keys()].sort()).toEqual(['B', 'C'])
    const a = sim.state.table.rows.get('A')!
    expect(a.status).toBe('pending')
    expect(a.notes.attempts.size).toBe(0)
    expect(renderNotes(a.notes)).toMatch(/paused: rate or usage limit \(You've hit your usage limit\), claude on local resets \d{4}-\d\d-\d\dT/)
    const line = `claude on local: usage limit, resets ${new Date(reset).toISOString().replace(/:00\.000Z$/, 'Z').replace('.000Z', 'Z')}`
    expect(sim.disk.meta.waits).toBe(line)
    exitAgent(sim, 'B', 'success')
    exitAgent(sim, 'C', 'success')
    // B's slot went to D (codex); A waits for its account's reset however long that is (no --max-pause).
    expect([...sim.live.keys()]).toEqual(['D'])
    exitAgent(sim, 'D', 'success')
    expect(sim.live.size).toBe(0)
    expect(sim.finished).toBe(false)
    sim.tick(reset - sim.now - 1)
    settle(sim)
    expect(sim.live.size).toBe(0)
    sim.tick(resetMarginMs + 1)
    settle(sim)
    expect([...sim.live.keys()]).toEqual(['A'])
    // The wait is over: its line is gone.
    expect(sim.disk.meta.waits).toBe('')
    exitAgent(sim, 'A', 'success')
    expect(sim.finished).toBe(true)
    expect(sim.state.table.rows.get('A')!.status).toBe('completed')
    expect(sim.violations).toEqual([])
  })

  it('a run that can only wait for a reset ends, `limited`; a rerun from the plan honours the recorded wait', () => {
    const sim = new ExecSim(agents().slice(0, 2), 1, {account})
    sim.dispatch({type: 'start'})
    settle(sim)
    exitAgent(sim, 'A', 'limit')
    expect(sim.finished).toBe(true)
    expect(sim.state.limited?.accounts).toEqual(['claude on local'])
    expect(sim.state.limited?.until).toBe(sim.resets.get('claude on local')! + resetMarginMs)
    expect(sim.disk.meta.waits).toMatch(/^claude on local: usage limit, resets /)

    // A rerun ten minutes later, from the table the plan has: nothing launches on claude before the reset.
    const rerun = new ExecSim(agents().slice(0, 2), 1, {account, rows: sim.disk.rows, meta: sim.disk.meta, now: sim.now + 600_000})
    rerun.resets = new Map(sim.resets)
    rerun.dispatch({type: 'start'})
    settle(rerun)
    expect(rerun.live.size).toBe(0)
    expect(rerun.finished).toBe(true)
    expect(rerun.state.limited).toBeDefined()
    expect(rerun.violations).toEqual([])

    // After the reset, a rerun goes on: A and B run, and A has used no attempt.
    const later = new ExecSim(agents().slice(0, 2), 1, {account, rows: sim.disk.rows, meta: sim.disk.meta, now: sim.resets.get('claude on local')! + resetMarginMs})
    later.dispatch({type: 'start'})
    expect(later.drain()).toBe(true)
    expect([...later.state.table.rows.values()].map((row) => row.status)).toEqual(['completed', 'completed'])
    expect(later.state.table.rows.get('A')!.notes.attempts.size).toBe(0)
    expect(later.state.limited).toBeUndefined()
  })

  it('a person deleting the wait line clears the wait: the account launches again at once', () => {
    const sim = new ExecSim(agents().slice(0, 2), 1, {account, waitForReset: true})
    sim.dispatch({type: 'start'})
    settle(sim)
    exitAgent(sim, 'A', 'limit')
    expect(sim.live.size).toBe(0)
    expect(sim.events).toContain('warning')
    sim.disk.meta.waits = ''
    sim.resets.clear()
    sim.dispatch({type: 'file-changed'})
    settle(sim)
    expect(sim.live.size).toBe(1)
    expect(sim.violations).toEqual([])
  })

  it('a limit that names no reset backs off on its account alone, and counts against --max-pause', () => {
    const sim = new ExecSim(agents(), 2, {account})
    sim.dispatch({type: 'start'})
    settle(sim)
    sim.exit(0, 'rate')
    settle(sim)
    expect([...sim.live.keys()].sort()).toEqual(['B', 'C'])
    expect(sim.state.pausedFor.get('A')).toBe(60_000)
    // mdplan's own backoff is no fact about the account: no line for it.
    expect(sim.disk.meta.waits ?? '').toBe('')
    expect(sim.violations).toEqual([])
  })
})
