import type {RunEvent} from '../events.js'
import type {Emitted} from '../executor/exec-effect.js'
import {openRunLog, runLogFile} from '../layout/run-log.js'

/** Where a run's events go: `emit` stamps one and tells it; `close` closes the run log and says the run's last line. */
export interface RunEvents {
  emit: (event: Emitted) => void
  close: () => void
}

/**
 * Every event also goes to the run log beside the plan (when each agent started and ended: history, a report
 * that times one run), and to `onEvent`, except the run's last line (its scorecard), said once the plan's lock
 * is released (`close`): a run that said it is over holds nothing.
 */
export function openRunEvents(file: string, onEvent: ((event: RunEvent) => void) | undefined): RunEvents {
  const runLog = openRunLog(runLogFile(file))
  let last: RunEvent | undefined
  return {
    emit: (event) => {
      const stamped = {time: new Date().toISOString(), ...event}
      runLog.write(stamped)
      if (stamped.type === 'run-finished') last = stamped
      else onEvent?.(stamped)
    },
    close: () => {
      runLog.close()
      if (last) onEvent?.(last)
    }
  }
}
