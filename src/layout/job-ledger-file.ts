import {basename, dirname, join} from 'node:path'
import {planTarget} from '../store/plan-target.js'

/**
 * Where a plan remembers the hosts that may hold its jobs: `.mdplan/hosts/<plan file>.json` beside the plan
 * (beside its target when it is a symlink, as its lock and journal are). Only the run that holds the plan's
 * lock, or `mdplan clean` holding it, writes it.
 */
export function jobLedgerFile(planFile: string): string {
  const target = planTarget(planFile)
  return join(dirname(target), '.mdplan', 'hosts', `${basename(target)}.json`)
}
