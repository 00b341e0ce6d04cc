import type {RunEvent} from '../events.js'
import type {Emitted} from '../executor/exec-effect.js'
import {openRunLog, runLogFile} from '../layout/run-log.js'

/** Where a run's events go: `emit` stamps one and tells it; `close` closes the run log and says the run's last line. */
export interface RunEvents {
  emit: (event: Emitted) => void
  close: () => void
  /** Hand every event from now on to `listener` too (the run's notifier), the run's last one included. */
  tap: (listener: (event: RunEvent) => void) => void
}

/**
 * Every event also goes to the run log beside the plan (when each agent started and ended: history, a report
 * that times one run), and to `onEvent`, except the run's last line (its scorecard), said once the plan's lock
 * is released (`close`): a run that said it is over holds nothing.
 */
export function openRunEvents(file: string, onEvent: ((event: RunEvent) => void) | undefined): RunEvents {
  const runLog = openRunLog(runLogFile(file))
  let last: RunEvent | undefined
  let tapped: ((event: RunEvent) => void) | undefined
  return {
    emit: (event) => {
      const stamped = {time: new Date().toISOString(), ...event}
      runLog.write(stamped)
      tapped?.(stamped)
      if (stamped.type === 'run-finished') last = stamped
      else onEvent?.(stamped)
    },
    close: () => {
      runLog.close()
      if (last) onEvent?.(last)
    },
    tap: (listener) => {
      tapped = listener
    }
  }
}
