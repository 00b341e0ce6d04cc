import {dirname, join, resolve} from 'node:path'
import {planSlug} from './worktree-names.js'
import {planTarget} from '../store/plan-target.js'

/**
 * Where a plan's notifications wait and are recorded (`outbox.ndjson`, `delivered.ndjson`):
 * `.mdplan/notify/<key>/` beside the plan (beside its target when it is a symlink), keyed as its log folder
 * is, so every run of the plan, and `mdplan serve`, from whatever folder, finds what a killed run queued.
 */
export function notifyFolder(planFile: string): string {
  const target = resolve(planTarget(planFile))
  const folder = dirname(target)
  return join(folder, '.mdplan', 'notify', planSlug(target, folder))
}
