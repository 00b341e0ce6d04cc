import type {RunEvent} from '../events.js'
import type {Emitted} from '../executor/exec-effect.js'
import {openNotifier} from '../notify/notifier.js'
import type {NotifyTarget} from '../notify/notify-target.js'
import {plural} from '../util/plural.js'

/** The longest a run waits at its end for notifications under way (`MDPLAN_NOTIFY_WAIT_MS` changes it). */
export const notifyWaitMs = 5000

/**
 * The run's notifier (docs/notify.md), when the plan has targets: it hears every event from now on. Returns what
 * the run calls at its end: wait for deliveries under way at most `notifyWaitMs`, then say in one line what stays
 * in the outbox for the next run.
 */
export function startNotifier(file: string, targets: readonly NotifyTarget[], emit: (event: Emitted) => void, tap: (listener: (event: RunEvent) => void) => void): (() => Promise<void>) | undefined {
  if (targets.length === 0) return undefined
  const notifier = openNotifier({file, targets, warn: (message) => emit({type: 'warning', message})})
  tap((event) => notifier.event(event))
  return async () => {
    const fromEnv = Number(process.env.MDPLAN_NOTIFY_WAIT_MS)
    const left = await notifier.finish(process.env.MDPLAN_NOTIFY_WAIT_MS && fromEnv >= 0 ? fromEnv : notifyWaitMs)
    if (left > 0) emit({type: 'warning', message: `notify: ${plural(left, 'notification')} not delivered yet, kept in ${notifier.outbox.file}: the next run (or \`mdplan serve\`) sends ${left === 1 ? 'it' : 'them'}`})
  }
}
