import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {getNote} from '../src/plan/notes.js'
import {HostWorld} from './helpers/host-world.js'

/**
 * Model-based test of remote hosts (fast-check commands, seeded): the
 * executor's pure core against a simulated engine that keeps jobs by key
 * across coordinator restarts. Faults drawn: a submit whose answer is lost
 * (the engine started the job, the coordinator submits again), a duplicate
 * submit, a coordinator restart from the file alone, a host lost while its
 * job runs on and publishes late, a lock taken over by another run (which
 * starts from the file and re-attaches: the old run must not cancel), a
 * question answered. Checked from the engine's side (helpers/host-world.ts):
 * nothing is submitted without a write on disk carrying its key; a key
 * never starts two processes; no agent has results of two keys merged; an
 * answered agent goes on in its session's folder, on its session's host,
 * never beside a job still running there.
 *
 * `MDPLAN_MODEL_SEED`, `MDPLAN_MODEL_RUNS`, `MDPLAN_MODEL_REPLAY` as in executor-model.test.ts.
 */
const seed = Number(process.env.MDPLAN_MODEL_SEED ?? 20261123)
const numRuns = Number(process.env.MDPLAN_MODEL_RUNS ?? 500)

interface Model {
  readonly _: true
}
const cmd = (name: string, act: (world: HostWorld) => void): fc.Command<Model, HostWorld> => ({
  check: () => true,
  run: (_model, world) => {
    act(world)
    world.reattach()
    expect(world.violations).toEqual([])
  },
  toString: () => name
})
const pick = fc.nat(50)

describe('remote hosts, driven through random faults', () => {
  it('never submits a key before it is on disk, never starts a key twice, never merges two keys of one agent, resumes an answered agent in its own folder on its own host', () => {
    fc.assert(
      fc.property(
        fc.commands(
          [
            fc.constant(cmd('write', (w) => w.write())),
            pick.map((at) => cmd(`prepare(${at})`, (w) => w.prepare(at))),
            fc.tuple(pick, fc.boolean(), fc.boolean()).map(([at, lost, dup]) => cmd(`submit(${at},${lost},${dup})`, (w) => w.submit(at, lost && at % 3 === 0, dup))),
            fc.tuple(pick, fc.boolean()).map(([at, ok]) => cmd(`finish(${at},${ok})`, (w) => w.finish(at, ok || at % 4 !== 0))),
            pick.map((at) => cmd(`lose(${at})`, (w) => w.lose(at))),
            pick.map((at) => cmd(`ask(${at})`, (w) => w.ask(at))),
            fc.constant(cmd('written', (w) => w.written())),
            fc.constant(cmd('answer', (w) => w.answer())),
            pick.map((at) => cmd(`check(${at})`, (w) => w.check(at))),
            fc.constant(cmd('restart', (w) => w.restart())),
            fc.constant(cmd('take-over', (w) => w.takeOver()))
          ],
          {maxCommands: 150, ...(process.env.MDPLAN_MODEL_REPLAY ? {replayPath: process.env.MDPLAN_MODEL_REPLAY} : {})}
        ),
        (commands) => {
          const world = new HostWorld()
          fc.modelRun(() => ({model: {_: true} as const, real: world}), commands)
          // Drain: with no more faults, every run ends and each agent settles (asking a few questions on the way, answered).
          for (let round = 0; round < 400 && !world.finished; round++) {
            world.write()
            world.prepare(0)
            world.submit(0, false, false)
            if (round < 40 && round % 5 === 2) world.ask(round)
            world.finish(0, true)
            world.check(0)
            world.written()
            world.answer()
            world.dispatch({type: 'looked'})
          }
          expect(world.violations).toEqual([])
          expect(world.finished).toBe(true)
        }
      ),
      {seed, numRuns}
    )
  })

  it('an answered agent goes on in the folder of the job that asked, on its host, after a restart too; its later attempts do not', () => {
    const world = new HostWorld()
    world.write()
    while (world.prepares.length > 0) world.prepare(0)
    while (world.submits.length > 0) world.submit(0, false, false)
    const [asker, job] = [...world.engine].find(([, candidate]) => candidate.agent === 'A')!
    world.ask([...world.engine.keys()].filter((key) => !world.engine.get(key)!.done).indexOf(asker))
    while (world.checks.length > 0) world.check(0)
    world.written()
    while (world.writes.length > 0) world.write()
    expect(world.disk.rows.get('A')!.status).toBe('needs_input')
    expect(getNote(world.disk.rows.get('A')!.notes, 'work')).toBe(`${job.host} ${asker}`)
    // A new coordinator reads the answer from the file.
    world.restart()
    world.answer()
    for (let round = 0; round < 20 && !world.submits.some((sent) => sent.agent === 'A'); round++) {
      world.write()
      world.prepare(0)
    }
    const resumed = world.submits.find((sent) => sent.agent === 'A')!
    expect(resumed.job).toMatchObject({host: job.host, work: asker})
    expect(resumed.job.key).not.toBe(asker)
    for (let round = 0; round < 200 && !world.finished; round++) {
      world.write()
      world.prepare(0)
      world.submit(0, false, false)
      world.finish(0, true)
      world.check(0)
      world.dispatch({type: 'looked'})
    }
    expect(world.violations).toEqual([])
    expect(world.finished).toBe(true)
    expect(world.disk.rows.get('A')!.status).toBe('completed')
    expect(getNote(world.disk.rows.get('A')!.notes, 'work')).toBeUndefined()
  })

  it('a rerun after a crash between merging a result and writing the row attaches to the same key (no second job)', () => {
    const world = new HostWorld()
    world.write()
    while (world.prepares.length > 0) world.prepare(0)
    while (world.submits.length > 0) world.submit(0, false, false)
    const first = new Map([...world.engine].map(([key, job]) => [job.agent, key]))
    while ([...world.engine.values()].some((job) => !job.done)) world.finish(0, true)
    while (world.checks.length > 0) world.check(0)
    // Merged, not yet written: the file still names each job in_progress.
    world.restart()
    for (let round = 0; round < 200 && !world.finished; round++) {
      world.write()
      world.prepare(0)
      world.submit(0, false, false)
      world.finish(0, true)
      world.check(0)
      world.dispatch({type: 'looked'})
    }
    expect(world.violations).toEqual([])
    expect(world.finished).toBe(true)
    for (const [agent, key] of first) expect([...world.merged.get(agent)!]).toEqual([key])
    expect([...world.engine.values()].filter((job) => first.has(job.agent))).toHaveLength(first.size)
  })
})
