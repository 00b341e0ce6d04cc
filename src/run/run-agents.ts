import type {Scorecard} from '../events.js'
import {journalKeeper} from '../executor/journal-keeper.js'
import {storeTable} from '../executor/exec-row.js'
import {readRunLogs} from '../report/read-run-logs.js'
import {timedAgents} from '../report/agent-times.js'
import {exitCodes} from '../exit-codes.js'
import {verify} from './verify.js'
import {finishRun} from './finish-run.js'
import {localJobsOf} from './local-jobs-of.js'
import {startGit} from './start-git.js'
import {jobSweep} from './job-sweep.js'
import {driveRun} from './drive-run.js'
import {runBudget} from './run-budget.js'
import type {RunSetup, StartedRun} from './run-setup.js'

/** An agent's runner's name; undefined for a row the plan does not define. */
function runnerName(run: StartedRun): (id: string) => string | undefined {
  return (id) => (run.state.byId.has(id) ? run.runnerFor(id).name : undefined)
}

/**
 * The agents' part of a run: git set up, the pre-verification, the sweep of leftover jobs, the executor,
 * the sweep again, and the run's end (src/run/finish-run.ts).
 */
export async function runAgents(setup: RunSetup, run: StartedRun): Promise<{exitCode: number; scorecard: Scorecard}> {
  const {options, plan, store, file, cwd, emit, hosts} = setup
  const {state, runStart} = run
  const git = await startGit(setup, state)

  const everythingDone = state.order.every((id) => state.table.rows.get(id)?.status === 'completed')
  if (!everythingDone && !options.signal?.aborted && plan.preVerification.length > 0) {
    const ok = await verify({phase: 'pre', commands: plan.preVerification, cwd, file, signal: options.signal, emit})
    if (!ok) {
      emit({type: 'warning', message: 'pre-execution verification failed: nothing launched'})
      return finishRun({plan, state, exitCode: options.signal?.aborted ? exitCodes.interrupted : exitCodes.failed, runStart, emit})
    }
  }

  // This machine's jobs: the ones the rows name are looked at once (a dead run's agent may still run, or be done).
  const local = await localJobsOf(file, setup.root, cwd, storeTable(state.table).rows.values(), hosts.runtime?.fence)
  const sweep = jobSweep({state, local: local.jobs, hosts, emit})
  await sweep()
  const keeper = journalKeeper({file, emit, seed: run.journal, table: run.table})
  const final = await driveRun(setup, {...run, git, local, keeper})
  await sweep()
  // The agents whose work ended since `Started:`: a run after a finished one sums only its own parts.
  const timed = (): ReadonlySet<string> | undefined => timedAgents(readRunLogs(file, cwd), final.table.meta.started)
  const finished = await finishRun({plan, state: final, runStart, emit, store, git, verifyAfter: {cwd, file, signal: options.signal}, timed, journaled: keeper.has, runnerOf: runnerName(run), budget: runBudget(options, plan.settings)?.limit})
  // The run's last write may have recorded what the journal kept.
  keeper.afterStep(final)
  return finished
}
