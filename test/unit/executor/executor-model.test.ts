import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import type {Agent} from '../../../src/plan/types.js'
import type {RowState} from '../../../src/store/table-state.js'
import {ExecSim, simAgent, type ExitKind} from '../../helpers/exec-sim.js'
import {intruder, journalAtExit, loseLock, staleMs} from '../../helpers/exec-sim-lock.js'
import {applyJournal} from '../../../src/store/apply-journal.js'
import {readReviewNote} from '../../../src/plan/review-note.js'
import {renderNotes} from '../../../src/executor/row-notes.js'

/**
 * Model-based test of the executor's core (fast-check commands): random DAGs
 * (1–60 agents, soft dependencies, caps 1–8) and random interleavings of
 * writes finishing or failing, git checks finishing late, exits of every
 * kind, questions and answers, a person's re-queues and skips, new agents,
 * rate-limit pauses and aborts, review gates (a person's approvals, some of whose merges conflict, and
 * rejections with a note, made through `mdplan review`'s own row edit), jobs whose engine state never moves (ended by
 * the follow's bound as never started: tried again, no attempt used), damaged tables (a person's edit, conflict
 * markers) and unwritable ones (a full disk), a lost run lock, and other runs
 * judging the lock (a live owner on this host, stopped or not, is never
 * taken over). A run that ends unable to write keeps the rest in the journal:
 * a completion is on disk or in the journal, and the next run, started from
 * the file with the journal applied, runs no completed agent again. After every step the invariants hold (the
 * simulator calls `checkInvariants`) and, counted from the agents' side, no
 * agent runs beside itself, over the cap, before its launch is on disk, or
 * again after it completed unless a person set it back; a gated agent is completed only by a person's
 * approval, nothing starts on work awaiting review or being merged, and a rejected agent's next launch
 * carries the note and used no attempt. Then every run ends.
 *
 * Seeded: `MDPLAN_MODEL_SEED=<seed> MDPLAN_MODEL_PATH=<path> MDPLAN_MODEL_REPLAY=<replayPath>` replays a failure at once;
 * `MDPLAN_MODEL_RUNS` sets the count (2000 by default, as `npm test` runs it; 300 in `npm run test:unit`'s inner
 * loop, MDPLAN_QUICK=1; run 10,000 locally after a change to the core).
 */
const seed = Number(process.env.MDPLAN_MODEL_SEED ?? 20261123)
const numRuns = Number(process.env.MDPLAN_MODEL_RUNS ?? (process.env.MDPLAN_QUICK ? 300 : 2000))
/** fast-check's `path` of a failure (printed with its seed): replays that one case at once. */
const path = process.env.MDPLAN_MODEL_PATH

interface Model {
  readonly _: true
}
type Cmd = fc.Command<Model, ExecSim>

const command = (name: string, act: (sim: ExecSim) => unknown): Cmd => ({
  check: () => true,
  run: (_model, sim) => {
    act(sim)
    expect(sim.violations).toEqual([])
  },
  toString: () => name
})

const pick = fc.nat(100)
const commands = fc.commands(
  [
    fc.boolean().map((ok) => command(`write(${ok})`, (sim) => sim.completeWrite(ok))),
    fc.tuple(pick, fc.boolean()).map(([at, error]) => command(`prepare(${at},${error})`, (sim) => sim.completePrepare(at, error && at % 7 === 0))),
    fc
      .tuple(pick, fc.constantFrom<ExitKind>('success', 'success', 'success', 'fail', 'question', 'rate', 'unknown-session', 'config', 'transient', 'never-started'))
      .map(([at, kind]) => command(`exit(${at},${kind})`, (sim) => sim.exit(at, kind))),
    fc.tuple(pick, fc.boolean()).map(([at, fail]) => command(`check(${at},${fail})`, (sim) => sim.completeCheck(at, fail && at % 5 === 0))),
    fc.constant(command('question-written', (sim) => sim.completeQuestion())),
    fc.tuple(pick, fc.boolean()).map(([at, approve]) => command(`review(${at},${approve})`, (sim) => sim.review(at, approve))),
    fc.tuple(pick, fc.boolean()).map(([at, fail]) => command(`approved(${at},${fail})`, (sim) => sim.completeApprove(at, fail && at % 4 === 0))),
    pick.map((at) => command(`answer(${at})`, (sim) => sim.answer(at))),
    fc.tuple(pick, fc.constantFrom<'pending' | 'completed' | 'skipped'>('pending', 'completed', 'skipped')).map(([at, to]) => command(`edit(${at},${to})`, (sim) => sim.edit(at, to))),
    fc.constant(command('looked', (sim) => sim.completeLook())),
    // An engine state that never moves (a container stuck `created`, a queued job gone): only the follow's bound ends it.
    pick.map((at) => command(`stick(${at})`, (sim) => sim.stick(at))),
    fc.constant(command('tick', (sim) => sim.tick(61_000))),
    pick.map((at) => command(`add-agent(${at})`, (sim) => sim.addAgent(at))),
    fc.constant(command('abort', (sim) => sim.dispatch({type: 'abort'}))),
    // Events that arrive together (processes ending at once, a write and a check finishing meanwhile) are one batch.
    fc
      .array(fc.tuple(pick, fc.constantFrom('exit', 'fail', 'write', 'prepare', 'check', 'edit', 'tick')), {minLength: 1, maxLength: 6})
      .map((parts) =>
        command(`batch(${parts.map(([at, what]) => `${what}:${at}`).join(',')})`, (sim) =>
          sim.batch(
            parts.map(([at, what]) => (s: ExecSim) =>
              what === 'exit' ? s.exit(at, 'success') : what === 'fail' ? s.exit(at, 'fail') : what === 'write' ? s.completeWrite(true) : what === 'prepare' ? s.completePrepare(at, false) : what === 'check' ? s.completeCheck(at, false) : what === 'edit' ? s.edit(at, 'pending') : s.tick(1_000)
            )
          )
        )
      ),
    // A person's edit damages the table (or a merge leaves conflict markers): writes fail until the repair.
    fc.boolean().map((damaged) => command(damaged ? 'damage' : 'repair', (sim) => (sim.damaged = damaged))),
    fc.constant(command('lose-lock', (sim) => loseLock(sim, 'the lock directory was removed'))),
    fc
      .tuple(fc.integer({min: 0, max: 10 * staleMs}), fc.boolean(), fc.boolean())
      .map(([age, sameHost, stopped]) => command(`intruder(${age},${sameHost},${stopped})`, (sim) => intruder(sim, age, sameHost, stopped)))
  ],
  // fast-check prints a counterexample's commands with `/*replayPath="…"*/`: pass it to replay them exactly.
  {maxCommands: 200, ...(process.env.MDPLAN_MODEL_REPLAY ? {replayPath: process.env.MDPLAN_MODEL_REPLAY} : {})}
)

/** A random DAG: each agent depends (hard or soft) only on agents before it. */
const dag = fc.integer({min: 1, max: 60}).chain((size) =>
  fc.array(fc.tuple(fc.array(fc.nat(), {maxLength: 3}), fc.array(fc.nat(), {maxLength: 1})), {minLength: size, maxLength: size}).map((edges) =>
    edges.map(([hard, soft], i) => {
      const before = (list: number[]) => [...new Set(i === 0 ? [] : list.map((n) => `A${n % i}`))]
      const deps = before(hard)
      return simAgent(`A${i}`, deps, before(soft).filter((d) => !deps.includes(d)))
    })
  )
)

/** Rows as an earlier run may have left them (resume: orphans, retries, answers, skips). */
const earlierRows = fc.array(
  fc.constantFrom<[string, string, string]>(
    ['pending', '', ''],
    ['pending', '', ''],
    ['completed', 'x-1', 'result: done'],
    ['in_progress', 'x-2', ''],
    ['in_progress', '', ''],
    ['failed', 'x-3', 'attempt 1: tests failed'],
    ['failed', 'x-4', 'attempt 1: a; attempt 2: b'],
    ['needs_input', 'x-5', 'question: which?'],
    ['awaiting_review', 'x-6', 'result: done; review: waiting'],
    ['awaiting_review', 'x-9', 'review: waiting'],
    ['completed', 'x-7', 'review: waiting'],
    ['pending', 'x-8', 'review: rejected: use tabs']
  ),
  {maxLength: 60}
)
const rowsFor = (agents: Agent[], earlier: Array<[string, string, string]>): Map<string, RowState> =>
  new Map(agents.map((agent, i) => {
    const [status, agentId, notes] = earlier[i] ?? ['pending', '', '']
    return [agent.id, {status: status as RowState['status'], agentId, duration: '', notes, extra: {}}]
  }))

describe('the executor core, driven through random interleavings', () => {
  it('keeps every invariant after every step, and every run ends', () => {
    fc.assert(
      fc.property(dag, fc.integer({min: 1, max: 8}), fc.boolean(), earlierRows, commands, fc.boolean(), fc.boolean(), (agents, cap, git, earlier, cmds, repairAtEnd, gates) => {
        // Every fifth agent is a child plan: it holds a share of the cap, not one slot.
        const childPlans = new Set(agents.filter((_, i) => i % 5 === 4).map((agent) => agent.id))
        // With gates, every third agent's work waits for a person's review.
        const gated = new Set(gates ? agents.filter((_, i) => i % 3 === 1).map((agent) => agent.id) : [])
        const sim = new ExecSim(agents, cap, {git, rows: rowsFor(agents, earlier), childPlans, gated})
        if (path) sim.trace = []
        sim.dispatch({type: 'start'})
        fc.modelRun(() => ({model: {_: true as const}, real: sim}), cmds)
        // Left damaged, the run waits for the repair, then ends and keeps what it could not write in the journal.
        if (repairAtEnd) sim.damaged = false
        expect(sim.drain()).toBe(true)
        expect(sim.violations).toEqual([])
        expect(sim.peak).toBeLessThanOrEqual(cap)
        // Everything the run decided is on disk, or (it could not write, or lost its lock) in the journal.
        const journal = journalAtExit(sim)
        const applied = applyJournal(sim.disk, journal)
        for (const [id, row] of sim.state.table.rows) {
          const untouched = sim.disk.rows.get(id)?.status === sim.state.write.onDisk.rows.get(id)?.status
          if (row.status === 'completed' && untouched) expect(applied.rows.get(id)?.status, `${id}: a completion lost`).toBe('completed')
        }
        if (sim.state.write.failed === undefined && !sim.lockLost) {
          for (const [id, row] of sim.state.table.rows) expect(sim.base.rows.get(id)?.status, id).toBe(row.status)
        }
        // Every approval the run saw was merged (or failed) before it ended: no approved work is left held.
        expect(sim.state.approving.size).toBe(0)
        if (!sim.state.stopping && sim.state.write.failed === undefined) {
          for (const [id, row] of sim.state.table.rows) {
            if (row.status === 'completed' && sim.state.byId.has(id)) expect(readReviewNote(renderNotes(row.notes))?.state, `${id}: approved, never merged`).not.toBe('waiting')
          }
        }
        // Every question raised has its entry under ## Open Questions.
        for (const [id, row] of sim.state.table.rows) if (row.status === 'needs_input') expect(sim.recorded.has(id), id).toBe(true)
        if (!sim.state.stopping && sim.state.write.failed === undefined) {
          // Nothing that could still run was left behind.
          for (const agent of sim.agents) {
            const status = sim.state.table.rows.get(agent.id)?.status
            // A held row (a status mdplan does not know) is never launched: left behind on purpose.
            if (status !== 'pending' || sim.state.table.rows.get(agent.id)?.held !== undefined) continue
            const ready = agent.dependsOn.every((d) => sim.state.table.rows.get(d.id)?.status === 'completed')
            expect(ready, `${agent.id} ready but never launched`).toBe(false)
          }
        }
        // The next run starts from the file with the journal applied: it ends, and runs no completed agent again.
        if (journal.some((entry) => entry.row.status === 'completed')) {
          const next = new ExecSim(sim.agents, cap, {git, rows: applied.rows, childPlans, gated})
          next.dispatch({type: 'start'})
          expect(next.drain()).toBe(true)
          expect(next.violations).toEqual([])
        }
      }),
      {seed, numRuns, ...(path ? {path, endOnFailure: true} : {})}
    )
  }, 180_000)

  it('runs a plain DAG with every agent exactly once, never over the cap', () => {
    fc.assert(
      fc.property(dag, fc.integer({min: 1, max: 8}), (agents, cap) => {
        const sim = new ExecSim(agents, cap)
        sim.dispatch({type: 'start'})
        expect(sim.drain()).toBe(true)
        expect(sim.violations).toEqual([])
        for (const agent of agents) expect(sim.launches.get(agent.id), agent.id).toBe(1)
        expect(sim.peak).toBeLessThanOrEqual(cap)
      }),
      {seed, numRuns: Math.ceil(numRuns / 3)}
    )
  }, 180_000)
})
