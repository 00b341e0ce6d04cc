import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {checkInvariants} from '../src/executor/check-invariants.js'
import {createExecState} from '../src/executor/create-exec-state.js'
import type {ExecConfig} from '../src/executor/exec-config.js'
import type {ExecEffect, JobRef} from '../src/executor/exec-effect.js'
import type {ExecEvent} from '../src/executor/exec-event.js'
import type {ExecState} from '../src/executor/exec-state.js'
import {step} from '../src/executor/step.js'
import {longestRemainingPath} from '../src/plan/longest-remaining-path.js'
import {getNote} from '../src/plan/notes.js'
import {emptyRow, type TableState} from '../src/store/table-state.js'
import {simAgent} from './helpers/exec-sim.js'

/**
 * Model-based test of remote hosts (fast-check commands, seeded): the
 * executor's pure core against a simulated engine that keeps jobs by key
 * across coordinator restarts. Faults drawn: a submit whose answer is lost
 * (the engine started the job, the coordinator submits again), a duplicate
 * submit, a coordinator restart from the file alone, a host lost while its
 * job runs on and publishes late, a lock taken over by another run (which
 * starts from the file and re-attaches: the old run must not cancel). Checked from the engine's side:
 * nothing is submitted without a write on disk carrying its key; a key
 * never starts two processes; no agent has results of two keys merged.
 *
 * `MDPLAN_MODEL_SEED`, `MDPLAN_MODEL_RUNS`, `MDPLAN_MODEL_REPLAY` as in executor-model.test.ts.
 */
const seed = Number(process.env.MDPLAN_MODEL_SEED ?? 20261123)
const numRuns = Number(process.env.MDPLAN_MODEL_RUNS ?? 500)

type Input = ExecEvent extends infer E ? (E extends unknown ? Omit<E, 'now'> : never) : never

interface Job {
  agent: string
  attempt: number
  processes: number
  done: boolean
  ok: boolean
}

class HostWorld {
  config: ExecConfig
  state!: ExecState
  now = 1_000_000
  disk: TableState
  writes: Array<Extract<ExecEffect, {type: 'write'}>> = []
  prepares: Array<{agent: string; attempt: number; job?: JobRef}> = []
  /** Spawns the coordinator asked for, not yet delivered to the engine. */
  submits: Array<{agent: string; attempt: number; job: JobRef}> = []
  /** Jobs the coordinator follows in this incarnation: key → its attempt. */
  following = new Map<string, {agent: string; attempt: number}>()
  checks: Array<{agent: string; attempt: number; job?: JobRef; succeeded: boolean}> = []
  engine = new Map<string, Job>()
  merged = new Map<string, Set<string>>()
  violations: string[] = []
  finished = false
  /** The coordinator is losing its lock (its kills must leave remote jobs running). */
  losing = false
  agents = ['A', 'B', 'C', 'D', 'E'].map((id, index) => simAgent(id, index >= 2 ? [['A', 'B', 'A'][index - 2]!] : []))

  constructor() {
    let keys = 0
    this.config = {
      concurrency: 3,
      maxAttempts: 3,
      failFast: false,
      canResume: () => false,
      newAgentId: (agent) => `sh-${agent}${++keys}`,
      git: true,
      childPlan: () => false,
      logFile: (agent, attempt) => `/logs/${agent}.${attempt}.log`,
      rateLimitPauseMs: 60_000,
      hosts: {pool: () => ['h1', 'h2'], slots: () => 2, remote: () => true, newKey: (agent, attempt) => `mdplan-p-${agent}-a${attempt}-${(++keys).toString(16).padStart(6, '0')}`}
    }
    this.disk = {rows: new Map(this.agents.map((agent) => [agent.id, emptyRow()])), meta: {}}
    this.boot()
  }

  /** A coordinator starts from the file alone (a first run, or a rerun after SIGKILL). */
  boot(): void {
    this.state = createExecState({agents: this.agents, priority: longestRemainingPath({agents: this.agents} as never), table: clone(this.disk), rateLimitPauseMs: 60_000})
    this.writes = []
    this.prepares = []
    this.submits = []
    this.following.clear()
    this.checks = []
    this.finished = false
    this.dispatch({type: 'start'})
  }

  dispatch(event: Input): void {
    if (this.finished) return
    this.now += 10
    const result = step(this.state, {...event, now: this.now} as ExecEvent, this.config)
    this.state = result.state
    checkInvariants(this.state, this.config)
    for (const effect of result.effects) this.perform(effect)
  }

  perform(effect: ExecEffect): void {
    if (effect.type === 'write') this.writes.push(effect)
    else if (effect.type === 'prepare') this.prepares.push(effect)
    else if (effect.type === 'spawn') {
      if (!effect.job) this.violations.push(`${effect.agent} spawned without a job on a remote pool`)
      else this.submits.push({agent: effect.agent, attempt: effect.attempt, job: effect.job})
    } else if (effect.type === 'check') this.checks.push(effect)
    else if (effect.type === 'kill') {
      const key = this.state.attempts.get(effect.agent)?.key
      // The run that took the lock over re-attaches to this job by the key in its row (maybe already has).
      if (this.losing && key !== undefined && !effect.detach) this.violations.push(`${key} cancelled by a run that lost its lock: its new owner may follow it`)
    } else if (effect.type === 'finish') this.finished = true
  }

  /** Another run takes the lock over: this one stops (leaving its jobs running), and the new owner starts from the file. */
  takeOver(): void {
    this.losing = true
    this.dispatch({type: 'lock-lost', reason: 'taken over by a run on another host'})
    this.losing = false
    this.boot()
  }

  write(): void {
    const write = this.writes.shift()
    if (!write) return
    this.disk = clone(write.table)
    this.dispatch({type: 'write-done', seq: write.seq, result: {state: clone(write.table), humanEdits: [], conflicts: [], bytes: 1, ms: 1}})
  }

  prepare(at: number): void {
    const prepared = take(this.prepares, at)
    if (prepared) this.dispatch({type: 'prepared', agent: prepared.agent, attempt: prepared.attempt, cwd: '/remote', notes: {base: 'abc123'}, warnings: []})
  }

  /** The engine receives a submit; `answerLost`: it starts the job, but the coordinator never hears and submits again. */
  submit(at: number, answerLost: boolean, duplicate: boolean): void {
    const sent = take(this.submits, at)
    if (!sent) return
    const {key} = sent.job
    const onDisk = getNote(this.disk.rows.get(sent.agent)?.notes ?? '', 'job')
    if (onDisk !== `${sent.job.host} ${key}`) this.violations.push(`${key} submitted while the file says job: ${onDisk ?? 'nothing'}`)
    for (let times = duplicate ? 2 : 1; times > 0; times--) {
      const job = this.engine.get(key)
      // The job's unique name: a second submit of a key attaches to the job it names.
      if (!job) this.engine.set(key, {agent: sent.agent, attempt: sent.attempt, processes: 1, done: false, ok: false})
    }
    if (answerLost) return void this.submits.push(sent)
    this.following.set(key, {agent: sent.agent, attempt: sent.attempt})
    // Attached to a job that already ended (it ran on while no coordinator watched): its result at once.
    const job = this.engine.get(key)!
    if (job.done) this.report(key, job.ok)
  }

  report(key: string, ok: boolean): void {
    const follower = this.following.get(key)
    if (!follower) return
    this.following.delete(key)
    this.dispatch({type: 'exited', agent: follower.agent, attempt: follower.attempt, result: ok ? {ok: true, finalText: 'done', exitCode: 0} : {ok: false, finalText: '', exitCode: 1, reason: 'exit 1'}})
  }

  /** A job ends on its host; the coordinator hears it if it follows the job in this incarnation. */
  finish(at: number, ok: boolean): void {
    const running = [...this.engine].filter(([, job]) => !job.done)
    const picked = running[at % Math.max(1, running.length)]
    if (!picked) return
    const [key, job] = picked
    job.done = true
    job.ok = ok
    this.report(key, ok)
  }

  /** The host goes silent past its lease while its job runs on (and may publish later). */
  lose(at: number): void {
    const followed = [...this.following]
    const picked = followed[at % Math.max(1, followed.length)]
    if (!picked) return
    const [key, follower] = picked
    this.following.delete(key)
    const host = [...this.state.attempts.values()].find((attempt) => attempt.key === key)?.host ?? 'h1'
    this.dispatch({type: 'exited', agent: follower.agent, attempt: follower.attempt, result: {ok: false, finalText: '', reason: `host lost: ${host}`, hostLost: host}})
  }

  /** Collect and merge: the host runtime merges only the result its check names (fencing by key). */
  check(at: number): void {
    const check = take(this.checks, at)
    if (!check) return
    const job = check.job ? this.engine.get(check.job.key) : undefined
    if (check.succeeded && check.job && job?.done && job.ok) {
      const keys = this.merged.get(check.agent) ?? new Set()
      keys.add(check.job.key)
      this.merged.set(check.agent, keys)
      if (keys.size > 1) this.violations.push(`${check.agent} has the results of ${[...keys].join(' and ')} merged`)
    }
    this.dispatch({type: 'checked', agent: check.agent, attempt: check.attempt, notes: {}, warnings: []})
  }

  /** A rerun after SIGKILL: each in_progress row's job is found by its key and followed again (attach). */
  restart(): void {
    this.boot()
  }

  reattach(): void {
    // Submits of a new incarnation whose job already exists attach; the engine's process count must not grow.
    for (const [key, job] of this.engine) if (job.processes > 1) this.violations.push(`${key} runs ${job.processes} processes`)
  }
}

function take<T>(list: T[], at: number): T | undefined {
  return list.length === 0 ? undefined : list.splice(at % list.length, 1)[0]
}

function clone(table: TableState): TableState {
  return {rows: new Map([...table.rows].map(([id, row]) => [id, {...row}])), meta: {...table.meta}}
}

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
  it('never submits a key before it is on disk, never starts a key twice, never merges two keys of one agent', () => {
    fc.assert(
      fc.property(
        fc.commands(
          [
            fc.constant(cmd('write', (w) => w.write())),
            pick.map((at) => cmd(`prepare(${at})`, (w) => w.prepare(at))),
            fc.tuple(pick, fc.boolean(), fc.boolean()).map(([at, lost, dup]) => cmd(`submit(${at},${lost},${dup})`, (w) => w.submit(at, lost && at % 3 === 0, dup))),
            fc.tuple(pick, fc.boolean()).map(([at, ok]) => cmd(`finish(${at},${ok})`, (w) => w.finish(at, ok || at % 4 !== 0))),
            pick.map((at) => cmd(`lose(${at})`, (w) => w.lose(at))),
            pick.map((at) => cmd(`check(${at})`, (w) => w.check(at))),
            fc.constant(cmd('restart', (w) => w.restart())),
            fc.constant(cmd('take-over', (w) => w.takeOver()))
          ],
          {maxCommands: 150, ...(process.env.MDPLAN_MODEL_REPLAY ? {replayPath: process.env.MDPLAN_MODEL_REPLAY} : {})}
        ),
        (commands) => {
          const world = new HostWorld()
          fc.modelRun(() => ({model: {_: true} as const, real: world}), commands)
          // Drain: with no more faults, every run ends and each agent settles.
          for (let round = 0; round < 400 && !world.finished; round++) {
            world.write()
            world.prepare(0)
            world.submit(0, false, false)
            world.finish(0, true)
            world.check(0)
            world.dispatch({type: 'looked'})
          }
          expect(world.violations).toEqual([])
          expect(world.finished).toBe(true)
        }
      ),
      {seed, numRuns}
    )
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
