import {existsSync} from 'node:fs'
import type {Command} from '../plan/types.js'
import {spawnAgent} from '../runners/spawn-agent.js'
import {lastLine} from '../runners/process-reason.js'

export interface CommandsResult {
  ok: boolean
  /** One line on the first failure: which block, its exit code and last line of output. */
  reason?: string
}

/**
 * Run verification blocks one after another (a `bash` block with bash when it
 * is installed, others with `sh`), stopping at the first failure. Output goes
 * to `logFile`, never to the plan.
 */
export async function runCommands(
  commands: readonly Command[],
  options: {cwd: string; logFile: string; signal?: AbortSignal; env?: Record<string, string>}
): Promise<CommandsResult> {
  for (const command of commands) {
    const shell = command.lang === 'bash' && hasBash() ? 'bash' : 'sh'
    const result = await spawnAgent({
      file: shell,
      args: ['-c', command.script],
      cwd: options.cwd,
      env: options.env,
      logFile: options.logFile,
      signal: options.signal
    })
    if (result.exitCode !== 0) {
      const detail = lastLine(result.stderr) || lastLine(result.stdout)
      const where = `line ${command.position.start.line}`
      const how = result.interrupted ? 'interrupted' : `exit ${result.exitCode ?? result.signal}`
      return {ok: false, reason: `block at ${where} failed (${how})${detail ? `: ${detail}` : ''}`}
    }
  }
  return {ok: true}
}

let bash: boolean | undefined
function hasBash(): boolean {
  bash ??= ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash'].some((path) => existsSync(path))
  return bash
}
