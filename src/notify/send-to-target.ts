import type {NotifyEvent} from './notify-event.js'
import type {NotifyTarget} from './notify-target.js'
import {postJson} from './post-json.js'
import {sendCommand} from './send-command.js'
import {sendDesktop} from './send-desktop.js'
import type {SendResult} from './send-result.js'
import {webhookRequest} from './webhook-request.js'

export interface SendOptions {
  /** The plan's folder (commands run there). */
  cwd: string
  /** Where commands' output goes. */
  logFile: string
  /** The longest one try may take. */
  timeoutMs: number
  env: Readonly<Record<string, string | undefined>>
  signal?: AbortSignal
}

/** One try to deliver `event` to `target`; never throws. */
export async function sendToTarget(target: NotifyTarget, event: NotifyEvent, options: SendOptions): Promise<SendResult> {
  const {signal} = options
  const run = {cwd: options.cwd, logFile: options.logFile, timeoutMs: options.timeoutMs, ...(signal ? {signal} : {})}
  switch (target.type) {
    case 'webhook':
    case 'slack': {
      const request = webhookRequest(target, event, options.env)
      // The variable may be set for the next run: left in the outbox, not failed.
      if ('missing' in request) return {kind: 'later', detail: `${request.missing} is not set`}
      return postJson(request, {timeoutMs: options.timeoutMs, ...(signal ? {signal} : {})})
    }
    case 'command':
      return sendCommand(target.argv, event, run)
    case 'desktop':
      return sendDesktop(event, run)
  }
}
