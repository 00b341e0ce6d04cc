import {join} from 'node:path'
import {logFolder} from './log-folder.js'

/** Where one attempt's full output goes: `<agent>.<attempt>.log` in the plan's log folder (`logFolder`). */
export function logFile(planFile: string, agent: string, attempt: number | string): string {
  return join(logFolder(planFile), `${agent}.${attempt}.log`)
}
