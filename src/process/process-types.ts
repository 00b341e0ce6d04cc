/**
 * The shapes the process layer hands up: how to start a process, how it ended, and what a runner asks a host
 * to run. Apart from the code, so spawn-process, the spawn helper, runners and hosts share them without a cycle.
 */
import type {EventEmitter} from 'node:events'

/** What a runner asks to run (argv, environment, stdin), wherever it runs. */
export interface HostCommand {
  file: string
  args: readonly string[]
  /** The attempt's own variables (MDPLAN_*, a retry's context); the host adds the ones it passes by name. */
  env?: Record<string, string>
  input?: string
  onLine?: (line: string) => void
  /** The runner's own reason to end the attempt early (claude's authentication retries), beside the run's signal. */
  signal?: AbortSignal
}

/** What spawnAgent uses of a subprocess: execa's, or the spawn helper's stand-in for it. */
export interface AgentProcess extends PromiseLike<ProcessOutcome> {
  /** The agent's pid (the leader of its own process group), once it started; undefined if it could not. */
  readonly started: Promise<number | undefined>
  readonly stdout: EventEmitter | null
  readonly stderr: EventEmitter | null
  /** `exit`: the process ended (its streams may still be open). */
  once(event: 'exit', listener: () => void): unknown
  /**
   * Stop following the process and let this one exit without waiting for it: a job handed over to another run
   * (a lost lock), which goes on alone. Its outcome is never told.
   */
  release?(): void
}

/** How the process ended; `exitCode` and `signal` both undefined: it never started (`shortMessage` says why). */
export interface ProcessOutcome {
  exitCode?: number | undefined
  signal?: string | undefined
  shortMessage?: string | undefined
  message?: string | undefined
}

export interface SpawnProcessOptions {
  cwd: string
  /** The process's whole environment (not added to mdplan's own); undefined values are left out. Default: mdplan's. */
  env?: Record<string, string | undefined> | undefined
  /** Written to stdin, which is then closed; without it (or `inputFile`) stdin is closed from the start. */
  input?: string | Uint8Array | undefined
  /** A file streamed to stdin, which is then closed (a large archive, never held in memory). */
  inputFile?: string | undefined
  /**
   * The run's process registry: the process is written into it as soon as it exists, before anyone
   * learns its pid. By the spawn helper, which outlives a SIGKILL of mdplan, so a kill at any moment
   * after the fork leaves it on record; without the helper, by this process right after its fork (a
   * kill within those microseconds still leaves one unrecorded).
   */
  registry?: string | undefined
}

export interface SpawnResult {
  exitCode?: number
  signal?: string
  timedOut: boolean
  interrupted: boolean
  stdout: string
  stderr: string
  /** The executable could not be started (missing, not executable, bad cwd). */
  spawnFailed: boolean
  error?: string
}
