import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {parseWaitLine} from '../../../src/plan/wait-line.js'
import {ExecSim, simAgent, type ExitKind} from '../../helpers/exec-sim.js'

/**
 * Model-based test of usage limits (docs/limits.md), on the executor's core (fast-check commands, the
 * simulator's fake clock): random DAGs whose agents use one to three accounts, and random interleavings of
 * exits of every kind with usage limits that name their reset (an hour after) drawn often, limits that name
 * none, time passing (a second to two hours), a person deleting a wait line, and crashes (the state machine
 * started again from the table the plan has). Budgets too (docs/limits.md, "Budgets"): a plan's budget in
 * tokens (or none), finishing or stopping at 100 %, some agents with budgets of their own, and the tokens
 * each attempt spends, said at its end or streamed while it runs. Checked from the agents' side (the
 * simulator): nothing launches on an account before the reset its CLI named (unless a person cleared the
 * wait); nothing launches once the spend the run knows of (its rows, on disk and in memory, and what the
 * running agents streamed) reaches the plan's budget, or its own; a limit never uses an attempt, nor does an
 * attempt ended on purpose (a budget's stop); a rerun from the written plan honours the recorded waits and
 * a spent budget; and every run ends: with `--wait-for-reset`, every agent that can run has run (unless a
 * budget holds it back); without, the run ends `limited` only when every ready agent waits for an account.
 * Account caps too (docs/limits.md, "Accounts"): each account drawn with a cap of 1 to 3 or none; after every
 * step no account has more live attempts than its cap (the invariants), nor, from the agents' side, more
 * live processes.
 *
 * Seeded: `MDPLAN_MODEL_SEED=<seed>` and fast-check's `path` replay a failure; `MDPLAN_MODEL_RUNS` sets the count
 * (300 by default, 60 with MDPLAN_QUICK=1).
 */
const seed = Number(process.env.MDPLAN_MODEL_SEED ?? 20261128)
const numRuns = Number(process.env.MDPLAN_MODEL_RUNS ?? (process.env.MDPLAN_QUICK ? 60 : 300))

interface World {
  sim: ExecSim
  readonly build: (from: ExecSim) => ExecSim
}
type Cmd = fc.Command<object, World>

const command = (name: string, act: (world: World) => unknown): Cmd => ({
  check: () => true,
  run: (_model, world) => {
    act(world)
    expect(world.sim.violations).toEqual([])
  },
  toString: () => name
})

const pick = fc.nat(100)
/** Tokens an attempt spends (at its end, or streamed while it runs). */
const spend = fc.constantFrom(0, 300, 1_000, 2_500)
const commands = fc.commands(
  [
    fc.constant(command('write', ({sim}) => sim.completeWrite(true))),
    // Everything under way gets as far as it can (writes, git setups, checks): agents reach their processes.
    fc.constant(command('advance', ({sim}) => advance(sim))),
    pick.map((at) => command(`prepare(${at})`, ({sim}) => sim.completePrepare(at, false))),
    fc
      .tuple(pick, fc.constantFrom<ExitKind>('success', 'success', 'limit', 'limit', 'rate', 'fail', 'question', 'transient'), spend)
      .map(([at, kind, tokens]) => command(`exit(${at},${kind},${tokens})`, ({sim}) => sim.exit(at, kind, tokens))),
    // A running agent says what it has spent so far (opencode's steps, a script's `USAGE:` lines).
    fc.tuple(pick, spend).map(([at, tokens]) => command(`stream(${at},${tokens})`, ({sim}) => sim.stream(at, tokens))),
    pick.map((at) => command(`check(${at})`, ({sim}) => sim.completeCheck(at, false))),
    fc.constant(command('question-written', ({sim}) => sim.completeQuestion())),
    pick.map((at) => command(`answer(${at})`, ({sim}) => sim.answer(at))),
    fc.constant(command('looked', ({sim}) => sim.completeLook())),
    fc.integer({min: 1_000, max: 2 * 3_600_000}).map((ms) => command(`tick(${ms})`, ({sim}) => sim.tick(ms))),
    pick.map((at) => command(`clear-wait(${at})`, ({sim}) => clearWait(sim, at))),
    // The coordinator dies (SIGKILL): the next run starts from the table the plan has, waits and all.
    fc.constant(command('crash', (world) => (world.sim = world.build(world.sim))))
  ],
  {maxCommands: 120, size: 'medium'}
)

function advance(sim: ExecSim): void {
  for (let round = 0; round < 100; round++) if (!(sim.completeWrite(true) || sim.completePrepare(0, false) || sim.completeCheck(0, false))) return
}

/** A person deletes one wait line from the plan (the model forgets that reset: launching there is allowed again). */
function clearWait(sim: ExecSim, at: number): void {
  const lines = (sim.disk.meta.waits ?? '').split('\n').filter((line) => line !== '')
  const line = lines[at % Math.max(1, lines.length)]
  if (line === undefined) return
  sim.disk.meta.waits = lines.filter((other) => other !== line).join('\n')
  sim.resets.delete(parseWaitLine(line)!.account)
  sim.dispatch({type: 'file-changed'})
}

/** The resets the plan's wait lines record, by account. */
function recorded(sim: ExecSim): Map<string, number> {
  const lines = (sim.disk.meta.waits ?? '').split('\n').map((line) => parseWaitLine(line))
  return new Map(lines.filter((wait) => wait !== undefined).map((wait) => [wait.account, wait.at]))
}

/** The plan's budget (none a third of the time), and whether reaching it ends the running agents. */
const planBudget = fc.option(fc.record({tokens: fc.integer({min: 200, max: 6_000}), stop: fc.boolean(), warnAt: fc.constantFrom(0.5, 0.8, 1)}), {freq: 2})
/** Every `every`-th agent has a budget of its own. */
const ownBudget = fc.option(fc.record({every: fc.integer({min: 1, max: 4}), tokens: fc.integer({min: 200, max: 4_000})}), {freq: 2})
const span = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

/** Each account's cap on its live attempts (docs/limits.md, "Accounts"), or none (half the time). */
const accountCaps = fc.array(fc.option(fc.integer({min: 1, max: 3}), {freq: 2}), {minLength: 3, maxLength: 3})

/** A random DAG of up to 20 agents; agent i uses account i mod `accounts`. */
const world = fc.tuple(fc.integer({min: 1, max: 20}), fc.integer({min: 1, max: 3}), fc.integer({min: 1, max: 4}), fc.boolean(), fc.boolean(), planBudget, ownBudget, accountCaps).chain(([size, accounts, cap, git, waitForReset, plan, own, drawn]) =>
  fc.array(fc.array(fc.nat(), {maxLength: 2}), {minLength: size, maxLength: size}).map((edges) => {
    const agents = edges.map((hard, i) => {
      const agent = simAgent(`A${i}`, [...new Set(i === 0 ? [] : hard.map((n) => `A${n % i}`))])
      if (own && i % own.every === 0) agent.fields.budget = {key: 'budget', rawKey: 'budget', value: `{tokens: ${own.tokens}}`, position: span}
      return agent
    })
    const account = (agent: string): string => `r${Number(agent.slice(1)) % accounts} on local`
    const budget = plan ? {limit: {tokens: plan.tokens}, warnAt: plan.warnAt, stop: plan.stop} : undefined
    const capped = drawn.flatMap((value, i) => (value === null ? [] : [[`r${i} on local`, value] as const]))
    const caps = capped.length > 0 ? new Map(capped) : undefined
    const build = (from: ExecSim | undefined, wait = waitForReset, raised = false): ExecSim => {
      const sim = new ExecSim(agents, cap, {git, account, ...(caps ? {accountCaps: caps} : {}), waitForReset: wait, budget: raised ? undefined : budget, ...(from ? {rows: from.disk.rows, meta: from.disk.meta, now: from.now} : {})})
      // A rerun owes the resets the plan records (a limit whose write a crash beat is not recorded: the rerun
      // meets it again); those still running in the same run (a `limited` end) stay owed as they were.
      if (from) sim.resets = from.finished ? new Map(from.resets) : recorded(from)
      sim.dispatch({type: 'start'})
      return sim
    }
    return {agents, build, label: `${size} agents, ${accounts} accounts, cap ${cap}, account caps ${JSON.stringify(capped)}, git ${git}, wait ${waitForReset}, budget ${JSON.stringify(plan)}, own ${JSON.stringify(own)}`}
  })
)

describe('usage limits, driven through random interleavings', () => {
  it('launch nothing on a limited account before its reset nor past a spent budget, spend no attempt, survive a crash, and every run ends', () => {
    fc.assert(
      fc.property(world, commands, ({agents, build}, cmds) => {
        const state: World = {sim: build(undefined), build: (from) => build(from)}
        fc.modelRun(() => ({model: {}, real: state}), cmds)
        let sim = state.sim
        expect(sim.drain()).toBe(true)
        expect(sim.violations).toEqual([])
        const limited = sim.state.limited
        if (limited) {
          // It ended only because every ready agent waits for its account: run again after the reset, waiting this time.
          expect(limited.accounts.length).toBeGreaterThan(0)
          sim = build(sim, true)
          sim.now = Math.max(sim.now, limited.until)
          sim.tick(0)
          expect(sim.drain()).toBe(true)
          expect(sim.violations).toEqual([])
        }
        // A spent budget holds back what could run: a person raises it, and the next run goes on.
        if (sim.state.budget?.reached !== undefined) {
          expect(sim.disk.meta.budget).toBe(sim.state.budget.reached)
          // Raised (here: taken out), the next run goes on where this one stopped, and its line goes.
          sim = build(sim, true, true)
          sim.now += 2 * sim.limitResetMs
          sim.tick(0)
          expect(sim.drain()).toBe(true)
          expect(sim.violations).toEqual([])
          expect(sim.disk.meta.budget ?? '').toBe('')
        }
        if (sim.state.stopping) return
        // Nothing that could still run was left behind (but what its own budget holds back).
        for (const agent of agents) {
          const row = sim.state.table.rows.get(agent.id)
          if (row?.status !== 'pending' || row.notes.budgetReached !== undefined) continue
          const ready = agent.dependsOn.every((d) => sim.state.table.rows.get(d.id)?.status === 'completed')
          expect(ready, `${agent.id} ready but never launched`).toBe(false)
        }
      }),
      {seed, numRuns}
    )
  }, 180_000)
})
