import {createWriteStream, type WriteStream} from 'node:fs'
import {open, stat} from 'node:fs/promises'
import {dirname} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import type {HostCommand} from '../process/process-types.js'
import {boundedTail, outputTailBytes, type BoundedTail} from '../process/bounded-tail.js'
import {lineSplitter} from '../process/line-splitter.js'
import {formatDuration} from '../util/format-duration.js'
import {makeDir} from '../util/make-dir.js'
import {DetachRequest} from './detach-request.js'
import type {HostJob, HostRun} from './host.js'

/** What the stderr kept for a result holds at most (its last lines say why a CLI failed). */
const errorTailBytes = 1024 * 1024

/** What a drain reads of a job file at a time. */
const drainBytes = 256 * 1024

/**
 * How long an engine's job may stay in a state that does not move before the attempt ends (a container left
 * `created`, a state the engine should not be in): `MDPLAN_STUCK_MS`, else a minute.
 */
export function stuckMs(): number {
  const ms = Number(process.env.MDPLAN_STUCK_MS)
  return Number.isFinite(ms) && ms > 0 ? ms : 60_000
}

export interface JobAttemptOptions {
  /** Names of variables the host passes from this environment (its `env:`). */
  passed?: readonly string[]
  /** The host, for a lost attempt's message and its lease (how long it may stay silent). */
  host?: {name: string; leaseMs: number}
  /** Start the agent's timeout now (the default), or when the engine says the job started (`running`). */
  timerNow?: boolean
}

/** How an engine ends a job the attempt was stopped on: `cancel` ends and removes it, `stop` (Ctrl-C) ends it and keeps its folder. */
export interface JobEnd {
  cancel: () => Promise<void>
  stop?: () => Promise<void>
}

/**
 * The frame every engine's attempt runs in: an engine only submits its job (or finds the one the key names)
 * and follows it; the frame owns what is the same everywhere.
 *
 * - `stop` aborts on Ctrl-C (the job's signal) or when the agent's timeout runs out (`interrupted`,
 *   `timedOut` say which); `stopped` ends the job as the reason asks and finishes;
 * - `out`/`err` take the job's output as it comes: every byte to the attempt's log, stdout's lines to the
 *   runner's parser, the last few megabytes to the result (an output of any size costs bounded memory);
 * - `drain` reads a job file's new bytes (an engine whose job writes `out` and `err` where this machine
 *   reads them);
 * - `heard`/`silent`/`lost`: the host's lease; `queued`/`running`: the engine's queue, in the row's Notes,
 *   and the timeout counted from the start;
 * - `notStarted`: the job never started its agent (its end confirmed by the engine): nothing of the attempt
 *   was spent;
 * - `finish` ends it all once (the engine's own leftovers: `onFinish`) and returns the attempt's `HostRun`.
 */
export class JobAttempt {
  readonly stop: AbortSignal
  /** The variables the job gets: the attempt's own, and those the host passes by name from this environment. */
  readonly env: Record<string, string>
  /** The job was there before this run's submit (a rerun re-attached, a submit's answer was lost). */
  attached = false
  #job: HostJob
  #options: JobAttemptOptions
  #controller = new AbortController()
  #log: WriteStream
  #closed: Promise<void>
  #lines: ReturnType<typeof lineSplitter>
  #stdout: BoundedTail = boundedTail(outputTailBytes)
  #stderr: BoundedTail = boundedTail(errorTailBytes)
  #offsets = new Map<string, number>()
  #interrupted = false
  #timedOut = false
  #timer: NodeJS.Timeout | undefined
  #finished: Promise<HostRun> | undefined
  #cleanups: Array<() => unknown> = []
  #lastContact = Date.now()
  #queuedAt: number | undefined
  #queuedNoted = false
  #started = false
  #still: {state: string; since: number} | undefined

  constructor(job: HostJob, command: HostCommand, options: JobAttemptOptions = {}) {
    this.#job = job
    this.#options = options
    this.stop = this.#controller.signal
    makeDir(dirname(job.logFile))
    this.#log = createWriteStream(job.logFile, {flags: 'a'})
    this.#closed = new Promise<void>((resolve) => {
      this.#log.once('close', resolve)
      this.#log.once('error', () => resolve())
    })
    this.#lines = lineSplitter(command.onLine)
    job.signal?.addEventListener('abort', this.#onAbort, {once: true})
    if (job.signal?.aborted) this.#onAbort()
    this.env = {...command.env}
    for (const name of options.passed ?? []) if (process.env[name] !== undefined) this.env[name] = process.env[name]!
    if (options.timerNow !== false) this.startTimer()
  }

  get interrupted(): boolean {
    return this.#interrupted
  }

  get timedOut(): boolean {
    return this.#timedOut
  }

  #onAbort = (): void => {
    this.#interrupted = true
    this.#controller.abort()
  }

  out(chunk: Buffer): void {
    this.#log.write(chunk)
    this.#lines.push(chunk)
    this.#stdout.push(chunk)
  }

  err(chunk: Buffer | string): void {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    if (bytes.length === 0) return
    this.#log.write(bytes)
    this.#stderr.push(bytes)
  }

  /** Append what `file` holds past what was read of it before to stdout or stderr, a bounded chunk at a time. */
  async drain(file: string, into: 'out' | 'err'): Promise<void> {
    // Most looks find nothing new: a stat answers that without opening the file or a buffer (issue 32's bench).
    const size = await stat(file).then(
      (found) => found.size,
      () => undefined
    )
    if (size === undefined || size <= (this.#offsets.get(file) ?? 0)) return
    const handle = await open(file, 'r').catch(() => undefined)
    if (!handle) return
    try {
      // What the stat saw, a bounded chunk at a time, each buffer the chunk's own size (a tail keeps chunks,
      // and a small chunk must not hold a large buffer); what was written since, at the next look.
      for (;;) {
        const offset = this.#offsets.get(file) ?? 0
        if (offset >= size) return
        const buffer = Buffer.allocUnsafe(Math.min(drainBytes, size - offset))
        const {bytesRead} = await handle.read(buffer, 0, buffer.length, offset)
        if (bytesRead === 0) return
        this.#offsets.set(file, offset + bytesRead)
        const chunk = buffer.subarray(0, bytesRead)
        if (into === 'out') this.out(chunk)
        else this.err(chunk)
        // A file reads faster than the log takes it: what waits to be written stays small.
        if (this.#log.writableNeedDrain) await this.#drained()
      }
    } finally {
      await handle.close()
    }
  }

  #drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        this.#log.off('drain', done).off('close', done)
        resolve()
      }
      this.#log.on('drain', done).on('close', done)
    })
  }

  /** Start the agent's timeout now (engines whose job may wait in a queue start it when the job starts). */
  startTimer(): void {
    const ms = this.#job.timeoutMs
    if (this.#timer || !ms || ms <= 0) return
    this.#timer = setTimeout(() => {
      this.#timedOut = true
      this.#controller.abort()
    }, ms)
  }

  /** Wait `ms` between looks at the job; a stop ends the wait at once. */
  pause(ms: number): Promise<void> {
    return sleep(ms, undefined, {signal: this.stop}).catch(() => undefined)
  }

  /** The host answered: its lease starts again (`at`: when it was last known to answer). */
  heard(at = Date.now()): void {
    this.#lastContact = Math.max(this.#lastContact, at)
  }

  /** The host has stayed silent longer than its lease. */
  get silent(): boolean {
    return this.#options.host !== undefined && Date.now() - this.#lastContact > this.#options.host.leaseMs
  }

  /** The attempt's fate is unknown: its host stayed silent past its lease, or its worker is gone. */
  lost(why?: string): Promise<HostRun> {
    return this.finish({lost: true, error: `host lost: ${this.#options.host?.name ?? 'its host'}${why ? ` (${why})` : ''}`})
  }

  /** The job never started its agent and is confirmed ended: the attempt goes again under a new key, nothing of it spent. */
  notStarted(why: string): Promise<HostRun> {
    return this.finish({notStarted: true, error: why})
  }

  /** The engine's job id, or how long it waited in a queue, for the row's Notes. */
  notes(values: Record<string, string | undefined>): void {
    this.#job.onNotes?.(values)
  }

  /** The job was handed to the engine now: its queue time counts from here. */
  submitted(): void {
    this.#queuedAt ??= Date.now()
  }

  /** The engine holds the job in its queue: said once in Notes (`queued: since 10:42:07Z`). */
  queued(): void {
    if (this.#queuedNoted || this.#started) return
    this.#queuedNoted = true
    this.#queuedAt ??= Date.now()
    this.notes({queued: `since ${new Date().toISOString().slice(11, 19)}Z`})
  }

  /** The engine started the job: its queue time goes in Notes, and --agent-timeout counts from now (a queue is not the agent's time). */
  running(): void {
    if (this.#started) return
    this.#started = true
    if (this.#queuedAt !== undefined) this.notes({queued: formatDuration(Date.now() - this.#queuedAt)})
    this.startTimer()
  }

  /**
   * What the engine says of the job now, among states that should move on their own (`created`, a state it
   * does not expect); undefined for one that moves (running, queued). True once the same state has held for
   * longer than `stuckMs()`: the attempt ends there instead of waiting for ever.
   */
  stuck(state: string | undefined): boolean {
    if (state === undefined) return (this.#still = undefined), false
    if (this.#still?.state !== state) this.#still = {state, since: Date.now()}
    return Date.now() - this.#still.since > stuckMs()
  }

  /** Run at finish, before the result is returned: an engine's own leftovers (its archive, its turn). */
  onFinish(cleanup: () => unknown): void {
    this.#cleanups.push(cleanup)
  }

  /**
   * Stopped: after a lost lock the job may be the new owner's, so it is left running (only no longer followed);
   * Ctrl-C ends it as the engine's `stop` does (its folder kept for the rerun), else as `cancel` does; a timeout
   * cancels it. Then finish.
   */
  async stopped(end: JobEnd): Promise<HostRun> {
    if (!DetachRequest.asked(this.#job.signal)) await (this.#timedOut || !end.stop ? end.cancel() : end.stop())
    return this.finish({})
  }

  finish(result: Partial<HostRun>): Promise<HostRun> {
    this.#finished ??= (async () => {
      if (this.#timer) clearTimeout(this.#timer)
      this.#job.signal?.removeEventListener('abort', this.#onAbort)
      for (const cleanup of this.#cleanups) await cleanup()
      this.#lines.end()
      if (result.stderr) this.err(result.stderr)
      this.#log.end()
      await this.#closed
      const {stderr: _said, ...rest} = result
      return {timedOut: this.#timedOut, interrupted: this.#interrupted, spawnFailed: false, attached: this.attached, ...rest, stdout: this.#stdout.text(), stderr: this.#stderr.text()}
    })()
    return this.#finished
  }
}

/** The frame of one attempt (see JobAttempt). */
export function jobAttempt(job: HostJob, command: HostCommand, options: JobAttemptOptions = {}): JobAttempt {
  return new JobAttempt(job, command, options)
}
