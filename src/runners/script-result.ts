import type {RunResult} from './runner.js'
import {exitReason} from '../process/process-reason.js'
import type {SpawnResult} from '../process/process-types.js'

/**
 * The result of a plain process (the shell runner, a command template): it
 * succeeded when it exited 0, and its stdout is the final text the result
 * protocol reads.
 */
export function scriptResult(result: SpawnResult, input: {agentId: string; file: string; timeoutMs?: number; started: number}): RunResult {
  const ok = result.exitCode === 0 && !result.timedOut && !result.interrupted
  return {
    ok,
    agentId: input.agentId,
    finalText: result.stdout,
    reason: ok ? undefined : exitReason(result, input.file, input.timeoutMs),
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    interrupted: result.interrupted,
    spawnFailed: result.spawnFailed,
    durationMs: Date.now() - input.started
  }
}
