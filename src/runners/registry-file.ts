import {basename, dirname, join} from 'node:path'
import {planSlug} from '../git/worktree-names.js'
import {planTarget} from '../store/plan-target.js'

/**
 * Where a plan's process registry lives: `.mdplan/run/<plan file>.agents`
 * beside the plan (beside its target when it is a symlink), as its lock and
 * journal do. A function of the plan alone, so a rerun finds the agents a
 * killed run left whatever folder either was started from (`cd sub && mdplan
 * run ../plan.md`, `--cwd`): under the folder a run started in, a rerun from
 * another one found nothing and ran the agents again beside the orphans. Two
 * runs that share this file share the plan's lock, so never run at once.
 */
export function registryFile(planFile: string): string {
  const target = planTarget(planFile)
  return join(dirname(target), '.mdplan', 'run', `${basename(target)}.agents`)
}

/** Where versions before this one kept it: under the run's folder (`cwd`), named by the plan's key from there. */
export function legacyRegistryFile(planFile: string, cwd: string): string {
  return join(cwd, '.mdplan', 'run', `${planSlug(planFile, cwd)}.agents`)
}
