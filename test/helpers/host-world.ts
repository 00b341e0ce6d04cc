import {checkInvariants} from '../../src/executor/check-invariants.js'
import {createExecState} from '../../src/executor/create-exec-state.js'
import type {ExecConfig} from '../../src/executor/exec-config.js'
import type {ExecEffect} from '../../src/executor/exec-effect.js'
import type {JobRef} from '../../src/hosts/host.js'
import type {ExecEvent} from '../../src/executor/exec-event.js'
import type {ExecState} from '../../src/executor/exec-state.js'
import {step} from '../../src/executor/step.js'
import {longestRemainingPath} from '../../src/plan/longest-remaining-path.js'
import {getNote} from '../../src/plan/notes.js'
import {emptyRow, type TableState} from '../../src/store/table-state.js'
import {simAgent} from './exec-sim.js'

type Input = ExecEvent extends infer E ? (E extends unknown ? Omit<E, 'now'> : never) : never

interface Job {
  agent: string
  attempt: number
  processes: number
  done: boolean
  ok: boolean
  host: string
  /** The folder it runs in: its own (its key), or an earlier job's whose session it goes on with. */
  folder: string
  asked?: boolean
}

const span = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

/**
 * The executor's pure core against a simulated engine that keeps jobs by key across coordinator restarts
 * (test/hosts-model.test.ts drives it through random faults). It records what the engine's side sees as
 * violations: a key submitted before a write carries it, a key started twice, two keys' results merged for
 * one agent, an answered agent going on anywhere but in its session's folder on its session's host.
 */
export class HostWorld {
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
  /** Questions whose entry is being written under ## Open Questions. */
  questions: string[] = []
  /** Agents whose question has its entry on disk (a person may answer it). */
  recorded = new Set<string>()
  /** Where each agent's session is: the host and folder of its job that asked (its next attempt must go on there). */
  sessions = new Map<string, {host: string; folder: string}>()
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
    this.questions = []
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
    } else if (effect.type === 'record-question') this.questions.push(effect.agent)
    else if (effect.type === 'finish') this.finished = true
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
    const session = this.sessions.get(sent.agent)
    if (!this.engine.has(key) && session && !this.state.hostsLost.has(session.host) && (sent.job.host !== session.host || (sent.job.work ?? key) !== session.folder)) {
      this.violations.push(`${key} of ${sent.agent} runs in ${sent.job.host}:${sent.job.work ?? key}, not in ${session.host}:${session.folder} where its session is`)
    }
    for (let times = duplicate ? 2 : 1; times > 0; times--) {
      const job = this.engine.get(key)
      // The job's unique name: a second submit of a key attaches to the job it names.
      if (!job) this.engine.set(key, {agent: sent.agent, attempt: sent.attempt, processes: 1, done: false, ok: false, host: sent.job.host, folder: this.folderOf(sent)})
    }
    if (answerLost) return void this.submits.push(sent)
    this.following.set(key, {agent: sent.agent, attempt: sent.attempt})
    // Attached to a job that already ended (it ran on while no coordinator watched): its result at once.
    const job = this.engine.get(key)!
    if (job.done) this.report(key, job.ok)
  }

  /**
   * The folder a new job runs in. One that goes on with an earlier job's session (an answered question) must
   * go where that job ran, to the folder it ran in, and no other live job may be running there.
   */
  folderOf(sent: {agent: string; job: JobRef}): string {
    const {key, host, work} = sent.job
    if (work !== undefined) {
      const earlier = this.engine.get(work)
      if (!earlier || earlier.agent !== sent.agent) this.violations.push(`${key} goes on in ${work}, which is no earlier job of ${sent.agent}`)
      else if (earlier.host !== host) this.violations.push(`${key} goes on with the session of ${work} on ${host}, but that session is on ${earlier.host}`)
    }
    const folder = work ?? key
    for (const [other, job] of this.engine) if (!job.done && job.host === host && job.folder === folder) this.violations.push(`${key} runs in ${folder} while ${other} still runs there`)
    return folder
  }

  report(key: string, ok: boolean): void {
    const follower = this.following.get(key)
    if (!follower) return
    this.following.delete(key)
    const question = this.engine.get(key)?.asked === true
    const result = question ? {ok: true, finalText: 'RESULT: QUESTION\nQuestion: which store?\n', exitCode: 0} : ok ? {ok: true, finalText: 'done', exitCode: 0} : {ok: false, finalText: '', exitCode: 1, reason: 'exit 1'}
    this.dispatch({type: 'exited', agent: follower.agent, attempt: follower.attempt, result})
  }

  /** A job ends asking a question (its folder, with its session and work, stays on its host). */
  ask(at: number): void {
    const running = [...this.engine].filter(([, job]) => !job.done)
    const picked = running[at % Math.max(1, running.length)]
    if (!picked) return
    const [key, job] = picked
    job.done = true
    job.asked = true
    this.sessions.set(job.agent, {host: job.host, folder: job.folder})
    this.report(key, true)
  }

  /** A question's entry reaches ## Open Questions. */
  written(): void {
    const agent = this.questions.shift()
    if (!agent) return
    this.recorded.add(agent)
    this.dispatch({type: 'question-written', agent})
  }

  /** A person answers the questions the file shows. */
  answer(): void {
    const waiting = [...this.recorded].filter((id) => this.disk.rows.get(id)?.status === 'needs_input')
    if (waiting.length === 0) return
    this.dispatch({type: 'answers', answered: new Map(waiting.map((id) => [id, {agent: id, question: 'which store?', context: '', options: [], resumeState: '', answer: '2', position: span}]))})
  }

  /** A job ends on its host; the coordinator hears it if it follows the job in this incarnation. */
  finish(at: number, ok: boolean): void {
    const running = [...this.engine].filter(([, job]) => !job.done)
    const picked = running[at % Math.max(1, running.length)]
    if (!picked) return
    const [key, job] = picked
    job.done = true
    job.ok = ok
    this.sessions.delete(job.agent)
    this.report(key, ok)
  }

  /** The host goes silent past its lease while its job runs on (and may publish later). */
  lose(at: number): void {
    const followed = [...this.following]
    const picked = followed[at % Math.max(1, followed.length)]
    if (!picked) return
    const [key, follower] = picked
    this.following.delete(key)
    this.sessions.delete(follower.agent)
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

export function take<T>(list: T[], at: number): T | undefined {
  return list.length === 0 ? undefined : list.splice(at % list.length, 1)[0]
}

function clone(table: TableState): TableState {
  return {rows: new Map([...table.rows].map(([id, row]) => [id, {...row}])), meta: {...table.meta}}
}

