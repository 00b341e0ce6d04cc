import type {RunResult} from '../runners/runner.js'
import type {Attempt} from './exec-state.js'
import {row, setRow, type StepContext} from './step-context.js'
import {withSpend} from './with-spend.js'

/**
 * Stop launching and end the running agents (Ctrl-C, SIGTERM, a lost lock, a budget spent with `on_budget:
 * stop`). Their rows stay `in_progress` with their IDs: the next run resumes them. After a lost lock another
 * run may own the plan and resume them at any moment, so letting a local agent finish would make two copies
 * of one agent (the new owner cannot follow a process of ours: it starts its own). A remote job is the
 * opposite: the new owner finds it by the key in its row and may follow it already, so cancelling it would
 * end the new owner's attempt and make a second; after a lost lock it is detached from, not ended.
 */
export function stopRun(ctx: StepContext): void {
  const {state} = ctx
  if (state.stopping) return
  state.stopping = true
  for (const attempt of state.attempts.values()) {
    if (attempt.phase !== 'running') continue
    attempt.killed = true
    const detach = state.lockLost !== undefined && attempt.key !== undefined
    ctx.effects.push({type: 'kill', agent: attempt.agent, ...(detach ? {detach} : {})})
  }
}

/**
 * Ended on purpose (Ctrl-C, a lost lock, a budget's stop): the row stays in_progress with its ID, so the next
 * run resumes it, and no attempt is used; what it spent until then counts (the budget is checked against it).
 */
export function leaveResumable(ctx: StepContext, attempt: Attempt, result: RunResult): void {
  ctx.effects.push({type: 'abandon', agent: attempt.agent})
  ctx.state.attempts.delete(attempt.agent)
  const current = row(ctx, attempt.agent)
  const notes = withSpend(current.notes, attempt, result)
  if (notes !== current.notes) setRow(ctx, attempt.agent, {notes})
  if (result.agentId && current.agentId === '') setRow(ctx, attempt.agent, {agentId: result.agentId})
}
