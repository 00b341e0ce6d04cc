import type {RunRequest} from './runner.js'
import {spawnAgent} from '../process/spawn-agent.js'
import type {SpawnResult} from '../process/process-types.js'

/** Run one attempt's command the way every runner does: the request's folder, environment, log, timeout and abort signal. */
export function spawnRequest(
  request: RunRequest,
  command: {file: string; args: readonly string[]; env?: Record<string, string>; onLine?: (line: string) => void; input?: string}
): Promise<SpawnResult> {
  // Another host: only the attempt's own variables travel (and those the host passes by name), never this machine's environment.
  if (request.host) return request.host.run({...command, env: {...request.options.env, ...command.env}, ...(request.signal ? {signal: request.signal} : {})})
  return spawnAgent({
    file: command.file,
    args: command.args,
    cwd: request.cwd,
    env: command.env ? {...request.options.env, ...command.env} : request.options.env,
    logFile: request.logFile,
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    onLine: command.onLine,
    input: command.input
  })
}
