import {lastLine} from '../process/process-reason.js'
import {spawnAgent} from '../process/spawn-agent.js'
import type {NotifyEvent} from './notify-event.js'
import type {SendResult} from './send-result.js'

export interface SendCommandOptions {
  /** The plan's folder: where the command runs. */
  cwd: string
  /** Its output goes here (the folder's `commands.log`). */
  logFile: string
  timeoutMs: number
  signal?: AbortSignal
  /** Its exit status says nothing worth another try (the desktop's notify-send): a non-zero exit is permanent. */
  once?: boolean
}

/**
 * Run a command target: the argv as written (no shell), the event as one JSON line on stdin, in the plan's folder,
 * with `MDPLAN_NOTIFY_ID` and `MDPLAN_NOTIFY_KIND` set; in its own process group (a timeout ends all of it), forked
 * by the spawn helper. Exit 0 is delivered; another exit or no end in time is tried again; a program that cannot
 * start (not found, not executable) is a permanent failure.
 */
export async function sendCommand(argv: readonly string[], event: NotifyEvent, options: SendCommandOptions): Promise<SendResult> {
  const [file, ...args] = argv as [string, ...string[]]
  const result = await spawnAgent({
    file,
    args,
    cwd: options.cwd,
    env: {MDPLAN_NOTIFY_ID: event.id, MDPLAN_NOTIFY_KIND: event.kind},
    logFile: options.logFile,
    timeoutMs: options.timeoutMs,
    input: JSON.stringify(event) + '\n',
    ...(options.signal ? {signal: options.signal} : {})
  })
  if (result.spawnFailed) return {kind: 'permanent', detail: `could not start ${file}: ${result.error ?? 'not found'}`}
  if (result.exitCode === 0) return {kind: 'ok'}
  const why = result.timedOut ? `no end within ${Math.round(options.timeoutMs / 1000)} s` : result.signal ? `ended by ${result.signal}` : `exit ${result.exitCode}`
  const said = lastLine(result.stderr || result.stdout)
  const detail = `${file}: ${why}${said ? `: ${said}` : ''}`
  return options.once ? {kind: 'permanent', detail} : {kind: 'retry', detail}
}
