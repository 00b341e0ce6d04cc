import {describe, expect, it} from 'vitest'
import {accountFull} from '../../../src/executor/account-full.js'
import {ExecSim, simAgent} from '../../helpers/exec-sim.js'

/** A, B and C run on claude, D and E on codex (one account each, on this machine). */
const account = (agent: string): string => (agent < 'D' ? 'claude on local' : 'codex on local')
const agents = () => ['A', 'B', 'C', 'D', 'E'].map((id) => simAgent(id, []))

function settle(sim: ExecSim): void {
  for (let round = 0; round < 200; round++) {
    if (!(sim.completeWrite(true) || sim.completePrepare(0, false) || sim.completeCheck(0, false) || sim.completeLook())) return
  }
}

function finish(sim: ExecSim, id: string): void {
  const live = [...sim.live.keys()]
  expect(live, `${id} is not running`).toContain(id)
  sim.exit(live.indexOf(id), 'success')
  settle(sim)
}

describe('an account\'s cap (docs/limits.md, "Accounts")', () => {
  it('runs at most the cap on its account, and an agent it holds back does not hold back another account\'s agent', () => {
    const sim = new ExecSim(agents(), 4, {account, accountCaps: new Map([['claude on local', 1]])})
    sim.dispatch({type: 'start'})
    settle(sim)
    // One claude agent; the free slots go to codex's, which come after B and C in the plan.
    expect([...sim.live.keys()].sort()).toEqual(['A', 'D', 'E'])
    expect(sim.state.table.rows.get('B')!.status).toBe('pending')
    finish(sim, 'D')
    // D's slot cannot go to claude: its account is full.
    expect([...sim.live.keys()].sort()).toEqual(['A', 'E'])
    finish(sim, 'A')
    expect([...sim.live.keys()].sort()).toEqual(['B', 'E'])
    finish(sim, 'B')
    finish(sim, 'E')
    expect([...sim.live.keys()]).toEqual(['C'])
    finish(sim, 'C')
    expect(sim.finished).toBe(true)
    expect([...sim.launches.values()]).toEqual([1, 1, 1, 1, 1])
    expect(sim.violations).toEqual([])
  })

  it('is pure: full once the account\'s live attempts reach the cap; a child plan is neither capped nor counted', () => {
    const sim = new ExecSim(agents(), 4, {account, accountCaps: new Map([['claude on local', 2]]), childPlans: new Set(['C'])})
    const ctx = {state: sim.state, config: sim.config}
    expect(accountFull(ctx, 'A', undefined)).toBe(false)
    sim.dispatch({type: 'start'})
    settle(sim)
    // A and B fill claude's two; C, a child plan, runs beside them all the same.
    expect([...sim.live.keys()].sort()).toEqual(['A', 'B', 'C', 'D'])
    expect(accountFull({state: sim.state, config: sim.config}, 'A', undefined)).toBe(true)
    expect(accountFull({state: sim.state, config: sim.config}, 'C', undefined)).toBe(false)
    expect(accountFull({state: sim.state, config: sim.config}, 'E', undefined)).toBe(false)
    expect(sim.violations).toEqual([])
  })

  it('a child plan after agents its account holds back takes no more than the free slots', () => {
    // Six claude agents capped at one, then a child plan: the launches list all seven, five of which cannot start.
    const ids = ['A', 'B', 'C', 'D', 'E', 'F', 'G']
    const sim = new ExecSim(ids.map((id) => simAgent(id, [])), 4, {account: (agent) => (agent === 'G' ? 'plan on local' : 'claude on local'), accountCaps: new Map([['claude on local', 1]]), childPlans: new Set(['G'])})
    sim.dispatch({type: 'start'})
    settle(sim)
    expect([...sim.live.keys()].sort()).toEqual(['A', 'G'])
    const slots = [...sim.state.attempts.values()].reduce((sum, attempt) => sum + attempt.slots, 0)
    expect(sim.state.attempts.get('G')!.slots).toBe(3)
    expect(slots).toBe(4)
    expect(sim.violations).toEqual([])
  })
})
