import {createWriteStream, type WriteStream} from 'node:fs'
import {dirname, resolve as resolvePath} from 'node:path'
import type {ProcessRegistry} from './process-registry.js'
import {inheritedEnv} from './inherited-env.js'
import {makeDir} from '../util/make-dir.js'
import {spawnProcess} from './spawn-process.js'
import {boundedTail, outputTailBytes} from './bounded-tail.js'
import {lineSplitter} from './line-splitter.js'
import {killGraceMs, signalGroup, trackGroup} from './process-groups.js'
import type {AgentProcess, SpawnResult} from './process-types.js'

export interface SpawnAgentOptions {
  file: string
  args: readonly string[]
  cwd: string
  /** Added to the parent's environment (never written to the log). */
  env?: Record<string, string>
  /** stdout and stderr are appended here; the folder is created. */
  logFile: string
  timeoutMs?: number
  signal?: AbortSignal
  /**
   * Written to the agent's stdin, which is then closed (a prompt too large for
   * argv). Without it stdin is closed from the start.
   */
  input?: string
  /** Each stdout line as it arrives (without its line ending), so JSON-stream runners parse events live. */
  onLine?: (line: string) => void
}

let registry: ProcessRegistry | undefined

/** Record every agent's process group in `next` while it lives (one run at a time per process). */
export function trackProcessGroups(next: ProcessRegistry | undefined): void {
  registry = next
}

/**
 * Run one agent CLI: stdin closed, or fed `input` and then closed (an open pipe makes codex and opencode hang),
 * its own process group (so a timeout or abort kills the whole tree), output
 * appended to the log. Never throws for the agent's failures: they are values.
 */
export async function spawnAgent(options: SpawnAgentOptions): Promise<SpawnResult> {
  const {file, args, cwd, env, logFile, timeoutMs, signal, onLine, input} = options
  if (signal?.aborted) {
    return {timedOut: false, interrupted: true, stdout: '', stderr: '', spawnFailed: false}
  }
  // Synchronously: agents launched together then spawn in the order they were
  // launched (longest remaining path first), not in the order a thread pool
  // happens to answer, and none waits on the others' folders.
  makeDir(dirname(logFile))
  const log = createWriteStream(logFile, {flags: 'a'})
  const logClosed = new Promise<void>((resolve) => {
    log.once('close', resolve)
    log.once('error', () => resolve())
  })

  // The whole environment is built here, not extended: another agent's answer or resume state must not be inherited.
  // PWD names the agent's own folder (a shell sets it so; opencode and other CLIs take their project from it,
  // and mdplan's own PWD is another folder with --cwd or isolation: worktree).
  // On record from before the launch is asked for until its process is over: the forker writes the pid down.
  const tracked = registry
  tracked?.begin()
  const subprocess = spawnProcess(file, args, {cwd, env: {...inheritedEnv(env), PWD: resolvePath(cwd)}, input, registry: tracked?.file})
  const output = captureOutput(subprocess, log, onLine)

  const pid = await subprocess.started
  // Tests only: hold mdplan between the agent's start and everything it does next (recording it, once), so a
  // test can land a SIGKILL in that moment every time instead of by luck.
  const pause = Number(process.env.MDPLAN_TEST_SPAWN_PAUSE_MS)
  if (pid !== undefined && pause > 0) await new Promise((resolve) => setTimeout(resolve, pause))
  const ending = pid === undefined ? undefined : endingOf(pid, timeoutMs, signal)
  const group = pid === undefined ? undefined : trackGroup(pid)
  // Leftover children that still hold stdout would keep the run waiting, and an
  // agent's helpers should not outlive it: end the rest of its group with it.
  if (ending) subprocess.once('exit', () => ending.kill())

  const result = await subprocess
  ending?.dispose()
  group?.forget()
  tracked?.end(pid)
  output.lines.end()
  log.end()
  await logClosed

  const spawnFailed = pid === undefined || (result.exitCode === undefined && result.signal === undefined)
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: ending?.timedOut ?? false,
    interrupted: ending?.interrupted ?? false,
    stdout: output.out.text(),
    stderr: output.err.text(),
    spawnFailed,
    error: spawnFailed ? (result.shortMessage ?? result.message) : undefined
  }
}

/**
 * Every byte of the process's output to the log, stdout's lines to the parser, the last few megabytes of each to
 * the result; a stream that outruns the disk waits for the log, so output never piles up in memory.
 */
function captureOutput(subprocess: AgentProcess, log: WriteStream, onLine: ((line: string) => void) | undefined) {
  const out = boundedTail(outputTailBytes)
  const err = boundedTail(outputTailBytes)
  const lines = lineSplitter(onLine)
  const pauseUntilDrained = (stream: NodeJS.EventEmitter | null): void => {
    const pausable = stream as {pause?: () => void; resume?: () => void} | null
    if (!pausable?.pause || !pausable.resume) return
    pausable.pause()
    log.once('drain', () => pausable.resume?.())
  }
  subprocess.stdout?.on('data', (chunk: Buffer) => {
    out.push(chunk)
    if (!log.write(chunk)) pauseUntilDrained(subprocess.stdout)
    lines.push(chunk)
  })
  subprocess.stderr?.on('data', (chunk: Buffer) => {
    err.push(chunk)
    if (!log.write(chunk)) pauseUntilDrained(subprocess.stderr)
  })
  return {out, err, lines}
}

/** The end of process group `pid` on a timeout or an abort (SIGTERM, SIGKILL after the grace), once. */
function endingOf(pid: number, timeoutMs: number | undefined, signal: AbortSignal | undefined) {
  const state = {timedOut: false, interrupted: false, killing: false}
  const kill = (): void => {
    if (state.killing) return
    state.killing = true
    signalGroup(pid, 'SIGTERM')
    setTimeout(() => signalGroup(pid, 'SIGKILL'), killGraceMs).unref()
  }
  const timer = timeoutMs !== undefined && timeoutMs > 0 ? setTimeout(() => ((state.timedOut = true), kill()), timeoutMs) : undefined
  const onAbort = (): void => {
    state.interrupted = true
    kill()
  }
  signal?.addEventListener('abort', onAbort, {once: true})
  // Aborted while the log folder was being made: the event has already fired.
  if (signal?.aborted) onAbort()
  return {
    kill,
    get timedOut() {
      return state.timedOut
    },
    get interrupted() {
      return state.interrupted
    },
    dispose() {
      if (timer) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }
}
