import {getNote} from '../plan/notes.js'
import {locate} from '../plan/locate.js'
import type {Plan, Point} from '../plan/types.js'
import {parseJobNote} from './job-key.js'
import {localHostName} from './host-spec.js'

/** A job on another host an `in_progress` row names (`job: <host> <key>`): it may still run there, whatever the plan says now. */
export interface LiveJob {
  agent: string
  host: string
  key: string
  /** Where the row's `job:` note is. */
  place: Point
}

/**
 * The jobs the table's `in_progress` rows name, as the file has them (the
 * row is the write-ahead log: a job is submitted only after its key is on
 * disk, so no other record names a live one). A rerun goes back to each of
 * them on its host, whatever `--host` or the agent's `host` say now: those
 * choose where new attempts go.
 */
export function liveJobs(plan: Plan): LiveJob[] {
  const table = plan.state?.table
  if (!table || table.index.notes < 0) return []
  const jobs: LiveJob[] = []
  const seen = new Set<string>()
  let locator: ReturnType<typeof locate> | undefined
  for (const row of table.rows) {
    // The first row of an agent is its row (readRows).
    if (row.agent === '' || seen.has(row.agent)) continue
    seen.add(row.agent)
    const cell = row.cells[table.index.notes]
    if (row.status !== 'in_progress' || !cell) continue
    const job = parseJobNote(getNote(cell.value, 'job'))
    // This machine's jobs are this machine's whatever the plan declares (src/hosts/local-jobs.ts).
    if (!job || job.host === localHostName) continue
    locator ??= locate(plan.text)
    const at = plan.text.indexOf('job:', cell.position.start.offset)
    const offset = at !== -1 && at < cell.position.end.offset ? at : cell.position.start.offset
    jobs.push({agent: row.agent, ...job, place: locator.point(offset)})
  }
  return jobs
}
