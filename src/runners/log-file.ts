import {join} from 'node:path'
import {planSlug} from '../git/worktree-names.js'

/** Where one attempt's full output goes: `.mdplan/logs/<plan>/<agent>.<attempt>.log` under the run's folder. */
export function logFile(cwd: string, planFile: string, agent: string, attempt: number | string): string {
  return join(cwd, '.mdplan', 'logs', planSlug(planFile, cwd), `${agent}.${attempt}.log`)
}
