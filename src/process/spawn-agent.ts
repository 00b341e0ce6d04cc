import {createWriteStream} from 'node:fs'
import {dirname, resolve as resolvePath} from 'node:path'
import {StringDecoder} from 'node:string_decoder'
import type {ProcessRegistry} from './process-registry.js'
import {inheritedEnv} from './inherited-env.js'
import {makeDir} from '../util/make-dir.js'
import {spawnProcess} from './spawn-process.js'
import {killGraceMs, signalGroup, trackGroup} from './process-groups.js'
import type {SpawnResult} from './process-types.js'

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

  const out: Buffer[] = []
  const err: Buffer[] = []
  const decoder = onLine ? new StringDecoder('utf8') : undefined
  let partial = ''
  subprocess.stdout?.on('data', (chunk: Buffer) => {
    out.push(chunk)
    log.write(chunk)
    if (!onLine || !decoder) return
    const text = partial + decoder.write(chunk)
    let start = 0
    let newline = text.indexOf('\n', start)
    while (newline !== -1) {
      emit(text.slice(start, newline))
      start = newline + 1
      newline = text.indexOf('\n', start)
    }
    partial = text.slice(start)
  })
  subprocess.stderr?.on('data', (chunk: Buffer) => {
    err.push(chunk)
    log.write(chunk)
  })

  function emit(line: string): void {
    try {
      onLine?.(line.endsWith('\r') ? line.slice(0, -1) : line)
    } catch {
      // A parser bug must not take the agent's output (or mdplan) down with it.
    }
  }

  const pid = await subprocess.started
  // Tests only: hold mdplan between the agent's start and everything it does next (recording it, once), so a
  // test can land a SIGKILL in that moment every time instead of by luck.
  const pause = Number(process.env.MDPLAN_TEST_SPAWN_PAUSE_MS)
  if (pid !== undefined && pause > 0) await new Promise((resolve) => setTimeout(resolve, pause))
  let timedOut = false
  let interrupted = false
  let killing = false
  const kill = (): void => {
    if (pid === undefined || killing) return
    killing = true
    signalGroup(pid, 'SIGTERM')
    setTimeout(() => signalGroup(pid, 'SIGKILL'), killGraceMs).unref()
  }
  const timer =
    timeoutMs !== undefined && timeoutMs > 0 && pid !== undefined
      ? setTimeout(() => {
          timedOut = true
          kill()
        }, timeoutMs)
      : undefined
  const onAbort = (): void => {
    interrupted = true
    kill()
  }
  signal?.addEventListener('abort', onAbort, {once: true})
  // Aborted while the log folder was being made: the event has already fired.
  if (signal?.aborted) onAbort()
  const group = pid === undefined ? undefined : trackGroup(pid)
  if (pid !== undefined) {
    // Leftover children that still hold stdout would keep the run waiting, and an
    // agent's helpers should not outlive it: end the rest of its group with it.
    subprocess.once('exit', () => {
      if (!killing) kill()
    })
  }

  const result = await subprocess
  if (timer) clearTimeout(timer)
  signal?.removeEventListener('abort', onAbort)
  group?.forget()
  tracked?.end(pid)
  if (decoder) {
    const rest = partial + decoder.end()
    if (rest !== '') emit(rest)
  }
  log.end()
  await logClosed

  const spawnFailed = pid === undefined || (result.exitCode === undefined && result.signal === undefined)
  return {
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut,
    interrupted,
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    spawnFailed,
    error: spawnFailed ? (result.shortMessage ?? result.message) : undefined
  }
}
