import {readRunLog, runLogFile} from './run-log.js'

/** The launches the plan's run log records (host, job key, time): where a job of the plan may still be. */
export function loggedLaunches(planFile: string): Array<{host?: string; job?: string; time: string}> {
  return readRunLog(runLogFile(planFile), planFile).flatMap((event) => (event.type === 'launched' ? [{host: event.host, job: event.job, time: event.time}] : []))
}
