import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import {getNote} from '../../../src/plan/notes.js'
import {HostWorld, LocalWorld, type LeftJob, type LocalEnd} from '../../helpers/host-world.js'

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
/** `npm test` draws 500 worlds; `npm run test:unit` (MDPLAN_QUICK=1), the inner loop, 100. */
const numRuns = Number(process.env.MDPLAN_MODEL_RUNS ?? (process.env.MDPLAN_QUICK ? 100 : 500))

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

/**
 * The same for this machine's attempts as jobs (src/hosts/local/): the coordinator dies (SIGKILL: its state
 * is lost, the file, the journal and the jobs survive) at any point, so a rerun finds the jobs its rows name
 * running, ended (exit status written, result not recorded), never started (the key on disk, no folder; or the
 * folder made and the wrapper never started, or starting late, racing the rerun's own start), Ctrl-C stopped
 * (and a stop the dead coordinator never finished, its group still alive), dead without an exit status (and
 * dead with the agent's helpers alive). Also drawn: writes that fail (ENOSPC: the journal keeps what the table
 * cannot take), timeouts, Ctrl-C, a lock taken over by another run here, the machine restarting, questions
 * answered, a person setting a completed row back between runs. The rerun decides with
 * src/hosts/local-jobs.ts itself, from the jobs written as folders (helpers/host-world.ts `LocalWorld`).
 * Checked from the jobs' side after every command: no agent's work runs twice at once (the host's fence
 * ends every other job of the agent before a new key starts); a key starts at most once, and no job that ended
 * starts again; no agent starts anew (and no job is removed) while a job of it ended with a result no run took;
 * no job is thrown away (fenced, swept) while it runs, or stopped by a run that lost its lock; a completed agent
 * never starts again unless a person set it back; each launch is under the key its row names on disk, as the
 * attempt its key says, and a stopped or dead orphan goes on as the same attempt. Then, with no more faults,
 * every run ends (no followed job is left that can never start or end) and nothing is left running.
 *
 * `MDPLAN_MODEL_SEED`, `MDPLAN_MODEL_RUNS` (200 by default); a failure prints its seed, `path` and `replayPath`:
 * `MDPLAN_MODEL_SEED=<seed> MDPLAN_MODEL_PATH=<path> MDPLAN_MODEL_REPLAY=<replayPath>` replays it at once.
 * `MDPLAN_MODEL_STATS=1` prints what the reruns found.
 */
const localRuns = Number(process.env.MDPLAN_MODEL_RUNS ?? (process.env.MDPLAN_QUICK ? 50 : 200))
const path = process.env.MDPLAN_MODEL_PATH
const scratch = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'mdplan-model-'))
afterAll(() => rmSync(scratch, {recursive: true, force: true}))

const local = (name: string, act: (world: LocalWorld) => void): fc.Command<Model, LocalWorld> => ({
  check: () => true,
  run: (_model, world) => {
    act(world)
    world.audit()
    expect(world.violations).toEqual([])
  },
  toString: () => name
})

const localCommands = fc.commands(
  [
    fc.boolean().map((ok) => local(`write(${ok})`, (w) => w.write(ok))),
    fc.nat(3).map((rounds) => local(`progress(${rounds + 1})`, (w) => w.progress(rounds + 1))),
    fc.nat(3).map((rounds) => local(`progress(${rounds + 1})`, (w) => w.progress(rounds + 1))),
    pick.map((at) => local(`prepare(${at})`, (w) => w.prepare(at))),
    pick.map((at) => local(`launch(${at})`, (w) => w.launch(at))),
    pick.map((at) => local(`wrap(${at})`, (w) => w.wrap(at))),
    fc.tuple(pick, fc.constantFrom<LocalEnd>('ok', 'ok', 'fail', 'question')).map(([at, how]) => local(`end(${at},${how})`, (w) => w.end(at, how))),
    fc.tuple(pick, fc.boolean()).map(([at, helpers]) => local(`die(${at},${helpers})`, (w) => w.die(at, helpers))),
    pick.map((at) => local(`timeout(${at})`, (w) => w.timeout(at))),
    pick.map((at) => local(`abort(${at})`, (w) => w.abort(at))),
    pick.map((at) => local(`end-stop(${at})`, (w) => w.endStop(at))),
    pick.map((at) => local(`check(${at})`, (w) => w.check(at))),
    fc.constant(local('written', (w) => w.written())),
    fc.constant(local('answer', (w) => w.answer())),
    fc.constant(local('look', (w) => w.look())),
    fc.constant(local('tick', (w) => w.tick())),
    fc.boolean().map((keep) => local(`crash(${keep})`, (w) => w.crash(keep))),
    fc.boolean().map((keep) => local(`crash(${keep})`, (w) => w.crash(keep))),
    fc.constant(local('rerun', (w) => w.boot())),
    fc.constant(local('rerun', (w) => w.boot())),
    fc.nat(2).map((stops) => local(`interrupt(${stops})`, (w) => w.interrupt(stops))),
    fc.constant(local('take-over', (w) => w.takeOver())),
    fc.constant(local('reboot', (w) => w.reboot())),
    pick.map((at) => local(`requeue(${at})`, (w) => w.requeue(at)))
  ],
  {maxCommands: 150, size: 'medium', ...(process.env.MDPLAN_MODEL_REPLAY ? {replayPath: process.env.MDPLAN_MODEL_REPLAY} : {})}
)

describe('local jobs, driven through coordinator deaths', () => {
  it('never runs an agent twice at once, never starts a key twice or a job that ended, never redoes work whose result ended uncollected, never reruns a completed agent; every run ends', () => {
    const left = new Map<LeftJob, number>()
    fc.assert(
      fc.property(localCommands, (commands) => {
        const world = new LocalWorld(scratch)
        fc.modelRun(() => ({model: {_: true} as const, real: world}), commands)
        expect(world.drain(), 'a run never ended').toBe(true)
        expect(world.violations).toEqual([])
        for (const [kind, count] of world.left) left.set(kind, (left.get(kind) ?? 0) + count)
      }),
      {seed, numRuns: localRuns, ...(path ? {path, endOnFailure: true} : {})}
    )
    if (process.env.MDPLAN_MODEL_STATS) console.log(Object.fromEntries(left))
    // The deaths drawn left every kind of job behind (a named job's folder is never removed under its row).
    if (path === undefined && localRuns >= 200) {
      for (const kind of ['running', 'ended', 'no folder', 'no wrapper', 'stopped', 'stop unfinished', 'dead', 'dead, helpers live'] as const) expect(left.get(kind) ?? 0, kind).toBeGreaterThan(0)
    }
    expect(left.get('removed') ?? 0).toBe(0)
  }, 120_000)

  it('finds an agent running twice on a host without the fence by agent (the checks are live)', () => {
    let found: string[] = []
    const details = fc.check(
      fc.property(localCommands, (commands) => {
        const world = new LocalWorld(scratch)
        world.fence = false
        try {
          fc.modelRun(() => ({model: {_: true} as const, real: world}), commands)
          expect(world.drain()).toBe(true)
          expect(world.violations).toEqual([])
        } finally {
          found = world.violations
        }
      }),
      {seed, numRuns: localRuns, endOnFailure: true}
    )
    expect(details.failed).toBe(true)
    expect(found.join('\n')).toMatch(/runs as \S+ and \S+ at once/)
  })

  it('a rerun follows a job a dead run left running and starts one it left half-launched under its key, once, though the dead run\'s wrapper starts late', () => {
    const world = new LocalWorld(scratch)
    world.write(true)
    while (world.prepares.length > 0) world.prepare(0)
    while (world.spawns.length > 0) world.launch(0)
    const keys = [...world.jobs.keys()]
    expect(keys).toHaveLength(2)
    // The first wrapper starts; the coordinator dies with the second on its way (it starts later, on its own).
    world.wrap(0)
    world.crash(true)
    world.boot()
    expect(Object.fromEntries(world.left)).toEqual({running: 1, 'no wrapper': 1})
    world.progress(3)
    while (world.wrappers.length > 0) world.wrap(0)
    world.audit()
    expect(world.violations).toEqual([])
    expect(keys.map((key) => world.jobs.get(key)!.starts)).toEqual([1, 1])
    expect(world.drain()).toBe(true)
    expect(world.violations).toEqual([])
    // No other key for either agent: each went on with its own job.
    for (const key of keys) expect([...world.jobs.values()].filter((job) => job.agent === world.jobs.get(key)!.agent)).toHaveLength(1)
  })

  it('a stop a dead run left half done is ended (the fence) before its agent goes on from its session under a new key, as the same attempt', () => {
    const world = new LocalWorld(scratch)
    world.write(true)
    while (world.prepares.length > 0) world.prepare(0)
    while (world.spawns.length > 0) world.launch(0)
    while (world.wrappers.length > 0) world.wrap(0)
    world.interrupt()
    world.abort(0)
    const [stopped] = world.stopping
    world.crash(false)
    expect(world.jobs.get(stopped!)).toMatchObject({stopped: true, alive: true})
    world.boot()
    expect(world.left.get('stop unfinished')).toBe(1)
    world.progress(4)
    world.audit()
    expect(world.violations).toEqual([])
    const agent = world.jobs.get(stopped!)!.agent
    const next = [...world.jobs.values()].find((job) => job.agent === agent && job.key !== stopped)!
    expect(next.starts).toBe(1)
    expect(world.jobs.get(stopped!)).toMatchObject({alive: false, folder: false})
    expect(next.attempt).toBe(1)
    expect(world.drain()).toBe(true)
    expect(world.violations).toEqual([])
  })
})
