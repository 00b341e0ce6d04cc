import type {HostCommand, SpawnResult} from '../process/process-types.js'
import {hostFilesFolder, jobsFolder} from '../layout/jobs-folder.js'
import type {JobRef} from './host.js'
import {localHostSpec} from './host-spec.js'
import {createHost} from './host-types.js'
import {eitherSignal} from '../process/either-signal.js'

/** The attempts of this machine, as jobs (src/hosts/local/): what the executor and the run ask of them. */
export interface LocalJobs {
  /** Whether the job a rerun's row names is to be gone back to (running, ended, or never started), as found at the run's start. */
  reattach(key: string): boolean
  /** When that job started (ms), for its attempt's Duration. */
  launchedAt(key: string): number | undefined
  /** A runner's command, run as the attempt's job in `cwd`. */
  /** `onCollected`: the job had ended before it was found; when, by its own record. */
  attach(job: JobRef, io: {logFile: string; cwd: string; timeoutMs?: number; signal?: AbortSignal; onCollected?: (endedAt: number) => void}): {run: (command: HostCommand) => Promise<SpawnResult>}
  /** Remove this plan's local jobs no row still needs, ending any that still runs (confirmed). */
  sweep(keep: ReadonlySet<string>): Promise<void>
}

/**
 * The local jobs of one plan: `named` are the keys its rows name (`job: local <key>`), looked at once, before
 * the run starts: a running job is followed again, an ended one collected, one never started started under
 * its key; one Ctrl-C stopped, or that died without an end, is not gone back to (its agent goes on from its
 * session under a new key, and the old folder goes with the fencing).
 */
export function localJobs(input: {
  file: string
  root: string
  prefix: string
  /** Keys among `named` of another prefix that are this plan's all the same (src/run/older-job-keys.ts): gone back to, then swept, as its own. */
  older?: readonly string[]
  named: Iterable<string>
  /** Ends the agent's jobs on other hosts (HostRuntime.fence) before a job of it starts here; this machine's own it fences itself. */
  fence?: (job: {host: string; key: string}, signal?: AbortSignal) => Promise<string | undefined>
}): LocalJobs {
  const host = createHost(localHostSpec, {root: input.root, jobs: jobsFolder(input.file), scratch: hostFilesFolder(input.file)})
  const found = new Map<string, {state: string; startedAt?: number}>()
  const older = new Set(input.older)
  for (const key of input.named) if (key.startsWith(input.prefix) || older.has(key)) found.set(key, host.status!(key))
  return {
    reattach: (key) => ['running', 'ended', 'missing'].includes(found.get(key)?.state ?? ''),
    launchedAt: (key) => found.get(key)?.startedAt,
    attach: (job, io) => ({
      run: async (command) => {
        const signal = eitherSignal(io.signal, command.signal)
        // One copy of the agent at a time: a job of it another host holds (a host it ran on before) ends first.
        await input.fence?.({host: job.host, key: job.key}, signal)
        if (signal?.aborted) return {timedOut: false, interrupted: true, stdout: '', stderr: '', spawnFailed: false}
        const result = await host.run({key: job.key, logFile: io.logFile, cwd: io.cwd, timeoutMs: io.timeoutMs, signal, reattach: job.reattach}, command)
        if (result.endedAt !== undefined) io.onCollected?.(result.endedAt)
        return result
      }
    }),
    async sweep(keep) {
      const listed = (await host.list(input.prefix)) ?? []
      // Only the older keys the rows named: another prefix may be another plan's (a plan of this folder whose key it is).
      await host.cancel([...listed, ...older].filter((key) => !keep.has(key)))
    }
  }
}
