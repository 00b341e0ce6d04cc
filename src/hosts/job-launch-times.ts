import {readRunLog, runLogFile} from '../layout/run-log.js'

/**
 * When each of these jobs was first launched (ms), from the plan's run log:
 * a rerun that re-attaches to a job counts the attempt's Duration from the
 * job's own start, not from the re-attach (a 6 s job read 109 ms).
 */
export function jobLaunchTimes(planFile: string, keys: ReadonlySet<string>): Map<string, number> {
  const times = new Map<string, number>()
  if (keys.size === 0) return times
  for (const event of readRunLog(runLogFile(planFile), planFile)) {
    if (event.type !== 'launched' || event.job === undefined || !keys.has(event.job)) continue
    const at = Date.parse(event.time)
    const before = times.get(event.job)
    // The first launch is the job's start; a later one re-attached to it.
    if (Number.isFinite(at) && (before === undefined || at < before)) times.set(event.job, at)
  }
  return times
}
