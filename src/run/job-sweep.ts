import type {ExecState} from '../executor/exec-state.js'
import {storeTable} from '../executor/exec-row.js'
import type {Emitted} from '../executor/exec-effect.js'
import type {LocalJobs} from '../hosts/local-jobs.js'
import {keptJobs} from '../hosts/kept-jobs.js'
import type {HostSetup} from './setup-hosts.js'

/**
 * The sweep a run makes at its start and at its end: this plan's jobs that no row names any more (collected
 * results, a lost attempt's leftovers) ended and removed, here and on every host that may hold one.
 */
export function jobSweep(input: {state: ExecState; local: LocalJobs; hosts: HostSetup; emit: (event: Emitted) => void}): () => Promise<void> {
  const {state, local, hosts, emit} = input
  return async () => {
    // After a lost lock the plan may be another run's, and so may the jobs under its prefix: none is touched.
    if (state.lockLost !== undefined) return
    // A job is kept while the file still names it too: its outcome is not recorded until a write says so,
    // and a Kubernetes Job's pod log is the only copy of its result (a run that ends unable to write leaves
    // it to the next run, whose first write records the outcome).
    const keep = keptJobs([...storeTable(state.table).rows.values(), ...state.write.onDisk.rows.values()])
    await local.sweep(keep)
    // Every host that may hold a job of the plan (whether or not the plan uses it now); one that does not
    // answer keeps its leftovers in the plan's ledger for the next run or `mdplan clean`, and says so.
    for (const message of (await hosts.runtime?.sweep(keep, hosts.used)) ?? []) emit({type: 'warning', message})
  }
}
