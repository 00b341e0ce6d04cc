import {localHostName} from '../hosts/host-spec.js'
import type {JobRef} from '../hosts/host.js'
import type {Attempt} from './exec-state.js'
import type {ExecRow} from './exec-row.js'
import {row, type StepContext} from './step-context.js'
import {agentWaits} from './account-waits.js'
import {accountFull} from './account-full.js'

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
 * The host that holds the agent's session, if the row says: its `work:` note; the job a dead run left
 * (`job:`); an answered question from before `work:` notes (the `host:` it ran on).
 */
export function sessionHost(previous: ExecRow): string | undefined {
  const {notes} = previous
  if (notes.work) return notes.work.host
  if (previous.status === 'in_progress') return notes.job?.host
  if (previous.status === 'needs_input') return notes.host?.trim() || undefined
  return undefined
}

/**
 * Pure placement. A row a dead run left `in_progress` with `job: <host> <key>`
 * goes back to that job (attach, never a second submit); an agent whose
 * session a host holds (an answered question, a relaunch after a pause) goes
 * back to that host, to resume it there; anything else goes to the host of
 * its pool with the most free slots, hosts lost in this run last. A host whose
 * account for the agent waits for a usage limit to reset, or runs as many of
 * the account's attempts as its cap, has no free slot for it.
 * Undefined: every host it may use is full or waiting (it waits).
 */
export function placeAttempt(ctx: StepContext, id: string): Placement | undefined {
  const hosts = ctx.config.hosts
  const previous = row(ctx, id)
  const job = previous.status === 'in_progress' ? previous.notes.job : undefined
  // A job of this machine a dead run left: followed again, or collected (placed here whatever the pool says now).
  const here = job?.host === localHostName && ctx.config.localJobs?.reattach(job.key) === true ? {host: localHostName, reattach: job.key} : undefined
  // Followed only while its account has room: live attempts never outnumber the account's cap.
  if (here) return accountFull(ctx, id, hosts ? localHostName : undefined) ? undefined : here
  // An account waiting for a usage limit to reset takes no new attempt (a job a dead run left is followed still).
  if (!hosts) return agentWaits(ctx, id, undefined) || accountFull(ctx, id, undefined) ? undefined : {host: localHostName}
  const free = (host: string): number => (agentWaits(ctx, id, host) || accountFull(ctx, id, host) ? 0 : hosts.slots(host) - attemptsOn(ctx, host))
  if (job && hosts.remote(job.host) && !ctx.state.hostsLost.has(job.host)) {
    return free(job.host) > 0 ? {host: job.host, reattach: job.key} : undefined
  }
  // A child plan's run is a process of this machine: it places its own agents.
  const pool = ctx.config.childPlan(id) ? ['local'] : hosts.pool(id, ctx.state.byId.get(id)!)
  // Its session (and its work) can be resumed only where it is: wait for a slot there, unless that host is lost.
  const home = sessionHost(previous)
  if (home !== undefined && pool.includes(home) && !ctx.state.hostsLost.has(home)) return free(home) > 0 ? {host: home} : undefined
  const alive = pool.filter((host) => !ctx.state.hostsLost.has(host))
  let best: string | undefined
  for (const host of alive.length > 0 ? alive : pool) {
    if (free(host) > 0 && (best === undefined || free(host) > free(best))) best = host
  }
  return best === undefined ? undefined : {host: best}
}

/** The job of an attempt, for effects (an attempt of this machine without hosts declared: `local`). */
export function jobOf(attempt: Attempt): JobRef | undefined {
  if (attempt.key === undefined) return undefined
  return {host: attempt.host ?? localHostName, key: attempt.key, reattach: attempt.reattach ?? false, ...(attempt.work !== undefined ? {work: attempt.work} : {})}
}

/** `{job}` for an effect of an attempt that runs as a job; nothing for one that does not.*/
export function jobField(attempt: Attempt): {job?: ReturnType<typeof jobOf>} {
  const job = jobOf(attempt)
  return job ? {job} : {}
}
