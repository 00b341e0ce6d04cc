import type {Agent} from '../plan/types.js'
import type {RunResult} from '../runners/runner.js'
import {agentPrompt, withEnv} from '../protocol/agent-prompt.js'
import {childPlanPath} from '../plan/child-plan-path.js'
import type {HostCommand, SpawnResult} from '../process/process-types.js'
import type {ExecEffect} from './exec-effect.js'
import {messageOf, remote, type Driver} from './driver.js'

type Spawn = Extract<ExecEffect, {type: 'spawn'}>

/**
 * Run one attempt of an agent through its runner, here or on its host, and resolve with its result.
 * `onCollected`: its job had ended before this run found it (a rerun collected it), at that time (ms).
 */
export async function startAgent(driver: Driver, effect: Spawn, onCollected: (endedAt: number) => void): Promise<RunResult> {
  const {input} = driver
  const plan = driver.watch.plan
  const agent = driver.state().byId.get(effect.agent)!
  const runner = input.runnerFor(effect.agent)
  const {prompt, env} = agentPrompt(runner, {
    plan,
    agent,
    retry: effect.retry ? {attempt: effect.attempt, ...effect.retry} : undefined,
    discoveries: effect.discoveries,
    answer: effect.answer
      ? {question: effect.answer.question, resumeState: effect.answer.resumeState, answer: effect.answer.answer ?? '', options: effect.answer.options}
      : undefined,
    ...(effect.review !== undefined ? {review: effect.review} : {}),
    resuming: effect.resumeSession !== undefined,
    resumeInterrupted: effect.resumeKind === 'orphan' && effect.resumeSession !== undefined
  })
  const controller = new AbortController()
  driver.controllers.set(effect.agent, controller)
  const logFile = input.config.logFile(effect.agent, effect.attempt)
  const place = jobPlace(driver, effect, agent, {logFile, signal: controller.signal, onCollected})
  try {
    const result = await runner.run({
      agent,
      prompt,
      cwd: effect.cwd,
      planFile: input.file,
      attempt: effect.attempt,
      logFile,
      options: withEnv(input.optionsFor(plan, agent), {...env, ...traceEnv(driver, effect, runner.name)}),
      signal: controller.signal,
      timeoutMs: input.timeoutMs,
      resume: effect.resumeSession ? {sessionId: effect.resumeSession} : undefined,
      agentId: effect.agentId,
      onAgentId: (agentId) => driver.dispatch({type: 'agent-id', agent: effect.agent, attempt: effect.attempt, agentId}),
      child: {concurrency: effect.slots, args: input.childArgs ?? []},
      // A child's own writes are its business: its other events come up, marked with its plan.
      onChildEvent: (event) => event.type !== 'state-written' && input.emit({type: 'child', agent: effect.agent, plan: childPlanPath(input.file, agent) ?? '', event}),
      onProgress: (note) => driver.dispatch({type: 'progress', agent: effect.agent, attempt: effect.attempt, note}),
      onSpend: (spent) => driver.dispatch({type: 'spent', agent: effect.agent, attempt: effect.attempt, ...spent}),
      ...(place ? {host: place.host} : {})
    })
    // Whatever the runner made of a silent host's missing output, the attempt's fate there is unknown.
    const lost = place?.lost()
    if (lost) return {ok: false, finalText: '', reason: lost, hostLost: effect.job!.host, agentId: result.agentId}
    // Its job never started the agent: nothing of this attempt happened, whatever the runner made of no output.
    const never = place?.notStarted()
    if (never) return {ok: false, finalText: '', reason: never, notStarted: true, agentId: result.agentId}
    return result
  } catch (error) {
    return {ok: false, finalText: '', reason: `runner ${runner.name} failed: ${messageOf(error)}`}
  } finally {
    driver.controllers.delete(effect.agent)
  }
}

/**
 * Where the attempt's commands run when it is a job: on its remote host (attached by its key), or as
 * one of this machine's jobs. Undefined for a plain process of the run.
 */
function jobPlace(
  driver: Driver,
  effect: Spawn,
  agent: Agent,
  io: {logFile: string; signal: AbortSignal; onCollected: (endedAt: number) => void}
): {host: {run: (command: HostCommand) => Promise<SpawnResult>}; lost: () => string | undefined; notStarted: () => string | undefined} | undefined {
  const {input} = driver
  const {job} = effect
  if (!job) return undefined
  if (remote(job)) {
    if (!input.hosts) return undefined
    const attached = input.hosts.attach(agent, job, {
      logFile: io.logFile,
      timeoutMs: input.timeoutMs,
      signal: io.signal,
      // The engine's job id and queue time (slurm, kubernetes), for the row's Notes.
      onNotes: (notes) => {
        for (const [key, value] of Object.entries(notes)) driver.dispatch({type: 'progress', agent: effect.agent, attempt: effect.attempt, note: value ?? '', key})
      }
    })
    return {host: attached, lost: attached.lost, notStarted: attached.notStarted}
  }
  if (!input.local) return undefined
  const here = input.local.attach(job, {logFile: io.logFile, cwd: effect.cwd, timeoutMs: input.timeoutMs, signal: io.signal, onCollected: io.onCollected})
  return {host: here, lost: () => undefined, notStarted: () => undefined}
}

/** The attempt's trace context, when the run is traced: its span starts now, as the agent does. */
function traceEnv(driver: Driver, effect: Spawn, runner: string): Record<string, string> {
  const host = effect.job?.host
  return driver.input.traceEnv?.({agent: effect.agent, attempt: effect.attempt, runner, ...(host ? {host} : {})}) ?? {}
}
