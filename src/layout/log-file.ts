import {join} from 'node:path'
import {logFolder} from './log-folder.js'

/** Where one attempt's full output goes: `<agent>.<attempt>.log` in the plan's log folder (`logFolder`). */
export function logFile(planFile: string, agent: string, attempt: number | string): string {
  return logFiles(planFile)(agent, attempt)
}

/** `logFile` of one plan, its folder found once (a run asks per launch: the folder costs a few system calls). */
export function logFiles(planFile: string): (agent: string, attempt: number | string) => string {
  const folder = logFolder(planFile)
  return (agent, attempt) => join(folder, `${agent}.${attempt}.log`)
}
