import {realpathSync} from 'node:fs'
import {basename, dirname, join, relative} from 'node:path'
import {planSlug} from './worktree-names.js'
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

/**
 * Where older versions may have kept it: `<folder>/.mdplan/run/<key>.agents`
 * under the folder the run started in, the key being the plan's path from
 * there, without the digest (releases up to dedfb2e: `Plan.md` → `plan`) or
 * with it (builds since). The folder is this run's (`cwd`), or the plan's
 * own or one above it up to the repository's `root`, where a person usually
 * starts a run. These names are shared (`Plan.md` and `plan.md` had one; the
 * key of `plan.md.md` is `plan.md`, the name of `plan.md`'s registry today):
 * what such a file holds is judged process by process (`endLeftovers`).
 */
export function legacyRegistryFiles(planFile: string, cwd: string, root?: string): string[] {
  const folders = [cwd]
  for (let folder = real(dirname(planFile)); root !== undefined && !relative(root, folder).startsWith('..'); folder = dirname(folder)) {
    folders.push(folder)
    if (folder === dirname(folder)) break
  }
  const files = folders.flatMap((folder) => {
    const key = planSlug(planFile, folder)
    return [key.replace(/---[0-9a-f]{8}$/, ''), key].flatMap((name) => {
      const file = join(folder, '.mdplan', 'run', `${name}.agents`)
      return [file, olderRegistryFile(file)]
    })
  })
  return [...new Set(files)]
}

/**
 * Where a run moves what an older version's run of another plan left under
 * this plan's registry name (`plan.md.md`'s older key is `plan.md`), for
 * that plan's rerun to find: `<name>.older.agents`.
 */
export function olderRegistryFile(file: string): string {
  return file.replace(/\.agents$/, '.older.agents')
}

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
