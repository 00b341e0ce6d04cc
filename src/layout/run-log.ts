import {closeSync, existsSync, openSync, readFileSync, realpathSync, writeSync} from 'node:fs'
import {dirname, join} from 'node:path'
import type {RunEvent} from '../events.js'
import {logFolder} from './log-folder.js'
import {makeDir} from '../util/make-dir.js'

/**
 * The run log: every event of every run of a plan, one JSON object a line
 * (the `--json` shape), appended at `run.ndjson` in the plan's log folder
 * (`.mdplan/logs/<plan>/` beside the plan, whatever folder the run started
 * in). The table keeps what a person reads; the log keeps when each agent
 * started and ended, for `mdplan history` and for a report that times one
 * run. Logs older versions kept elsewhere are read too (`readRunLogs`).
 */
export function runLogFile(planFile: string): string {
  return join(logFolder(planFile), 'run.ndjson')
}

export interface RunLog {
  write(event: RunEvent): void
  close(): void
}

// A state write per event would be most of the log and says nothing about the agents.
const skipped = new Set<RunEvent['type']>(['state-written'])

/**
 * Append a run's events, opening the file at the first (a plan refused before its run starts leaves no
 * log). A log that cannot be written costs the log, never the run.
 */
export function openRunLog(file: string): RunLog {
  let fd: number | undefined
  let failed = false
  return {
    write(event) {
      if (failed || skipped.has(event.type)) return
      try {
        if (fd === undefined) {
          makeDir(dirname(file))
          fd = openSync(file, 'a')
        }
        writeSync(fd, JSON.stringify(event) + '\n')
      } catch {
        failed = true
      }
    },
    close() {
      if (fd !== undefined) closeSync(fd)
      fd = undefined
    }
  }
}

/**
 * The events of every run of `planFile` in one log so far, oldest first. A log may hold other plans' runs
 * (older versions' logs: `plans/a/plan.md` and `plans/b/plan.md` shared one under the file's name): each
 * run's `run-started` names its plan, and only those runs are read, the plan named by any path to the same
 * file (`../plan.md` from `sub/`, a symlink). Lines that do not parse (cut short by a crash) are skipped.
 */
export function readRunLog(file: string, planFile: string): RunEvent[] {
  if (!existsSync(file)) return []
  const events: RunEvent[] = []
  const same = new Map<string, boolean>([[planFile, true]])
  const ours = (plan: unknown): boolean => {
    if (typeof plan !== 'string') return false
    if (!same.has(plan)) same.set(plan, real(plan) === real(planFile))
    return same.get(plan)!
  }
  let reading = false
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    let event: RunEvent
    try {
      event = JSON.parse(line) as RunEvent
    } catch {
      continue
    }
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string' || typeof event.time !== 'string') continue
    if (event.type === 'run-started') reading = ours(event.plan)
    if (reading) events.push(event)
  }
  return events
}

function real(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}
