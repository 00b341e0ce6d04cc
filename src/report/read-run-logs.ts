import {realpathSync} from 'node:fs'
import {join} from 'node:path'
import type {RunEvent} from '../events.js'
import {planSlug} from '../layout/worktree-names.js'
import {legacyLogFolders} from '../layout/legacy-log-folders.js'
import {readRunLog, runLogFile} from '../layout/run-log.js'

/**
 * The events of every run of `planFile`, oldest run first, from its run log
 * (`runLogFile`) and from those older versions kept under the folder a run
 * started in: `<folder>/.mdplan/logs/<key>/run.ndjson` (`legacyLogFolders`,
 * with this call's `cwd`), and before keys had folders, under the file's
 * name alone in `cwd` (`.mdplan/logs/plan/run.ndjson` for `x/plan.md`). A run
 * is whole in one file, so runs are put in the order they started; a resumed
 * run whose start is in an old log and whose rest is in the new one is two
 * runs, each with its own `run-started`, as any resumed run is.
 */
export function readRunLogs(planFile: string, cwd: string): RunEvent[] {
  const files = [
    runLogFile(planFile),
    ...legacyLogFolders(planFile, cwd).map((folder) => join(folder, 'run.ndjson')),
    join(cwd, '.mdplan', 'logs', planSlug(planFile), 'run.ndjson')
  ]
  // One file reached by two paths (a symlinked folder) is read once: its runs would count twice.
  const read = new Set<string>()
  const runs: RunEvent[][] = []
  for (const file of files) {
    const real = realPath(file)
    if (real === undefined || read.has(real)) continue
    read.add(real)
    // `readRunLog` returns whole runs: its first event is a `run-started`.
    for (const event of readRunLog(file, planFile)) {
      if (event.type === 'run-started' || runs.length === 0) runs.push([])
      runs.at(-1)!.push(event)
    }
  }
  // Stable: runs of one file that started at one moment keep the file's order.
  return runs.sort((a, b) => startOf(a) - startOf(b)).flat()
}

function startOf(run: RunEvent[]): number {
  return Date.parse(run[0]!.time) || 0
}

function realPath(file: string): string | undefined {
  try {
    return realpathSync(file)
  } catch {
    return undefined
  }
}
