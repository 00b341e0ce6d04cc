import {basename} from 'node:path'
import type {NotifyEvent} from './notify-event.js'
import {findOnPath} from './find-on-path.js'
import {sendCommand, type SendCommandOptions} from './send-command.js'
import type {SendResult} from './send-result.js'

/**
 * The desktop: `notify-send` where it is on PATH (title: the plan, body: the event's line; urgency `critical`
 * when it needs you); skipped where it is not. A desktop that cannot show it now (no session bus) will not later
 * either: any failure is permanent.
 */
export async function sendDesktop(event: NotifyEvent, options: SendCommandOptions): Promise<SendResult> {
  const program = findOnPath('notify-send')
  if (!program) return {kind: 'skipped', detail: 'notify-send is not on PATH'}
  const argv = [program, '--app-name=mdplan', `--urgency=${event.needs_you ? 'critical' : 'normal'}`, '--', `mdplan: ${basename(event.plan)}`, event.text]
  return sendCommand(argv, event, {...options, once: true})
}
