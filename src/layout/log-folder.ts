import {dirname, join, resolve} from 'node:path'
import {planSlug} from './worktree-names.js'
import {planTarget} from '../store/plan-target.js'

/**
 * Where a plan's logs live (each attempt's `<agent>.<N>.log`, the run log
 * `run.ndjson`): `.mdplan/logs/<key>/` beside the plan, beside its target when
 * it is a symlink, as its lock, journal and process registry are. A function
 * of the plan alone: under the folder a run started in, a rerun from another
 * one (`cd sub && mdplan run ../plan.md`, `--cwd`) saw no earlier attempt, so
 * it gave a re-queued agent a number an earlier attempt had had, and `history`
 * and `report` missed the runs started elsewhere.
 *
 * The key is the plan's key in its own folder (`planSlug`): `plan.md` is
 * `plan`, and a name that does not spell itself gets a digest of it
 * (`Plan.md`, `plan.MD`, `a b.md`), so two plans of one folder never share a
 * log folder. Older versions wrote this very folder when the run started in
 * the plan's own folder (the usual case), so those plans keep their logs;
 * the others' are read where they were (`legacyLogFolders`).
 */
export function logFolder(planFile: string): string {
  const target = resolve(planTarget(planFile))
  const folder = dirname(target)
  return join(folder, '.mdplan', 'logs', planSlug(target, folder))
}
