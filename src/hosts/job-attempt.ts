import {createWriteStream} from 'node:fs'
import {open} from 'node:fs/promises'
import {dirname} from 'node:path'
import type {HostCommand} from '../process/process-types.js'
import {boundedTail, outputTailBytes} from '../process/bounded-tail.js'
import {lineSplitter} from '../process/line-splitter.js'
import {makeDir} from '../util/make-dir.js'
import type {HostJob, HostRun} from './host.js'

/** What the stderr kept for a result holds at most (its last lines say why a CLI failed). */
const errorTailBytes = 1024 * 1024

/**
 * The frame every engine's attempt runs in: an engine only submits its job (or finds the one the key names)
 * and follows it; the frame owns what is the same everywhere.
 *
 * - `stop` aborts on Ctrl-C (the job's signal) or when the agent's timeout runs out (`interrupted`,
 *   `timedOut` say which);
 * - `out`/`err` take the job's output as it comes: every byte to the attempt's log, stdout's lines to the
 *   runner's parser, the last few megabytes to the result (an output of any size costs bounded memory);
 * - `drain` reads a job file's new bytes (an engine whose job writes `out` and `err` where this machine
 *   reads them);
 * - `finish` ends it all once and returns the attempt's `HostRun`.
 */
export interface JobAttempt {
  readonly stop: AbortSignal
  readonly interrupted: boolean
  readonly timedOut: boolean
  /** The variables the job gets: the attempt's own, and those the host passes by name from this environment. */
  readonly env: Record<string, string>
  out(chunk: Buffer): void
  err(chunk: Buffer | string): void
  /** Append what `file` holds past what was read of it before to stdout or stderr. */
  drain(file: string, into: 'out' | 'err'): Promise<void>
  /** Start the agent's timeout now (engines whose job may wait in a queue start it when the job starts). */
  startTimer(): void
  finish(result: Partial<HostRun>): Promise<HostRun>
}

export function jobAttempt(job: HostJob, command: HostCommand, passed: readonly string[] = [], options: {timerNow?: boolean} = {}): JobAttempt {
  makeDir(dirname(job.logFile))
  const log = createWriteStream(job.logFile, {flags: 'a'})
  const closed = new Promise<void>((resolve) => {
    log.once('close', resolve)
    log.once('error', () => resolve())
  })
  const lines = lineSplitter(command.onLine)
  const stdout = boundedTail(outputTailBytes)
  const stderr = boundedTail(errorTailBytes)
  const offsets = new Map<string, number>()
  const controller = new AbortController()
  let interrupted = false
  let timedOut = false
  let timer: NodeJS.Timeout | undefined
  let finished: Promise<HostRun> | undefined
  const onAbort = (): void => {
    interrupted = true
    controller.abort()
  }
  job.signal?.addEventListener('abort', onAbort, {once: true})
  if (job.signal?.aborted) onAbort()
  const env: Record<string, string> = {...command.env}
  for (const name of passed) if (process.env[name] !== undefined) env[name] = process.env[name]!

  const attempt: JobAttempt = {
    stop: controller.signal,
    get interrupted() {
      return interrupted
    },
    get timedOut() {
      return timedOut
    },
    env,
    out(chunk) {
      log.write(chunk)
      lines.push(chunk)
      stdout.push(chunk)
    },
    err(chunk) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      if (bytes.length === 0) return
      log.write(bytes)
      stderr.push(bytes)
    },
    async drain(file, into) {
      const handle = await open(file, 'r').catch(() => undefined)
      if (!handle) return
      try {
        const buffer = Buffer.alloc(256 * 1024)
        for (;;) {
          const offset = offsets.get(file) ?? 0
          const {bytesRead} = await handle.read(buffer, 0, buffer.length, offset)
          if (bytesRead === 0) return
          offsets.set(file, offset + bytesRead)
          const chunk = Buffer.from(buffer.subarray(0, bytesRead))
          if (into === 'out') attempt.out(chunk)
          else attempt.err(chunk)
          // The log takes what is read before more is: a gigabyte of output never waits in memory for the disk.
          if (log.writableNeedDrain) await new Promise<void>((resolve) => log.once('drain', () => resolve()))
        }
      } finally {
        await handle.close()
      }
    },
    startTimer() {
      if (timer || !job.timeoutMs || job.timeoutMs <= 0) return
      timer = setTimeout(() => {
        timedOut = true
        controller.abort()
      }, job.timeoutMs)
    },
    finish(result) {
      finished ??= (async () => {
        if (timer) clearTimeout(timer)
        job.signal?.removeEventListener('abort', onAbort)
        lines.end()
        if (result.stderr) attempt.err(result.stderr)
        log.end()
        await closed
        const {stderr: _said, ...rest} = result
        return {timedOut, interrupted, spawnFailed: false, ...rest, stdout: stdout.text(), stderr: stderr.text()}
      })()
      return finished
    }
  }
  if (options.timerNow !== false) attempt.startTimer()
  return attempt
}
