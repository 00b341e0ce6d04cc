import type {Agent} from '../plan/types.js'
import type {JobRef} from './host.js'
import type {SpawnResult, HostCommand} from '../process/process-types.js'
import {commitMessage} from '../git/commit-message.js'
import {headSha} from '../git/head-sha.js'
import {worktreeNames} from '../layout/worktree-names.js'
import type {RuntimeContext} from './runtime-context.js'
import {eitherSignal} from '../process/either-signal.js'

/** What HostRuntime.attach gives back: the run of the job, and why its host lost it or it never started, if so. */
export interface RemoteAttachment {
  run: (command: HostCommand) => Promise<SpawnResult>
  lost: () => string | undefined
  notStarted: () => string | undefined
}

/**
 * A runner's command, run as the attempt's job on its host: recorded in the ledger, the agent's earlier jobs
 * fenced off (`fence`), then submitted and followed; what the host's answer says of the host is kept.
 */
export function attachRemote(
  context: RuntimeContext,
  fence: (job: JobRef, signal?: AbortSignal) => Promise<string | undefined>,
  agent: Agent,
  job: JobRef,
  io: {logFile: string; timeoutMs?: number; signal?: AbortSignal; onNotes?: (notes: Record<string, string | undefined>) => void}
): RemoteAttachment {
  const {root, prefix, ledger, title} = context
  let lost: string | undefined
  let notStarted: string | undefined
  const {branch} = worktreeNames(root, context.slug, agent.id)
  return {
    lost: () => lost,
    notStarted: () => notStarted,
    run: async (command) => {
      const signal = eitherSignal(io.signal, command.signal)
      const base = context.bases.get(job.key) ?? (await headSha(root)) ?? ''
      const spec = context.specOf(job.host)
      // Written down before anything is submitted: a run killed right after still finds the host to sweep.
      if (spec) ledger.submitting(spec, job.key)
      const fenced = await fence(job, signal)
      if (signal?.aborted) return {timedOut: false, interrupted: true, stdout: '', stderr: '', spawnFailed: false}
      if (fenced) {
        lost = fenced
        return {timedOut: false, interrupted: false, stdout: '', stderr: '', spawnFailed: false, lost: true, error: fenced}
      }
      const result = await context.host(job.host).run(
        {key: job.key, ...io, ...(signal ? {signal} : {}), git: {root, base, branch, prefix, message: commitMessage(title, agent)}, reattach: job.reattach, ...(job.work ? {work: job.work} : {})},
        command
      )
      lost = result.lost === true ? result.error || `host lost: ${job.host}` : undefined
      notStarted = result.notStarted === true ? result.error || `the job ${job.key} never started on ${job.host}` : undefined
      if (lost) context.unheard(job.host, Date.now() - context.leaseOf(job.host))
      else if (!result.interrupted) context.heard(job.host)
      // Ended on its host (or stopped there, or never there): a later fence has nothing of it to end.
      if (!lost && !io.signal?.aborted) context.ended.add(job.key)
      // Not on Slurm: a job it counts as ended (NODE_FAIL) cannot be cancelled there, and removing its folder under a
      // zombie only leaves its script waiting for ever; the sweep takes it once the run ends, as before.
      if (lost) context.reap(job.host, job.key)
      return result
    }
  }
}
