import {basename, dirname} from 'node:path'
import {planTarget} from '../store/plan-target.js'
import {runGit} from './run-git.js'

/**
 * The plan as git's HEAD has it (beside its target when it is a symlink), or undefined (not in a
 * repository, not committed, or git failed). A table found at a run's start that is the committed one
 * was checked out on purpose, a reset; any other table an earlier run had is an editor's stale buffer.
 */
export async function committedPlan(planFile: string): Promise<string | undefined> {
  const target = planTarget(planFile)
  const shown = await runGit(dirname(target), ['show', `HEAD:./${basename(target)}`])
  return shown.ok ? shown.stdout : undefined
}
