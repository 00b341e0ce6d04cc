import type {EventEmitter} from 'node:events'
import {createWriteStream} from 'node:fs'
import {spawnProcess} from '../../process/spawn-process.js'

/** How a call to a host ended: `exitCode` undefined when its client never started or was killed. */
export interface RemoteOutcome {
  exitCode: number | undefined
  /** Whole stdout, unless it went to `stdoutFile`. */
  stdout: string
  stderr: string
}

/** A client command (ssh) talking to a host: its output live, and how it ended. */
export interface RemoteCall extends PromiseLike<RemoteOutcome> {
  readonly stdout: EventEmitter | null
  readonly stderr: EventEmitter | null
}

/**
 * Run a host's client command (ssh) the way agents run: through the spawn
 * helper during a run, so the launches of a hundred remote agents do not
 * fork the coordinator's large process (and execa's per-call machinery) twice
 * each. Stdin is `inputFile` streamed, or closed; stdout is collected, or
 * written to `stdoutFile`; a `signal` ends the client's process group.
 */
export function remoteCall(file: string, args: readonly string[], options: {inputFile?: string; stdoutFile?: string; signal?: AbortSignal} = {}): RemoteCall {
  const child = spawnProcess(file, args, {cwd: process.cwd(), inputFile: options.inputFile})
  const stdout: Buffer[] = []
  const stderr: Buffer[] = []
  const sink = options.stdoutFile === undefined ? undefined : createWriteStream(options.stdoutFile)
  child.stdout?.on('data', (chunk: Buffer) => (sink ? sink.write(chunk) : stdout.push(chunk)))
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
  const cancel = (): void => {
    void child.started.then((pid) => {
      if (pid === undefined) return
      try {
        process.kill(-pid, 'SIGTERM')
      } catch {
        // Already gone.
      }
    })
  }
  if (options.signal?.aborted) cancel()
  else options.signal?.addEventListener('abort', cancel, {once: true})
  const outcome = Promise.resolve(child).then(async (ended) => {
    options.signal?.removeEventListener('abort', cancel)
    if (sink) await new Promise((resolve) => sink.end(resolve))
    const text = Buffer.concat(stderr).toString('utf8')
    return {
      exitCode: ended.exitCode,
      stdout: Buffer.concat(stdout).toString('utf8'),
      stderr: ended.exitCode === undefined && ended.signal === undefined && text === '' ? (ended.shortMessage ?? '') : text
    }
  })
  return {stdout: child.stdout, stderr: child.stderr, then: (onFulfilled, onRejected) => outcome.then(onFulfilled, onRejected)}
}
