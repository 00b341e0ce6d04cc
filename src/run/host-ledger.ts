import {loggedLaunches} from '../layout/logged-launches.js'
import type {RowState} from '../store/table-state.js'
import {openJobLedger, suspectJobs, type JobLedger} from '../hosts/job-ledger.js'

/**
 * The plan's job ledger, with every host that may hold a job of the plan, whatever the plan says now: the
 * ledger, the rows' notes, the run log (read only when the plan declares hosts or something remembers one).
 */
export function hostLedger(file: string, rows: readonly RowState[], declared: boolean): JobLedger {
  const ledger = openJobLedger(file)
  const remembers = ledger.names().length > 0 || rows.some((row) => /(?:^|;\s*)(?:job|work|host):/.test(row.notes))
  if (declared || remembers) {
    const launches = loggedLaunches(file)
    suspectJobs(ledger, rows, launches)
  }
  return ledger
}
