import {mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {checkInvariants} from '../../src/executor/check-invariants.js'
import {createExecState} from '../../src/executor/create-exec-state.js'
import type {ExecConfig} from '../../src/executor/exec-config.js'
import type {ExecEffect} from '../../src/executor/exec-effect.js'
import type {JobRef} from '../../src/hosts/host.js'
import type {ExecEvent} from '../../src/executor/exec-event.js'
import type {ExecState} from '../../src/executor/exec-state.js'
import {journalKeeper, type JournalKeeper} from '../../src/executor/journal-keeper.js'
import {storeTable} from '../../src/executor/exec-row.js'
import {step} from '../../src/executor/step.js'
import {sameRow, unrecordedRows} from '../../src/executor/unrecorded-rows.js'
import {localHostName} from '../../src/hosts/host-spec.js'
import {jobKey, jobKeyPrefix, parseJobKey, parseJobNote} from '../../src/hosts/job-key.js'
import {keptJobs} from '../../src/hosts/kept-jobs.js'
import {localJobs} from '../../src/hosts/local-jobs.js'
import {jobsFolder} from '../../src/layout/jobs-folder.js'
import type {RunResult} from '../../src/runners/runner.js'
import {appendJournal} from '../../src/store/append-journal.js'
import {applyJournal} from '../../src/store/apply-journal.js'
import {journalFile} from '../../src/store/journal-file.js'
import {readJournal, removeJournal} from '../../src/store/read-journal.js'
import {longestRemainingPath} from '../../src/plan/longest-remaining-path.js'
import {getNote} from '../../src/plan/notes.js'
import {emptyRow, type RowState, type TableState} from '../../src/store/table-state.js'
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
 * (test/unit/hosts/hosts-model.test.ts drives it through random faults). It records what the engine's side sees as
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

/**
 * A local job's folder, as the simulated host keeps it (src/hosts/local/local-job.ts reads the real one):
 * made before its wrapper starts, `run/` its guard (one wrapper per key), `rc` its exit status, `stopped`
 * the mark Ctrl-C leaves. `wrapper`: the wrapper lives; `alive`: a process of its group lives (the agent's
 * helpers may outlive a wrapper killed from outside, and a stop a dead coordinator never finished leaves
 * the whole group running).
 */
interface LocalJob {
  key: string
  agent: string
  attempt: number
  folder: boolean
  run: boolean
  wrapper: boolean
  alive: boolean
  stopped: boolean
  rc?: LocalEnd
  /** Wrappers that won its guard: the times the key started. */
  starts: number
  /** The coordinators (by run) that took its result. */
  collected: Set<number>
  /** Its outcome is in what a later run started from (the file, or the journal applied). */
  recorded: boolean
}

export type LocalEnd = 'ok' | 'fail' | 'question'

/** What a dead coordinator left of a row's job, as the next run found it (counted over the model's cases). */
export type LeftJob = 'running' | 'ended' | 'no folder' | 'no wrapper' | 'stopped' | 'stop unfinished' | 'dead' | 'dead, helpers live' | 'removed'

const localPlanSlug = 'plan'
/** Reruns' looks at the jobs so far (each in a folder of its own). */
let jobLooks = 0
/** A pid no process has (above Linux's largest): a wrapper that wrote it and is gone (`dead`). */
const deadPid = '2147483646'

/**
 * The executor's pure core with this machine's attempts as jobs (src/hosts/local/), against a simulated local
 * host whose jobs outlive the coordinator (test/unit/hosts/hosts-model.test.ts drives it through coordinator deaths). A
 * death loses everything the coordinator held: only the file, the journal and the jobs survive. A rerun
 * computes `localJobs` with src/hosts/local-jobs.ts itself, from the rows' jobs written as folders on disk
 * (so src/hosts/local/local-job.ts reads their state), sweeps, and starts. The host does what
 * src/hosts/local/local-host.ts does with an attempt (`launch`): collects an ended job, follows a running one,
 * reports a stopped or dead one as ended without a result, and starts a missing one: fence (every other job of
 * the agent ended and removed), folder, wrapper (which may start late, after its coordinator died, or never).
 *
 * Counted from the jobs' side (`violations`): an agent's work running twice at once; a key started twice; an
 * agent started (or a job removed) while a job of it ended with a result no run took; a job thrown away (fenced,
 * swept) or stopped by a run that lost its lock; a completed agent started with no person setting it back; a
 * job launched under a key its row does not name on disk, or as an attempt its key does not say, and a stopped
 * or dead orphan resumed as a new attempt; a job followed that can never start or end. The host's fence is the
 * simulation's own (`fence`), mirroring local-host.ts: the model runs no process.
 */
export class LocalWorld {
  readonly file: string
  readonly config: ExecConfig
  state!: ExecState
  keeper!: JournalKeeper
  /** A coordinator runs (it holds the plan's lock). */
  up = false
  /** The coordinator's number: each rerun is a new one. */
  run = 0
  now = 1_000_000
  disk: TableState
  jobs = new Map<string, LocalJob>()
  writes: Array<Extract<ExecEffect, {type: 'write'}>> = []
  prepares: Array<{agent: string; attempt: number}> = []
  /** Spawns the coordinator asked for, not yet taken up by the host (the key is on disk, nothing started). */
  spawns: Array<{agent: string; attempt: number; key: string}> = []
  /** Wrappers spawned, not yet at their guard: one outlives its coordinator (detached), unless it died first. */
  wrappers: Array<{key: string; run: number}> = []
  /** The jobs this coordinator follows: key → its attempt (`stopping`: Ctrl-C under way, its result no longer read). */
  following = new Map<string, {agent: string; attempt: number; stopping?: boolean}>()
  aborts: Array<{agent: string; detach: boolean}> = []
  /** Stops whose mark is written and whose group is not ended yet. */
  stopping: string[] = []
  checks: Array<{agent: string; attempt: number}> = []
  questions: string[] = []
  looks = 0
  /** Agents whose question has its entry on disk. */
  recorded = new Set<string>()
  /** Agents completed in the file (or the journal), and no person set back since. */
  completed = new Set<string>()
  /** The highest attempt each agent has a log of (a launch makes it): a rerun's `attempts`. */
  logged = new Map<string, number>()
  /** Rows a dead run left whose job is not gone back to (stopped, dead): their attempt goes on under a new key. */
  orphans = new Map<string, number>()
  violations: string[] = []
  /** What each rerun found of the rows' jobs. */
  left = new Map<LeftJob, number>()
  /** The host's fence by agent (local-host.ts); off only to show the model finds a host without it. */
  fence = true
  agents = ['A', 'B', 'C', 'D', 'E'].map((id, index) => simAgent(id, index >= 2 ? [['A', 'B', 'A'][index - 2]!] : []))
  private nonce = 0

  constructor(dir: string) {
    this.file = join(dir, 'plan.md')
    rmSync(journalFile(this.file), {force: true})
    this.config = {
      concurrency: 3,
      maxAttempts: 3,
      failFast: false,
      canResume: () => true,
      newAgentId: (agent) => `s-${agent}${++this.nonce}`,
      git: true,
      childPlan: () => false,
      logFile: (agent, attempt) => `/logs/${agent}.${attempt}.log`,
      rateLimitPauseMs: 60_000
    }
    this.disk = {rows: new Map(this.agents.map((agent) => [agent.id, emptyRow()])), meta: {}}
    this.boot()
  }

  /** A run starts from the file (the journal applied) and the jobs it finds: a first run, or a rerun after a death. */
  boot(): void {
    if (this.up) return
    this.run++
    // As src/run/run-plan.ts: what an earlier run knew and could not write comes first.
    const journaled = readJournal(this.file)
    const journal = journaled.filter((entry) => !this.disk.rows.has(entry.agent) || !sameRow(this.disk.rows.get(entry.agent)!, entry.row))
    if (journaled.length > 0 && journal.length === 0) removeJournal(this.file)
    const table = applyJournal(clone(this.disk), journal, (agent) => this.disk.rows.has(agent))
    for (const job of this.jobs.values()) if (job.rc && job.collected.size > 0 && !names(table.rows.get(job.agent), job.key)) job.recorded = true
    for (const [id, row] of table.rows) if (row.status === 'completed') this.completed.add(id)
    // As src/run/local-jobs-of.ts: the jobs the in_progress rows name, looked at once, by src/hosts/local-jobs.ts.
    const named: string[] = []
    for (const row of table.rows.values()) {
      const job = row.status === 'in_progress' ? parseJobNote(getNote(row.notes, 'job')) : undefined
      if (job?.host === localHostName) named.push(job.key)
    }
    const found = localJobs({file: this.materialize(named), root: dirname(this.file), prefix: jobKeyPrefix(localPlanSlug), named})
    this.config.localJobs = {
      newKey: (agent, attempt) => jobKey(localPlanSlug, agent, attempt, (++this.nonce).toString(16).padStart(6, '0')),
      reattach: found.reattach,
      launchedAt: found.launchedAt
    }
    this.orphans.clear()
    for (const key of named) {
      const job = this.jobs.get(key)
      this.left.set(leftOf(job), (this.left.get(leftOf(job)) ?? 0) + 1)
      if (!found.reattach(key) && job) this.orphans.set(job.agent, job.attempt)
    }
    // This plan's jobs no row names: ended and removed (the sweep at a run's start).
    this.sweep(keptJobs([...table.rows.values(), ...this.disk.rows.values()]), 'the sweep at a start')
    this.state = createExecState({agents: this.agents, priority: longestRemainingPath({agents: this.agents} as never), table, onDisk: clone(this.disk), rateLimitPauseMs: 60_000, dirty: journal.length > 0, attempts: this.logged})
    this.keeper = journalKeeper({file: this.file, emit: () => {}, seed: journal, table})
    this.up = true
    this.dispatch({type: 'start'})
  }

  /**
   * The rows' jobs as folders, as local-host.ts leaves them (what src/hosts/local/local-job.ts reads), beside a
   * plan file of this look's own (a fresh folder each time, removed with the scratch folder): that file's path.
   */
  materialize(named: readonly string[]): string {
    const plan = join(dirname(this.file), 'looks', `${++jobLooks}`, 'plan.md')
    for (const key of named) {
      const job = this.jobs.get(key)
      if (!job?.folder) continue
      const folder = join(jobsFolder(plan), key)
      mkdirSync(folder, {recursive: true})
      if (job.run) mkdirSync(join(folder, 'run'))
      // A live wrapper that has not written its pid yet reads as running (its guard is fresh); a gone one's pid names no process.
      if (job.run && !job.wrapper) writeFileSync(join(folder, 'pid'), deadPid)
      if (job.stopped) writeFileSync(join(folder, 'stopped'), '')
      if (job.rc) writeFileSync(join(folder, 'rc'), job.rc === 'fail' ? '1' : '0')
    }
    return plan
  }

  dispatch(event: Input): void {
    if (!this.up) return
    this.now += 10
    const result = step(this.state, {...event, now: this.now} as ExecEvent, this.config)
    this.state = result.state
    checkInvariants(this.state, this.config)
    this.keeper.afterStep(this.state)
    for (const effect of result.effects) this.perform(effect)
  }

  perform(effect: ExecEffect): void {
    if (effect.type === 'write') this.writes.push(effect)
    else if (effect.type === 'prepare') this.prepares.push({agent: effect.agent, attempt: effect.attempt})
    else if (effect.type === 'spawn') {
      if (effect.job?.host !== localHostName) this.violations.push(`${effect.agent} spawned without a local job`)
      else this.spawns.push({agent: effect.agent, attempt: effect.attempt, key: effect.job.key})
    } else if (effect.type === 'kill') {
      // The plan's next owner goes back to the job by the key in its row (maybe already has): this run must leave it.
      if (this.state.lockLost !== undefined && !effect.detach) this.violations.push(`${effect.agent} stopped by a run that lost its lock`)
      this.aborts.push({agent: effect.agent, detach: effect.detach === true})
    } else if (effect.type === 'check') this.checks.push({agent: effect.agent, attempt: effect.attempt})
    else if (effect.type === 'record-question') this.questions.push(effect.agent)
    else if (effect.type === 'look') this.looks++
    else if (effect.type === 'finish') this.exit()
  }

  /** The run ends on its own: its sweep, then what it could not write goes to the journal (src/run/run-plan.ts, finish-run.ts). */
  exit(): void {
    const {state} = this
    if (state.lockLost === undefined) this.sweep(keptJobs([...storeTable(state.table).rows.values(), ...state.write.onDisk.rows.values()]), 'the sweep at an end')
    this.journalAtExit()
    this.down()
  }

  journalAtExit(): void {
    const {state} = this
    if (state.lockLost === undefined && state.write.failed === undefined) return
    appendJournal(this.file, unrecordedRows(state).filter(({agent, row}) => !this.keeper.has(agent, row)))
  }

  /** Everything the coordinator held is gone; `keepWrappers`: the wrappers it had spawned start anyway (detached). */
  down(keepWrappers = true): void {
    this.up = false
    this.writes = []
    this.prepares = []
    this.spawns = []
    this.following.clear()
    this.aborts = []
    this.stopping = []
    this.checks = []
    this.questions = []
    this.looks = 0
    if (!keepWrappers) this.wrappers = this.wrappers.filter((wrapper) => wrapper.run !== this.run)
  }

  /** SIGKILL (or OOM) of the coordinator: jobs run on; a stop it had begun stays half done. */
  crash(keepWrappers: boolean): void {
    if (this.up) this.down(keepWrappers)
  }

  /** The machine restarts: the coordinator and every job die, nothing writes its end. */
  reboot(): void {
    this.down(false)
    this.wrappers = []
    for (const job of this.jobs.values()) {
      job.wrapper = false
      job.alive = false
    }
  }

  /** Ctrl-C; the host takes up `stops` of its kills at once (the rest later). */
  interrupt(stops = 0): void {
    this.dispatch({type: 'abort'})
    for (let stop = 0; stop < stops; stop++) this.abort(0)
  }

  /** Another run on this machine takes the lock over: this one leaves its jobs to it and exits at once; the new owner starts. */
  takeOver(): void {
    if (!this.up) return
    this.dispatch({type: 'lock-lost', reason: 'taken over by another run'})
    while (this.up && this.aborts.length > 0) this.abort(0)
    if (!this.up) return this.boot()
    this.journalAtExit()
    this.down()
    this.boot()
  }

  /** A person sets a completed row back to pending between runs. */
  requeue(at: number): void {
    if (this.up) return
    const done = [...this.disk.rows].filter(([, row]) => row.status === 'completed')
    const picked = done[at % Math.max(1, done.length)]
    if (!picked) return
    this.disk.rows.set(picked[0], {...picked[1], status: 'pending'})
    this.completed.delete(picked[0])
  }

  write(ok: boolean): void {
    const write = this.writes.shift()
    if (!write) return
    if (!ok) return this.dispatch({type: 'write-failed', seq: write.seq, error: 'plan.md: ENOSPC', repairable: false})
    this.disk = clone(write.table)
    for (const [id, row] of this.disk.rows) if (row.status === 'completed') this.completed.add(id)
    this.dispatch({type: 'write-done', seq: write.seq, result: {state: clone(write.table), humanEdits: [], conflicts: [], bytes: 1, ms: 1}})
  }

  prepare(at: number): void {
    const prepared = take(this.prepares, at)
    if (prepared) this.dispatch({type: 'prepared', agent: prepared.agent, attempt: prepared.attempt, cwd: '/work', notes: {base: 'abc123'}, warnings: []})
  }

  /** The host takes up a spawn (local-host.ts `runLocal`): by what the job's folder says now. */
  launch(at: number): void {
    const sent = take(this.spawns, at)
    if (!sent) return
    const {agent, attempt, key} = sent
    const onDisk = getNote(this.disk.rows.get(agent)?.notes ?? '', 'job')
    if (onDisk !== `${localHostName} ${key}`) this.violations.push(`${key} launched while the file says job: ${onDisk ?? 'nothing'}`)
    if (parseJobKey(key)?.attempt !== attempt) this.violations.push(`${key} launched as attempt ${attempt}`)
    const orphan = this.orphans.get(agent)
    this.orphans.delete(agent)
    if (orphan !== undefined && parseJobKey(key)?.attempt !== orphan) this.violations.push(`${agent} goes on from its stopped or dead job of attempt ${orphan} as a new attempt (${key})`)
    // The attempt's log is made before anything else: a later run knows the attempt by it.
    this.logged.set(agent, Math.max(this.logged.get(agent) ?? 0, attempt))
    const job = this.jobs.get(key)
    const state = statusOf(job)
    if (state === 'ended') return this.collect(job!, {agent, attempt})
    if (state === 'running') return void this.following.set(key, {agent, attempt})
    if (state === 'stopped' || state === 'dead') return this.dispatch({type: 'exited', agent, attempt, result: withoutResult(key)})
    if (this.fence) for (const other of this.jobs.values()) if (other.agent === agent && other.key !== key && other.folder) this.remove(other, `the fence of ${key}`)
    if (job) job.folder = true
    else this.jobs.set(key, {key, agent, attempt, folder: true, run: false, wrapper: false, alive: false, stopped: false, starts: 0, collected: new Set(), recorded: false})
    this.wrappers.push({key, run: this.run})
    this.following.set(key, {agent, attempt})
  }

  /** A wrapper reaches its guard (`mkdir run`): it starts the agent, or finds another start of the key got there first. */
  wrap(at: number): void {
    const wrapper = take(this.wrappers, at)
    if (!wrapper) return
    const job = this.jobs.get(wrapper.key)!
    // Its folder was removed meanwhile (the guard's mkdir fails), or the key started already: nothing starts.
    if (!job.folder || job.run) return this.reportEnded(job)
    job.run = job.wrapper = job.alive = true
    job.starts++
    const {agent, key} = job
    if (job.starts > 1) this.violations.push(`${key} started ${job.starts} times`)
    if (this.completed.has(agent)) this.violations.push(`${agent} started again as ${key} after it completed, with no person asking`)
    for (const other of this.jobs.values()) {
      if (other.agent === agent && other !== job && owed(other, wrapper.run)) {
        this.violations.push(`${agent} starts as ${key} while ${other.key} ended (${other.rc}) with a result no run took: its work runs again`)
      }
    }
  }

  /** A job following which already ended: what the follower reads (its result, or its end without one). */
  reportEnded(job: LocalJob): void {
    if (job.rc) return this.collect(job)
    if (job.run && !job.wrapper) this.report(job.key, withoutResult(job.key))
  }

  collect(job: LocalJob, sent?: {agent: string; attempt: number}): void {
    if (sent && !this.following.has(job.key)) this.following.set(job.key, sent)
    const follower = this.following.get(job.key)
    if (!follower || follower.stopping) return
    job.collected.add(this.run)
    this.report(job.key, resultOf(job.rc!), this.now)
  }

  report(key: string, result: RunResult, endedAt?: number): void {
    const follower = this.following.get(key)
    if (!follower || follower.stopping) return
    this.following.delete(key)
    this.dispatch({type: 'exited', agent: follower.agent, attempt: follower.attempt, result, ...(endedAt !== undefined ? {endedAt} : {})})
  }

  running(): LocalJob[] {
    return [...this.jobs.values()].filter((job) => job.wrapper)
  }

  /** A running job ends with its exit status (its follower, if any, collects it). */
  end(at: number, how: LocalEnd): void {
    const running = this.running()
    const job = running[at % Math.max(1, running.length)]
    if (!job) return
    job.rc = how
    job.wrapper = job.alive = false
    this.collect(job)
  }

  /** A running job's wrapper dies without writing an exit status (killed from outside); `helpers`: its agent's helpers live on. */
  die(at: number, helpers: boolean): void {
    const running = this.running()
    const job = running[at % Math.max(1, running.length)]
    if (!job) return
    job.wrapper = false
    job.alive = helpers
    this.report(job.key, withoutResult(job.key))
  }

  /** A followed attempt runs past the agent timeout: its group is ended (no mark), its wrapper never starts if it had not. */
  timeout(at: number): void {
    const followed = [...this.following].filter(([, follower]) => !follower.stopping)
    const picked = followed[at % Math.max(1, followed.length)]
    if (!picked) return
    const job = this.jobs.get(picked[0])
    if (job) {
      job.wrapper = job.alive = false
      this.wrappers = this.wrappers.filter((wrapper) => !(wrapper.key === job.key && wrapper.run === this.run))
    }
    this.report(picked[0], {ok: false, finalText: '', timedOut: true, reason: 'timed out'})
  }

  /** The host takes up a kill: a lost lock's detaches (the job runs on), Ctrl-C's stops (mark, then the group ended). */
  abort(at: number): void {
    const abort = take(this.aborts, at)
    if (!abort) return
    const interrupted: RunResult = {ok: false, finalText: '', interrupted: true, reason: 'interrupted'}
    const spawn = this.spawns.findIndex((sent) => sent.agent === abort.agent)
    if (spawn >= 0) {
      const [sent] = this.spawns.splice(spawn, 1)
      return this.dispatch({type: 'exited', agent: sent!.agent, attempt: sent!.attempt, result: interrupted})
    }
    const key = [...this.following].find(([, follower]) => follower.agent === abort.agent)?.[0]
    if (key === undefined) return
    if (abort.detach) return this.report(key, interrupted)
    const job = this.jobs.get(key)!
    if (job.folder) job.stopped = true
    // Its own wrapper, not yet at its guard, is ended with the group: it never starts.
    this.wrappers = this.wrappers.filter((wrapper) => !(wrapper.key === key && wrapper.run === this.run))
    if (!job.alive) return this.report(key, interrupted)
    this.following.get(key)!.stopping = true
    this.stopping.push(key)
  }

  /** A stop's group is ended, confirmed: the attempt ends interrupted. */
  endStop(at: number): void {
    const key = take(this.stopping, at)
    if (key === undefined) return
    const job = this.jobs.get(key)!
    job.wrapper = job.alive = false
    const follower = this.following.get(key)
    if (!follower) return
    this.following.delete(key)
    this.dispatch({type: 'exited', agent: follower.agent, attempt: follower.attempt, result: {ok: false, finalText: '', interrupted: true, reason: 'interrupted'}})
  }

  check(at: number): void {
    const check = take(this.checks, at)
    if (check) this.dispatch({type: 'checked', agent: check.agent, attempt: check.attempt, notes: {}, warnings: []})
  }

  written(): void {
    const agent = this.questions.shift()
    if (!agent) return
    this.recorded.add(agent)
    this.dispatch({type: 'question-written', agent})
  }

  answer(): void {
    const waiting = [...this.recorded].filter((id) => this.disk.rows.get(id)?.status === 'needs_input')
    if (waiting.length === 0) return
    this.dispatch({type: 'answers', answered: new Map(waiting.map((id) => [id, {agent: id, question: 'which store?', context: '', options: [], resumeState: '', answer: '2', position: span}]))})
  }

  look(): void {
    if (this.looks === 0) return
    this.looks--
    this.dispatch({type: 'looked'})
  }

  tick(): void {
    this.now += 61_000
    this.dispatch({type: 'tick'})
  }

  /**
   * The coordinator and the host go on for a while, every job running on (the faults fall between); the last
   * round's launches have their folders made and their wrappers on the way.
   */
  progress(rounds: number): void {
    for (let round = 0; round < rounds && this.up; round++) {
      this.write(true)
      this.prepare(0)
      if (round > 0) this.wrap(0)
      this.launch(0)
      this.check(0)
      this.written()
      this.answer()
      this.look()
    }
  }

  /** End and remove jobs (src/hosts/local/local-host.ts `removeJob`): the fence of a new key, or a sweep. */
  remove(job: LocalJob, by: string): void {
    if (job.wrapper && !job.stopped) this.violations.push(`${by} ended ${job.key} of ${job.agent} while it ran`)
    if (owed(job, this.run)) this.violations.push(`${by} removed ${job.key} of ${job.agent}, ended (${job.rc}) with a result no run took`)
    job.folder = job.run = job.wrapper = job.alive = false
  }

  sweep(keep: ReadonlySet<string>, by: string): void {
    for (const job of this.jobs.values()) if (job.folder && !keep.has(job.key)) this.remove(job, by)
  }

  /** After every command: no agent's work runs twice at once. */
  audit(): void {
    const live = new Map<string, string[]>()
    for (const job of this.jobs.values()) if (job.alive) live.set(job.agent, [...(live.get(job.agent) ?? []), job.key])
    for (const [agent, keys] of live) if (keys.length > 1) this.violations.push(`${agent} runs as ${keys.join(' and ')} at once`)
  }

  /**
   * No more faults: let everything under way go well, rerunning after each run that ends with work left. False
   * when a run never ends.
   */
  drain(): boolean {
    for (let runs = 0; runs < 6; runs++) {
      if (!this.up) {
        if (runs > 0 && this.settled()) return true
        this.boot()
      }
      for (let round = 0; round < 400 && this.up; round++) {
        this.write(true)
        this.prepare(0)
        this.launch(0)
        this.wrap(0)
        this.abort(0)
        this.endStop(0)
        this.end(0, 'ok')
        this.check(0)
        this.written()
        this.answer()
        this.look()
        // A followed job that can neither start nor end (its folder gone): only the agent timeout would end the wait.
        const stuck = [...this.following].findIndex(([key, follower]) => !follower.stopping && !this.jobs.get(key)?.wrapper && !this.wrappers.some((wrapper) => wrapper.key === key))
        if (stuck >= 0) {
          this.violations.push(`${[...this.following.keys()][stuck]} is followed, but it can never start or end`)
          this.timeout(stuck)
        }
        if (round % 10 === 9) this.tick()
        this.audit()
      }
      if (this.up) return false
    }
    return this.settled()
  }

  /** Nothing is left to run: no row in progress or waiting for an answer, no job of the plan alive. */
  settled(): boolean {
    return [...this.disk.rows.values()].every((row) => row.status !== 'in_progress' && row.status !== 'needs_input') && [...this.jobs.values()].every((job) => !job.alive)
  }
}

/** What local-job.ts says of a job's folder. */
function statusOf(job: LocalJob | undefined): 'missing' | 'running' | 'ended' | 'stopped' | 'dead' {
  if (!job?.folder) return 'missing'
  if (job.rc) return 'ended'
  if (job.stopped) return 'stopped'
  if (!job.run) return 'missing'
  return job.wrapper ? 'running' : 'dead'
}

function leftOf(job: LocalJob | undefined): LeftJob {
  const state = statusOf(job)
  if (state === 'missing') return job?.folder ? 'no wrapper' : job && job.starts > 0 ? 'removed' : 'no folder'
  if (state === 'stopped') return job!.alive ? 'stop unfinished' : 'stopped'
  if (state === 'dead') return job!.alive ? 'dead, helpers live' : 'dead'
  return state
}

/**
 * The job ended with a result no run has taken (as `run` knows, or in the file): its work is owed to the plan. Not
 * one Ctrl-C stopped: it may still have written its end before its group was ended (a coordinator that died
 * mid-stop), but what a stopped job ends with is not waited for; its agent goes on from its session.
 */
function owed(job: LocalJob, run: number): boolean {
  return job.rc !== undefined && !job.stopped && !job.recorded && !job.collected.has(run)
}

function names(row: RowState | undefined, key: string): boolean {
  return row?.status === 'in_progress' && getNote(row.notes, 'job') === `${localHostName} ${key}`
}

function resultOf(rc: LocalEnd): RunResult {
  if (rc === 'question') return {ok: true, finalText: 'RESULT: QUESTION\nQuestion: which store?\n', exitCode: 0}
  return rc === 'ok' ? {ok: true, finalText: 'done', exitCode: 0} : {ok: false, finalText: '', exitCode: 1, reason: 'exit 1'}
}

function withoutResult(key: string): RunResult {
  return {ok: false, finalText: '', signal: 'SIGKILL', reason: `the job ${key} ended without a result`}
}
