import {setTimeout as sleep} from 'node:timers/promises'
import {parseJobKey} from './job-key.js'
import {localHostName} from './host-spec.js'
import type {RuntimeContext} from './runtime-context.js'

/** The job about to be submitted: its host, its key, and the earlier job whose folder it goes on in. */
interface FencedJob {
  host: string
  key: string
  work?: string
}

/**
 * One copy of an agent at a time (HostRuntime.fence): end every earlier job of `job`'s agent, on this machine
 * and on every host the ledger knows holds one, before its new key is submitted. Resolves to why the key must
 * not be submitted (its own host stayed silent for its lease), or undefined.
 */
export async function fenceAgent(context: RuntimeContext, job: FencedJob, signal?: AbortSignal): Promise<string | undefined> {
  const {ledger} = context
  const mine = (key: string): boolean => key !== job.key && key !== job.work && !context.ended.has(key) && context.own(key) && parseJobKey(key)?.agent === parseJobKey(job.key)?.agent
  // This machine's jobs of the agent (the local engine fences its own launches the same way).
  if (job.host !== localHostName) {
    const locals = ((await context.here.list(context.ownPrefix).catch(() => [])) ?? []).filter(mine)
    if (locals.length > 0) await context.here.cancel(locals)
  }
  const started = Date.now()
  const holders = ledger.names().filter((name) => name !== localHostName && context.specOf(name) !== undefined && ledger.keys(name).some(mine))
  const refusals = await Promise.all(holders.map((name) => endOn(context, name, {job, mine, started, signal})))
  // Only the job's own host refuses, and it is one of the holders at most once.
  return refusals.find((refusal) => refusal !== undefined)
}

/**
 * End the agent's earlier jobs on one host, asking again until they are gone. Resolves to why the new job
 * must not be submitted (`name` is its own host, silent for its lease), or undefined.
 */
async function endOn(
  context: RuntimeContext,
  name: string,
  fence: {job: FencedJob; mine: (key: string) => boolean; started: number; signal?: AbortSignal}
): Promise<string | undefined> {
  const {ledger} = context
  const {job, mine, started, signal} = fence
  for (let wait = 250; ; wait = Math.min(wait * 2, 2_000)) {
    const keys = ledger.keys(name).filter(mine)
    if (keys.length === 0 || signal?.aborted) return undefined
    const since = context.silent.get(name)
    // Silent past its lease (or not ending them within it), and not where this job goes: its jobs are taken
    // as lost with it, and ended once it answers (the next run's sweep, or `mdplan clean`, if not in this run).
    const over = (since !== undefined && Date.now() - since >= context.leaseOf(name)) || Date.now() - started >= context.leaseOf(name)
    if (name !== job.host && over) {
      for (const key of keys) context.reap(name, key)
      return undefined
    }
    // The job's own host: the earlier job must go first, and its submit waits for the host anyway, up to the lease.
    if (name === job.host && Date.now() - started >= context.leaseOf(name)) return `host lost: ${name}`
    const removed = await context.host(name).cancel(keys)
    const left = removed === true ? [] : await context.host(name).list(context.ownPrefix)
    if (left) {
      context.heard(name)
      const gone = keys.filter((key) => !left.includes(key))
      ledger.gone(name, gone)
      if (gone.length === keys.length) return undefined
    } else context.unheard(name)
    await sleep(wait, undefined, {signal}).catch(() => undefined)
  }
}
