import {getNote} from '../plan/notes.js'
import type {RowState} from '../store/table-state.js'
import {parseJobNote} from './job-key.js'

/**
 * The jobs a sweep must keep: each `in_progress` row's job (its outcome is not
 * recorded yet), and the job folder any row's `work:` names (the agent's
 * session and work its next attempt goes on with: an answered question, a
 * relaunch). Everything else of the plan's on a host is done with.
 */
export function keptJobs(rows: Iterable<RowState>): Set<string> {
  const keep = new Set<string>()
  for (const row of rows) {
    const job = row.status === 'in_progress' ? parseJobNote(getNote(row.notes, 'job')) : undefined
    const work = parseJobNote(getNote(row.notes, 'work'))
    if (job) keep.add(job.key)
    if (work) keep.add(work.key)
  }
  return keep
}

/** The same jobs, by key, each with why it is kept (for `mdplan clean`), from the rows by agent. */
export function neededJobs(rows: ReadonlyMap<string, RowState>): Map<string, string> {
  const needed = new Map<string, string>()
  for (const [agent, row] of rows) {
    const job = row.status === 'in_progress' ? parseJobNote(getNote(row.notes, 'job')) : undefined
    const work = parseJobNote(getNote(row.notes, 'work'))
    if (job) needed.set(job.key, `${agent} is in_progress with it (the next run goes back to it)`)
    if (work) needed.set(work.key, `${agent}'s session and work are there (its next attempt goes on in it)`)
  }
  return needed
}
