import {createWriteStream} from 'node:fs'
import {boundedTail} from '../../process/bounded-tail.js'
import {spawnProcess} from '../../process/spawn-process.js'

/** How a call to a host ended: `exitCode` undefined when its client never started or was killed. */
export interface RemoteOutcome {
  exitCode: number | undefined
  /** Stdout, unless it went to `stdoutFile` or `onStdout`: its first `keptBytes` at most (a script's short answer). */
  stdout: string
  /** The last `keptBytes` of stderr at most (what it ends with says why a call failed). */
  stderr: string
}

export interface RemoteCallOptions {
  /** A file streamed to stdin (a job's archive, never held in memory). */
  inputFile?: string
  /** Stdout written to this file as it comes. */
  stdoutFile?: string
  /** Stdout handed over as it comes, none of it kept. */
  onStdout?: (chunk: Buffer) => void
  /** Stderr handed over as it comes (the outcome keeps its last bytes all the same). */
  onStderr?: (chunk: Buffer) => void
  signal?: AbortSignal
}

/** What an outcome keeps of stdout and of stderr at most. */
export const keptBytes = 1024 * 1024

/**
 * Run a host's client command (ssh) the way agents run: through the spawn
 * helper during a run, so the launches of a hundred remote agents do not
 * fork the coordinator's large process (and execa's per-call machinery) twice
 * each. Stdin is `inputFile` streamed, or closed; stdout goes to a file, to a
 * callback, or (bounded) into the outcome; stderr to a callback and its tail
 * into the outcome: an output of any size costs bounded memory. A `signal`
 * ends the client's process group.
 */
export function remoteCall(file: string, args: readonly string[], options: RemoteCallOptions = {}): PromiseLike<RemoteOutcome> {
  const child = spawnProcess(file, args, {cwd: process.cwd(), inputFile: options.inputFile})
  const stdout: Buffer[] = []
  let stdoutBytes = 0
  const stderr = boundedTail(keptBytes)
  const sink = options.stdoutFile === undefined ? undefined : createWriteStream(options.stdoutFile)
  child.stdout?.on('data', (chunk: Buffer) => {
    if (sink) sink.write(chunk)
    else if (options.onStdout) options.onStdout(chunk)
    else if (stdoutBytes < keptBytes) {
      stdout.push(chunk.subarray(0, keptBytes - stdoutBytes))
      stdoutBytes += chunk.length
    }
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk)
    options.onStderr?.(chunk)
  })
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
  return Promise.resolve(child).then(async (ended) => {
    options.signal?.removeEventListener('abort', cancel)
    if (sink) await new Promise((resolve) => sink.end(resolve))
    const text = stderr.text()
    return {
      exitCode: ended.exitCode,
      stdout: Buffer.concat(stdout).toString('utf8'),
      stderr: ended.exitCode === undefined && ended.signal === undefined && text === '' ? (ended.shortMessage ?? '') : text
    }
  })
}
