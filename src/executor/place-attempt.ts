import {getNote} from '../plan/notes.js'
import {parseJobNote} from '../hosts/job-key.js'
import type {JobRef} from './exec-effect.js'
import type {Attempt} from './exec-state.js'
import {row, type StepContext} from './step-context.js'

/** Where a new attempt goes: a host, and the job it re-attaches to, if any. */
export interface Placement {
  host: string
  /** A rerun's job, still named in the row: the attempt attaches to it under its key. */
  reattach?: string
}

/** Attempts on `host` now. */
export function attemptsOn(ctx: Pick<StepContext, 'state'>, host: string): number {
  let count = 0
  for (const attempt of ctx.state.attempts.values()) if (attempt.host === host) count++
  return count
}

/**
 * Pure placement. A row a dead run left `in_progress` with `job: <host> <key>`
 * goes back to that job (attach, never a second submit); anything else goes
 * to the host of its pool with the most free slots, hosts lost in this run
 * last. Undefined: every host it may use is full (it waits for a slot).
 */
export function placeAttempt(ctx: StepContext, id: string): Placement | undefined {
  const hosts = ctx.config.hosts
  if (!hosts) return {host: 'local'}
  const free = (host: string): number => hosts.slots(host) - attemptsOn(ctx, host)
  const previous = row(ctx, id)
  const job = previous.status === 'in_progress' ? parseJobNote(getNote(previous.notes, 'job')) : undefined
  if (job && hosts.remote(job.host) && !ctx.state.hostsLost.has(job.host)) {
    return free(job.host) > 0 ? {host: job.host, reattach: job.key} : undefined
  }
  // A child plan's run is a process of this machine: it places its own agents.
  const pool = ctx.config.childPlan(id) ? ['local'] : hosts.pool(id, ctx.state.byId.get(id)!)
  const alive = pool.filter((host) => !ctx.state.hostsLost.has(host))
  let best: string | undefined
  for (const host of alive.length > 0 ? alive : pool) {
    if (free(host) > 0 && (best === undefined || free(host) > free(best))) best = host
  }
  return best === undefined ? undefined : {host: best}
}

/** The job of a remote attempt, for effects. */
export function jobOf(attempt: Attempt): JobRef | undefined {
  return attempt.host !== undefined && attempt.key !== undefined ? {host: attempt.host, key: attempt.key, reattach: attempt.reattach ?? false} : undefined
}

/** `{job}` for an effect of a remote attempt; nothing for a local one (its effects stay as they were). */
export function jobField(attempt: Attempt): {job?: ReturnType<typeof jobOf>} {
  const job = jobOf(attempt)
  return job ? {job} : {}
}
