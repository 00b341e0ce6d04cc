import {resolve} from 'node:path'
import {planTarget} from '../store/plan-target.js'
import {planSlug} from './worktree-names.js'

/**
 * A plan's key in its repository (`planSlug` below `root`): its jobs' names, its worktrees and branches. Named
 * by the file a symlink points at, as every `.mdplan/` place of the plan is (jobs-folder.ts, log-folder.ts): a
 * plan run through a link (`plan.md` → `plans/plan.md`) and through its target has one key, so a run by either
 * path re-attaches to, or fences, the jobs the other left. Keyed by the path given, a run through the link named
 * its jobs `…-plan-…` and a run through the target, looking for `…-plans--plan-…`, started the agent again
 * beside them (the runs before this key did: `olderPlanSlugs` in src/run/job-prefixes.ts reads their keys).
 */
export function planKey(planFile: string, root?: string): string {
  return planSlug(resolve(planTarget(planFile)), root)
}
