import {basename, dirname, join} from 'node:path'
import {planTarget} from './plan-target.js'

/**
 * Where a plan's journal lives: `.mdplan/journal/<plan file>.jsonl` beside the
 * plan (beside its target when it is a symlink, like the lock). One file per
 * plan: only the run that holds the plan's lock writes or removes it.
 */
export function journalFile(planFile: string): string {
  const target = planTarget(planFile)
  return join(dirname(target), '.mdplan', 'journal', `${basename(target)}.jsonl`)
}
