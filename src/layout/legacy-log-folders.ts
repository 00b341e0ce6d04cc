import {realpathSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {planSlug} from './worktree-names.js'
import {logFolder} from './log-folder.js'

/**
 * Where older versions kept a plan's logs: `<folder>/.mdplan/logs/<key>/`
 * under the folder the run started in, the key being the plan's path from
 * there (`planSlug(planFile, folder)`: `sub/plan.md` from the repository root
 * is `sub--plan`). That folder is looked for where people start runs: this
 * run's (`cwd`), the plan's own and each one above it (the repository root
 * among them). A key names one path below its folder, so what such a folder
 * holds is this plan's. Read, never moved: attempt numbers go on after the
 * highest found there (`loggedAttempts`), and `history` and `report` read
 * the runs logged there (`readRunLogs`); new logs go to `logFolder`, which is
 * left out here.
 */
export function legacyLogFolders(planFile: string, cwd: string): string[] {
  const file = resolve(planFile)
  const folders = [resolve(cwd)]
  for (let folder = real(dirname(file)); ; folder = dirname(folder)) {
    folders.push(folder)
    if (folder === dirname(folder)) break
  }
  const current = logFolder(file)
  const found = folders.map((folder) => join(folder, '.mdplan', 'logs', planSlug(file, folder)))
  return [...new Set(found)].filter((folder) => folder !== current)
}

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
