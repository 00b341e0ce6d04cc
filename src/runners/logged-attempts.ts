import {readdirSync} from 'node:fs'
import {dirname} from 'node:path'
import {logFile} from './log-file.js'

/**
 * The highest attempt number of each agent with a log under `.mdplan/logs/<plan>/` (`<agent>.<N>.log`),
 * read once as a run starts, so no attempt of this run writes to an earlier one's log. No folder: none.
 */
export function loggedAttempts(cwd: string, planFile: string): Map<string, number> {
  const found = new Map<string, number>()
  let names: string[]
  try {
    names = readdirSync(dirname(logFile(cwd, planFile, 'agent', 1)))
  } catch {
    return found
  }
  for (const name of names) {
    // The agent is all before the last `.<N>.log` (IDs may hold dots: `a.1`'s third attempt is `a.1.3.log`).
    const match = /^(.+)\.(\d+)\.log$/.exec(name)
    if (!match) continue
    const number = Number(match[2])
    if (number > (found.get(match[1]!) ?? 0)) found.set(match[1]!, number)
  }
  return found
}
