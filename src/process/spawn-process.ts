import type {EventEmitter} from 'node:events'
import {execa} from 'execa'
import {helperSpawn} from './spawn-helper.js'
import {recordProcess} from './process-registry.js'

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

/** How the process ended; `exitCode` and `signal` both undefined: it never started (`shortMessage` says why). */
export interface ProcessOutcome {
  exitCode?: number | undefined
  signal?: string | undefined
  shortMessage?: string | undefined
  message?: string | undefined
}

/** What spawnAgent uses of a subprocess: execa's, or the spawn helper's stand-in for it. */
export interface AgentProcess extends PromiseLike<ProcessOutcome> {
  /** The agent's pid (the leader of its own process group), once it started; undefined if it could not. */
  readonly started: Promise<number | undefined>
  readonly stdout: EventEmitter | null
  readonly stderr: EventEmitter | null
  /** `exit`: the process ended (its streams may still be open). */
  once(event: 'exit', listener: () => void): unknown
}

/**
 * Start an agent's process in its own process group, stdout and stderr
 * piped, failures as values. Through the spawn helper (a small long-lived
 * Node that forks agents, so a launch does not fork mdplan's large heap) unless
 * `MDPLAN_SPAWN_HELPER=0`; then with execa in this process.
 */
export function spawnProcess(file: string, args: readonly string[], options: SpawnProcessOptions): AgentProcess {
  if (process.env.MDPLAN_SPAWN_HELPER !== '0') return helperSpawn(file, args, options)
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env: options.env,
    extendEnv: options.env === undefined,
    // Never an open pipe: codex exec and opencode run wait on it forever. `input` is written, then closed.
    ...(options.inputFile !== undefined ? {inputFile: options.inputFile} : options.input === undefined ? {stdin: 'ignore' as const} : {input: options.input}),
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
    buffer: false,
    reject: false
  })
  // In this process, synchronously after the fork (nothing of ours runs in between).
  if (options.registry !== undefined && subprocess.pid !== undefined) recordProcess(options.registry, subprocess.pid)
  return Object.assign(subprocess, {started: Promise.resolve(subprocess.pid)})
}
