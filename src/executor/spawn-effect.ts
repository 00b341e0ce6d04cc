import type {Agent} from '../plan/types.js'
import type {ExecEffect} from './exec-effect.js'
import type {Attempt} from './exec-state.js'
import {emit, type StepContext} from './step-context.js'
import {jobOf} from './place-attempt.js'

/** The `spawn` effect of an attempt whose launch is on disk and whose git setup is ready; emits `launched`. */
export function spawnEffect(ctx: StepContext, attempt: Attempt, cwd: string): ExecEffect {
  const {state, config} = ctx
  const id = attempt.agent
  const {notes} = attempt.previous
  const lastFailure = notes.attempts.size > 0 ? notes.attempts.get(Math.max(...notes.attempts.keys())) : undefined
  const retry = attempt.resumeKind === 'retry' && lastFailure !== undefined ? {previousFailure: lastFailure, checkpoint: notes.checkpoint} : undefined
  emit(ctx, {
    type: 'launched',
    agent: id,
    agentId: attempt.sessionId,
    attempt: attempt.attempt,
    resumed: attempt.resumeSession !== undefined || attempt.reattach === true,
    log: config.logFile(id, attempt.attempt),
    ...(attempt.host !== undefined ? {host: attempt.host} : {}),
    ...(attempt.key !== undefined ? {job: attempt.key} : {})
  })
  const job = jobOf(attempt)
  return {
    type: 'spawn',
    agent: id,
    attempt: attempt.attempt,
    cwd,
    slots: attempt.slots,
    resumeKind: attempt.resumeKind,
    resumeSession: attempt.resumeSession,
    agentId: attempt.resumeSession === undefined ? attempt.sessionId : undefined,
    retry,
    answer: attempt.answer,
    ...(attempt.review !== undefined ? {review: attempt.review} : {}),
    discoveries: state.discoveries.filter((d) => dependsOnTransitively(state.byId, id, d.agent)),
    ...(job ? {job} : {})
  }
}

function dependsOnTransitively(agents: ReadonlyMap<string, Agent>, id: string, ancestor: string): boolean {
  const seen = new Set<string>()
  const next = (agent: Agent | undefined): string[] => [...(agent?.dependsOn ?? []), ...(agent?.softDependsOn ?? [])].map((d) => d.id)
  const stack = next(agents.get(id))
  while (stack.length > 0) {
    const dep = stack.pop()!
    if (dep === ancestor) return true
    if (seen.has(dep)) continue
    seen.add(dep)
    stack.push(...next(agents.get(dep)))
  }
  return false
}
