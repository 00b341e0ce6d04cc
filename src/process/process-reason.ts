import {formatDuration} from '../util/format-duration.js'
import type {SpawnResult} from './process-types.js'

/** The last non-empty line of some output, trimmed, without colour codes (opencode colours `Error:`). */
export function lastLine(text: string): string {
  const lines = text.replace(/\x1b\[[0-9;]*m/g, '').split(/\r?\n/)
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = lines[index]!.trim()
    if (line !== '') return line
  }
  return ''
}

/**
 * Why a process ended badly, when the process itself says so (timeout, abort,
 * failed start, killed by a signal); undefined when it simply exited and the
 * runner's own rules decide. `status` is what the agent was last seen doing
 * (`codex: waiting for network (Reconnecting 5/5)`): a timeout says it.
 */
export function processReason(result: SpawnResult, file: string, timeoutMs?: number, status?: string): string | undefined {
  if (result.timedOut) return `timed out after ${formatDuration(timeoutMs ?? 0)}${status ? `; ${status}` : ''}`
  if (result.interrupted) return 'interrupted'
  if (result.spawnFailed) return `could not start \`${file}\`: ${result.error ?? 'unknown error'}`
  if (result.exitCode === undefined && result.signal) return `killed by ${result.signal}`
  return undefined
}

/** `exit N: <last stderr line>` (or the process reason), the one line a failed CLI run gets. */
export function exitReason(result: SpawnResult, file: string, timeoutMs?: number): string {
  const reason = processReason(result, file, timeoutMs)
  if (reason !== undefined) return reason
  const detail = lastLine(result.stderr)
  return detail === '' ? `exit ${result.exitCode}` : `exit ${result.exitCode}: ${detail}`
}
