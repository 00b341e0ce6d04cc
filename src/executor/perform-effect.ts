import {upsertOpenQuestion} from '../protocol/upsert-open-question.js'
import {forgetAnswers} from '../protocol/answer-log.js'
import {DetachRequest} from '../hosts/detach-request.js'
import type {ExecEffect} from './exec-effect.js'
import type {Input} from './exec-event.js'
import {messageOf, remote, type Driver} from './driver.js'
import {armTimer} from './arm-timer.js'
import {checkWork} from './check-work.js'
import {approveWork} from './approve-work.js'
import {startAgent} from './start-agent.js'

type Effect<T extends ExecEffect['type']> = Extract<ExecEffect, {type: T}>
type Performer<T extends ExecEffect['type']> = (driver: Driver, effect: Effect<T>) => void

/** Each effect `step` asks for, performed; what comes of it goes back to `step` as events. */
const performers: {[T in ExecEffect['type']]: Performer<T>} = {
  emit: (driver, effect) => driver.input.emit(effect.event.type === 'state-written' ? {...effect.event, file: driver.input.file} : effect.event),
  write: (driver, effect) => driver.later(() => write(driver, effect)),
  prepare,
  spawn,
  kill: (driver, effect) => driver.controllers.get(effect.agent)?.abort(effect.detach ? new DetachRequest('the run lock was lost') : undefined),
  check: (driver, effect) => {
    const {input} = driver
    const agent = driver.state().byId.get(effect.agent)!
    driver.later(() => checkWork({effect: effect.job && !remote(effect.job) ? {...effect, job: undefined} : effect, agent, git: input.git, hosts: input.hosts, endedAt: driver.endedAt.get(effect.agent), lock: input.lock}))
  },
  approve: (driver, effect) => {
    const {input} = driver
    const agent = driver.state().byId.get(effect.agent)!
    driver.later(() => approveWork({agent, git: input.git, lock: input.lock}))
  },
  abandon: (driver, effect) => {
    const agent = driver.state().byId.get(effect.agent)
    if (agent) driver.input.git?.abandon(agent)
  },
  'record-question': (driver, effect) => driver.later(() => recordQuestion(driver, effect)),
  // Referenced: a pause with nothing running must keep the process alive until it ends;
  // cleared at `finish`, so Ctrl-C or SIGTERM during a 15-minute pause exits at once.
  timer: (driver, effect) => armTimer(effect.at, driver.now, () => driver.dispatch({type: 'tick'}), driver.timers),
  look: (driver) => driver.later(async () => driver.watch.look()),
  finish: (driver) => driver.finish()
}

export function performEffect(driver: Driver, effect: ExecEffect): void {
  ;(performers[effect.type] as Performer<ExecEffect['type']>)(driver, effect)
}

async function write(driver: Driver, effect: Effect<'write'>): Promise<Input[]> {
  const {input, watch} = driver
  // A run stopped (Ctrl-Z, a closed laptop) while another took the plan over writes nothing when it
  // wakes: its lock is looked at before the write, not only on its timer (which may fire after the I/O).
  const lost = input.lock?.check()
  if (lost) return [{type: 'lock-lost', reason: lost.message}, {type: 'write-failed', seq: effect.seq, error: `${input.file}: the run lock was lost`, repairable: false}]
  try {
    watch.writing()
    const result = await input.store.write(effect.table, {running: effect.running, readOnly: true})
    await input.onWritten?.()
    watch.wrote(result.merged)
    return [{type: 'write-done', seq: effect.seq, result, held: driver.held(result.state)}, ...watch.refresh(driver.state())]
  } catch (error) {
    // A table a hand edit damaged names its own file, line and column, and says how to repair it.
    const repairable = (error as {code?: string}).code === 'EDAMAGEDTABLE'
    const message = repairable ? messageOf(error) : `${input.file}: ${messageOf(error)}`
    return [{type: 'write-failed', seq: effect.seq, error: message, repairable}, ...watch.unwritten()]
  }
}

function prepare(driver: Driver, effect: Effect<'prepare'>): void {
  const {input} = driver
  const {git} = input
  const agent = driver.state().byId.get(effect.agent)!
  const {job} = effect
  const prepared = {type: 'prepared', agent: effect.agent, attempt: effect.attempt} as const
  // After a lost lock nothing is set up any more (a worktree, a job folder on a host): the launch is taken back.
  const lost = git || job ? input.lock?.check() : undefined
  if (lost) {
    driver.dispatch({type: 'lock-lost', reason: lost.message})
    return driver.dispatch({...prepared, cwd: input.cwd, notes: {}, warnings: []})
  }
  if (job && remote(job) && input.hosts) return driver.later(async () => ({...prepared, ...(await input.hosts!.prepare(agent, job, effect.notes))}))
  // Nothing to prepare outside git: queued now, it is stepped in this same drain (no turn of the loop between the write and the spawn).
  if (!git) return driver.dispatch({...prepared, cwd: input.cwd, notes: {}, warnings: []})
  // A job a dead run left, gone back to: what it changed since its base is its own work, not news.
  driver.later(async () => ({...prepared, ...(await git.beforeLaunch(agent, effect.notes, effect.earlier, job?.reattach === true))}))
}

function spawn(driver: Driver, effect: Effect<'spawn'>): void {
  const exited = {type: 'exited', agent: effect.agent, attempt: effect.attempt} as const
  const lost = driver.input.lock?.check()
  if (lost) {
    // Not started: the attempt ends as an interrupted one, its row stays in_progress for the next run.
    driver.dispatch({type: 'lock-lost', reason: lost.message})
    return driver.later(async () => ({...exited, result: {ok: false, finalText: '', interrupted: true, reason: 'not launched: the run lock was lost'}}))
  }
  driver.later(async () => {
    let collectedEnd: number | undefined
    const result = await startAgent(driver, effect, (ms) => (collectedEnd = ms))
    driver.endedAt.set(effect.agent, driver.now())
    return {...exited, result, ...(collectedEnd !== undefined ? {endedAt: collectedEnd} : {})}
  })
}

async function recordQuestion(driver: Driver, effect: Effect<'record-question'>): Promise<Input | Input[]> {
  const {input} = driver
  // Like a table write: a run that lost its lock writes no question into a plan another run owns.
  const lost = input.lock?.check()
  if (lost) return [{type: 'lock-lost', reason: lost.message}, {type: 'question-written', agent: effect.agent, error: `${input.file}: the run lock was lost`}]
  try {
    // The section as the file has it now: the store hands the current plan to the editor.
    const written = await input.store.editSection('Open Questions', (section, current) =>
      upsertOpenQuestion(section, {agent: effect.agent, ...effect.question}, current.eol, current)
    )
    driver.watch.wrote(written.merged)
    // A new question: an answer `mdplan answer` kept for an earlier one is never replayed to it.
    forgetAnswers(input.file, effect.agent)
    return {type: 'question-written', agent: effect.agent}
  } catch (error) {
    return {type: 'question-written', agent: effect.agent, error: messageOf(error)}
  }
}
