import {readdirSync} from 'node:fs'
import {legacyLogFolders} from './legacy-log-folders.js'
import {logFolder} from './log-folder.js'

/**
 * The highest attempt number of each agent with a log (`<agent>.<N>.log`) in the plan's log folder or
 * where an older version started from `cwd` (or from above the plan) kept it, read once as a run starts,
 * so no attempt of this run writes to, or takes the number of, an earlier one's log. No folder: none.
 */
export function loggedAttempts(planFile: string, cwd: string): Map<string, number> {
  const found = new Map<string, number>()
  for (const folder of [logFolder(planFile), ...legacyLogFolders(planFile, cwd)]) {
    let names: string[]
    try {
      names = readdirSync(folder)
    } catch {
      continue
    }
    for (const name of names) {
      // The agent is all before the last `.<N>.log` (IDs may hold dots: `a.1`'s third attempt is `a.1.3.log`).
      const match = /^(.+)\.(\d+)\.log$/.exec(name)
      if (!match) continue
      const number = Number(match[2])
      if (number > (found.get(match[1]!) ?? 0)) found.set(match[1]!, number)
    }
  }
  return found
}
