import {closeSync, existsSync, openSync, readFileSync, writeSync} from 'node:fs'
import {dirname, join} from 'node:path'
import type {RunEvent} from '../events.js'
import {planSlug} from '../git/worktree-names.js'
import {makeDir} from '../util/make-dir.js'

/**
 * The run log: every event of every run of a plan, one JSON object a line
 * (the `--json` shape), appended at `.mdplan/logs/<plan>/run.ndjson` under the
 * run's folder. The table keeps what a person reads; the log keeps when each
 * agent started and ended, for `mdplan history` and for a report that times
 * one run.
 */
export function runLogFile(cwd: string, planFile: string): string {
  const file = join(cwd, '.mdplan', 'logs', planSlug(planFile, cwd), 'run.ndjson')
  // A run log an older version kept under the file's name alone: a resumed run goes on in it.
  const old = join(cwd, '.mdplan', 'logs', planSlug(planFile), 'run.ndjson')
  return old !== file && !existsSync(file) && existsSync(old) ? old : file
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
 * The events of every run of `planFile` so far, oldest first. Two plans with one file name share a log
 * (`plans/a/plan.md`, `plans/b/plan.md`): each run's `run-started` names its plan, and only those runs
 * are read. Lines that do not parse (cut short by a crash) are skipped.
 */
export function readRunLog(file: string, planFile: string): RunEvent[] {
  if (!existsSync(file)) return []
  const events: RunEvent[] = []
  let ours = false
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue
    let event: RunEvent
    try {
      event = JSON.parse(line) as RunEvent
    } catch {
      continue
    }
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string' || typeof event.time !== 'string') continue
    if (event.type === 'run-started') ours = event.plan === planFile
    if (ours) events.push(event)
  }
  return events
}
