import {dirname, join, resolve} from 'node:path'
import type {RunEvent} from '../events.js'
import {notifyFolder} from '../layout/notify-folder.js'
import {planTarget} from '../store/plan-target.js'
import {Deliverer} from './deliverer.js'
import {notifyPlanKey} from './event-id.js'
import type {NotifyEvent} from './notify-event.js'
import {notifyEventOf} from './notify-event-of.js'
import {wants, type NotifyTarget} from './notify-target.js'
import {Outbox} from './outbox.js'
import {sendToTarget} from './send-to-target.js'
import type {SendResult} from './send-result.js'

export interface NotifierOptions {
  /** The plan file. */
  file: string
  targets: readonly NotifyTarget[]
  warn: (message: string) => void
  env?: Readonly<Record<string, string | undefined>>
  /** One try (tests); default sendToTarget. */
  send?: (target: NotifyTarget, event: NotifyEvent, signal: AbortSignal) => Promise<SendResult>
  /** The longest one try may take (a webhook's answer, a command's end). */
  timeoutMs?: number
}

export interface Notifier {
  /** A run's event: when it makes a notification some target wants, queued in the outbox (synced) and handed to the worker. */
  event(event: RunEvent): void
  /** Wait at most `ms` for deliveries under way, then stop; resolves to how many deliveries stay in the outbox. */
  finish(ms: number): Promise<number>
  readonly outbox: Outbox
}

/**
 * A plan's notifications for one process (a run, or `mdplan serve`): the outbox under `.mdplan/notify/`, what it
 * still holds for the plan's targets handed to the worker at once, and each new event queued before it is sent.
 * An event whose id the outbox already holds (an earlier run queued it) is not queued or sent again.
 */
export function openNotifier(options: NotifierOptions): Notifier {
  const file = resolve(options.file)
  const outbox = new Outbox(notifyFolder(file))
  const env = options.env ?? process.env
  const timeoutMs = options.timeoutMs ?? 30_000
  const folder = dirname(resolve(planTarget(file)))
  const logFile = join(outbox.folder, 'commands.log')
  const send = options.send ?? ((target, event, signal) => sendToTarget(target, event, {cwd: folder, logFile, timeoutMs, env, signal}))
  const deliverer = new Deliverer({outbox, targets: options.targets, send, warn: options.warn})
  const known = new Set(outbox.entries().map((entry) => entry.event.id))
  // What a killed run (or one that could not wait) left: sent first.
  for (const {event, target} of outbox.pending()) deliverer.deliver(event, [target])
  const context = {planKey: notifyPlanKey(file), plan: file, runStarted: new Date().toISOString()}
  return {
    outbox,
    event(runEvent) {
      if (options.targets.length === 0) return
      const event = notifyEventOf(runEvent, context)
      if (!event || known.has(event.id)) return
      const targets = options.targets.filter((target) => wants(target, event.kind)).map((target) => target.key)
      if (targets.length === 0) return
      known.add(event.id)
      try {
        outbox.append({event, targets})
      } catch (error) {
        options.warn(`notify: could not queue ${event.id} in ${outbox.file} (${error instanceof Error ? error.message : String(error)}); sending it from memory`)
      }
      deliverer.deliver(event, targets)
    },
    async finish(ms) {
      const left = await deliverer.settle(ms)
      deliverer.close()
      return left
    }
  }
}
