import type {Agent, Plan} from '../plan/types.js'
import type {Runner, RunnerOptions, RunResult} from '../runners/runner.js'
import type {GitGuard} from '../git/git-guard.js'
import {agentPrompt, withEnv} from '../protocol/agent-prompt.js'
import type {PlanStore} from '../store/plan-store.js'
import {upsertOpenQuestion} from '../protocol/upsert-open-question.js'
import type {ExecConfig} from './exec-config.js'
import type {ExecEffect, Emitted} from './exec-effect.js'
import type {ExecEvent, Input} from './exec-event.js'
import type {ExecState} from './exec-state.js'
import {checkInvariants} from './check-invariants.js'
import {step} from './step.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import {watchPlan, type PlanWatch} from './watch-plan.js'
import type {HostRuntime} from '../hosts/host-runtime.js'
import {DetachRequest} from '../hosts/detach-request.js'
import type {JobRef} from '../hosts/host.js'
import {localHostName} from '../hosts/host-spec.js'
import type {LocalJobs} from '../hosts/local-jobs.js'
import type {JournalKeeper} from './journal-keeper.js'
import {armTimer} from './arm-timer.js'
import {heldPlaces} from './held-places.js'
import {checkWork} from './check-work.js'
import {forgetAnswers} from '../protocol/answer-log.js'

/** Everything the driver needs to perform effects: the edges of the run. */
export interface DriverInput {
  state: ExecState
  config: ExecConfig
  store: PlanStore
  /** The plan as read (the watch keeps it current when a person edits the agents). */
  plan: Plan
  runnerFor: (agent: string) => Runner
  optionsFor: (plan: Plan, agent: Agent) => RunnerOptions
  git: GitGuard | undefined
  file: string
  cwd: string
  timeoutMs: number | undefined
  pollMs: number
  /** Keep the Mermaid picture under `## DAG Visualization` current. */
  onWritten?: () => Promise<void>
  emit: (event: Emitted) => void
  signal?: AbortSignal
  /** The parent run's flags a child plan's run inherits. */
  childArgs?: readonly string[]
  /** Remote hosts' jobs (src/hosts/), when the plan declares hosts. */
  hosts?: HostRuntime
  /** This machine's jobs (src/hosts/local/): without them an attempt here is a plain process of the run. */
  local?: LocalJobs
  /**
   * The run lock: looked at before every spawn, every write and every commit or merge (a lock lost since its last refresh launches,
   * writes and commits nothing), and
   * `onLost` tells the run as soon as its refresh finds it gone.
   */
  lock?: {check(): Error | undefined; onLost(listener: (error: Error) => void): void}
  /** Journals, in the step that learns it, what a failing write leaves unrecorded. */
  journal?: JournalKeeper
  /** Check the invariants after every step (tests; cheap enough to leave on). */
  checkInvariants?: boolean
  now?: () => number
}

/**
 * The thin imperative shell around `step`: one queue of events, fed to
 * `step` one at a time; each effect `step` returns is performed here and
 * its result comes back as an event. Resolves with the final state.
 */
export function driveExecutor(input: DriverInput): Promise<ExecState> {
  const {config, store, git} = input
  const now = input.now ?? Date.now
  let state = input.state
  const queue: ExecEvent[] = []
  const controllers = new Map<string, AbortController>()
  /** When each agent's last process ended: its git check may share a snapshot started since. */
  const endedAt = new Map<string, number>()
  /** Pending ticks: cleared when the run finishes, so a pause never keeps an interrupted run's process alive. */
  const timers = new Set<NodeJS.Timeout>()
  let draining = false
  let drainScheduled = false
  let done!: (state: ExecState) => void
  const finished = new Promise<ExecState>((resolve) => (done = resolve))
  let watch: PlanWatch
  const held = heldPlaces(() => store.plan)

  // One event at a time, in order: an effect's result is queued, never handled inside another step.
  // The queue is drained after the I/O of this turn of the event loop, not at once: processes that
  // ended together, and writes and checks that finished meanwhile, are stepped as one batch (each
  // but the last marked `more`), so they share one scheduling pass and one write.
  const dispatch = (event: Input): void => {
    queue.push({...event, now: now()} as ExecEvent)
    if (draining || drainScheduled) return
    drainScheduled = true
    setImmediate(drain)
  }

  const drain = (): void => {
    drainScheduled = false
    draining = true
    try {
      while (queue.length > 0 && !state.finished) {
        const event = queue.shift()!
        if (queue.length > 0) event.more = true
        const result = step(state, event, config)
        state = result.state
        if (input.checkInvariants) checkInvariants(state, config)
        // Before any effect: a completion the table cannot take is on disk before the run can be killed.
        input.journal?.afterStep(state)
        for (const effect of result.effects) perform(effect)
      }
    } finally {
      draining = false
    }
  }

  /** Perform async work; its result comes back as events, in order. */
  const later = (work: () => Promise<Input | Input[]>): void => {
    void work().then((events) => {
      for (const event of Array.isArray(events) ? events : [events]) dispatch(event)
    })
  }

  const perform = (effect: ExecEffect): void => {
    switch (effect.type) {
      case 'emit':
        input.emit(effect.event.type === 'state-written' ? {...effect.event, file: input.file} : effect.event)
        return
      case 'write':
        return later(async () => {
          // A run stopped (Ctrl-Z, a closed laptop) while another took the plan over writes nothing when it
          // wakes: its lock is looked at before the write, not only on its timer (which may fire after the I/O).
          const lost = input.lock?.check()
          if (lost) return [{type: 'lock-lost', reason: lost.message}, {type: 'write-failed', seq: effect.seq, error: `${input.file}: the run lock was lost`, repairable: false}]
          try {
            watch.writing()
            const result = await store.write(effect.table, {running: effect.running, readOnly: true})
            await input.onWritten?.()
            watch.wrote(result.merged)
            return [{type: 'write-done', seq: effect.seq, result, held: held(result.state)}, ...watch.refresh(state)]
          } catch (error) {
            // A table a hand edit damaged names its own file, line and column, and says how to repair it.
            const repairable = (error as {code?: string}).code === 'EDAMAGEDTABLE'
            const message = repairable ? messageOf(error) : `${input.file}: ${messageOf(error)}`
            return [{type: 'write-failed', seq: effect.seq, error: message, repairable}, ...watch.unwritten()]
          }
        })
      case 'prepare': {
        const agent = state.byId.get(effect.agent)!
        const {job} = effect
        // After a lost lock nothing is set up any more (a worktree, a job folder on a host): the launch is taken back.
        const lost = git || job ? input.lock?.check() : undefined
        if (lost) {
          dispatch({type: 'lock-lost', reason: lost.message})
          return dispatch({type: 'prepared', agent: effect.agent, attempt: effect.attempt, cwd: input.cwd, notes: {}, warnings: []})
        }
        if (job && remote(job) && input.hosts) return later(async () => ({type: 'prepared', agent: effect.agent, attempt: effect.attempt, ...(await input.hosts!.prepare(agent, job, effect.notes))}))
        // Nothing to prepare outside git: queued now, it is stepped in this same drain (no turn of the loop between the write and the spawn).
        if (!git) return dispatch({type: 'prepared', agent: effect.agent, attempt: effect.attempt, cwd: input.cwd, notes: {}, warnings: []})
        return later(async () => {
          // A job a dead run left, gone back to: what it changed since its base is its own work, not news.
          const launch = await git.beforeLaunch(agent, effect.notes, effect.earlier, job?.reattach === true)
          return {type: 'prepared', agent: effect.agent, attempt: effect.attempt, ...launch}
        })
      }
      case 'spawn': {
        const lost = input.lock?.check()
        if (lost) {
          // Not started: the attempt ends as an interrupted one, its row stays in_progress for the next run.
          dispatch({type: 'lock-lost', reason: lost.message})
          return later(async () => ({type: 'exited', agent: effect.agent, attempt: effect.attempt, result: {ok: false, finalText: '', interrupted: true, reason: 'not launched: the run lock was lost'}}))
        }
        return later(async () => {
          let collectedEnd: number | undefined
          const result = await spawn(effect, (ms) => (collectedEnd = ms))
          endedAt.set(effect.agent, now())
          return {type: 'exited', agent: effect.agent, attempt: effect.attempt, result, ...(collectedEnd !== undefined ? {endedAt: collectedEnd} : {})}
        })
      }
      case 'kill':
        controllers.get(effect.agent)?.abort(effect.detach ? new DetachRequest('the run lock was lost') : undefined)
        return
      case 'check': {
        const agent = state.byId.get(effect.agent)!
        return later(() => checkWork({effect: effect.job && !remote(effect.job) ? {...effect, job: undefined} : effect, agent, git, hosts: input.hosts, endedAt: endedAt.get(effect.agent), lock: input.lock}))
      }
      case 'abandon': {
        const agent = state.byId.get(effect.agent)
        if (agent) git?.abandon(agent)
        return
      }
      case 'record-question':
        return later(async () => {
          // Like a table write: a run that lost its lock writes no question into a plan another run owns.
          const lost = input.lock?.check()
          if (lost) return [{type: 'lock-lost', reason: lost.message}, {type: 'question-written', agent: effect.agent, error: `${input.file}: the run lock was lost`}]
          try {
            // The section as the file has it now: the store hands the current plan to the editor.
            const written = await store.editSection('Open Questions', (section, current) =>
              upsertOpenQuestion(section, {agent: effect.agent, ...effect.question}, current.eol, current)
            )
            watch.wrote(written.merged)
            // A new question: an answer `mdplan answer` kept for an earlier one is never replayed to it.
            forgetAnswers(input.file, effect.agent)
            return {type: 'question-written', agent: effect.agent}
          } catch (error) {
            return {type: 'question-written', agent: effect.agent, error: messageOf(error)}
          }
        })
      case 'timer': {
        // Referenced: a pause with nothing running must keep the process alive until it ends;
        // cleared at `finish`, so Ctrl-C or SIGTERM during a 15-minute pause exits at once.
        armTimer(effect.at, now, () => dispatch({type: 'tick'}), timers)
        return
      }
      case 'look':
        return later(async () => watch.look())
      case 'finish':
        for (const timer of timers) clearTimeout(timer)
        timers.clear()
        watch.stop()
        input.signal?.removeEventListener('abort', onAbort)
        done(state)
        return
    }
  }

  const spawn = async (effect: Extract<ExecEffect, {type: 'spawn'}>, onCollected: (endedAt: number) => void): Promise<RunResult> => {
    const plan = watch.plan
    const agent = state.byId.get(effect.agent)!
    const runner = input.runnerFor(effect.agent)
    const {prompt, env} = agentPrompt(runner, {
      plan,
      agent,
      retry: effect.retry ? {attempt: effect.attempt, ...effect.retry} : undefined,
      discoveries: effect.discoveries,
      answer: effect.answer
        ? {question: effect.answer.question, resumeState: effect.answer.resumeState, answer: effect.answer.answer ?? '', options: effect.answer.options}
        : undefined,
      resuming: effect.resumeSession !== undefined,
      resumeInterrupted: effect.resumeKind === 'orphan' && effect.resumeSession !== undefined
    })
    const controller = new AbortController()
    controllers.set(effect.agent, controller)
    const logFile = config.logFile(effect.agent, effect.attempt)
    const elsewhere = effect.job && remote(effect.job) && input.hosts ? input.hosts.attach(agent, effect.job, {
          logFile,
          timeoutMs: input.timeoutMs,
          signal: controller.signal,
          // The engine's job id and queue time (slurm, kubernetes), for the row's Notes.
          onNotes: (notes) => {
            for (const [key, value] of Object.entries(notes)) dispatch({type: 'progress', agent: effect.agent, attempt: effect.attempt, note: value ?? '', key})
          }
        }) : undefined
    const here = effect.job && !remote(effect.job) && input.local ? input.local.attach(effect.job, {logFile, cwd: effect.cwd, timeoutMs: input.timeoutMs, signal: controller.signal, onCollected}) : undefined
    try {
      const result = await runner.run({
        agent,
        prompt,
        cwd: effect.cwd,
        planFile: input.file,
        attempt: effect.attempt,
        logFile: config.logFile(effect.agent, effect.attempt),
        options: withEnv(input.optionsFor(plan, agent), env),
        signal: controller.signal,
        timeoutMs: input.timeoutMs,
        resume: effect.resumeSession ? {sessionId: effect.resumeSession} : undefined,
        agentId: effect.agentId,
        onAgentId: (agentId) => dispatch({type: 'agent-id', agent: effect.agent, attempt: effect.attempt, agentId}),
        child: {concurrency: effect.slots, args: input.childArgs ?? []},
        // A child's own writes are its business: its other events come up, marked with its plan.
        onChildEvent: (event) => event.type !== 'state-written' && input.emit({type: 'child', agent: effect.agent, plan: childPlanPath(input.file, agent) ?? '', event}),
        onProgress: (note) => dispatch({type: 'progress', agent: effect.agent, attempt: effect.attempt, note}),
        ...(elsewhere ? {host: elsewhere} : here ? {host: here} : {})
      })
      // Whatever the runner made of a silent host's missing output, the attempt's fate there is unknown.
      const lost = elsewhere?.lost()
      if (lost) return {ok: false, finalText: '', reason: lost, hostLost: effect.job!.host, agentId: result.agentId}
      // Its job never started the agent: nothing of this attempt happened, whatever the runner made of no output.
      const never = elsewhere?.notStarted()
      if (never) return {ok: false, finalText: '', reason: never, notStarted: true, agentId: result.agentId}
      return result
    } catch (error) {
      return {ok: false, finalText: '', reason: `runner ${runner.name} failed: ${messageOf(error)}`}
    } finally {
      controllers.delete(effect.agent)
    }
  }

  const onAbort = (): void => dispatch({type: 'abort'})
  watch = watchPlan({store, file: input.file, cwd: input.cwd, plan: input.plan, pollMs: input.pollMs, dispatch, state: () => state, unplaceable: config.unplaceable})
  if (input.signal?.aborted) queue.push({type: 'abort', now: now()})
  input.signal?.addEventListener('abort', onAbort, {once: true})
  input.lock?.onLost((error) => dispatch({type: 'lock-lost', reason: error.message}))
  for (const event of watch.initial(state)) queue.push({...event, now: now()} as ExecEvent)
  dispatch({type: 'start'})
  return finished
}


/** A job on another machine (its code shipped there, its work brought back), not one of this machine's. */
function remote(job: JobRef): boolean {
  return job.host !== localHostName
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
