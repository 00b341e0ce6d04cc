import {resolve} from 'node:path'
import type {Scorecard} from '../events.js'
import {openRunEvents} from './run-events.js'
import {openRunPlan} from './open-run-plan.js'
import {preflightRun} from './preflight-run.js'
import {takeRunLock} from './take-run-lock.js'
import {executeRun} from './execute-run.js'
import type {RunPlanOptions} from './run-options.js'
import {runTracing} from './run-tracing.js'
import {startNotifier} from './start-notifier.js'

export interface RunPlanResult {
  exitCode: number
  scorecard: Scorecard
}

/**
 * Run a plan: validate it, take its lock, then hand it to the executor (a
 * state machine: src/executor/) which launches each agent as soon as its
 * own dependencies are done and writes the table after every launch,
 * completion and failure; then build and integration tests.
 */
export async function runPlan(options: RunPlanOptions): Promise<RunPlanResult> {
  const file = resolve(options.file)
  const cwd = resolve(options.cwd ?? process.cwd())
  const tracing = runTracing()
  const {emit, close, tap} = openRunEvents(file, tracing.listener(options.onEvent))
  const {root, store, plan, templates, notify} = await openRunPlan(options, file, cwd)
  const {runnerOf, hosts} = await preflightRun({options, plan, store, file, cwd, root})
  const {lock, watch} = await takeRunLock(file, store, hosts)
  options.onPlan?.(plan)
  // Only the run that holds the plan sends its notifications: what a killed run left first.
  const notifier = startNotifier(file, notify, emit, tap)
  try {
    tracing.attach(emit)
    const {traceEnv} = tracing
    return await executeRun({options, file, cwd, root, store, plan, emit, runnerOf, hosts, lock: watch, ...(traceEnv ? {traceEnv} : {})}, templates)
  } finally {
    store.close()
    await notifier?.()
    try {
      await lock.release()
    } catch (error) {
      // A read-only folder keeps the lock directory: the next run takes it over (its owner is gone).
      emit({type: 'warning', message: `could not remove the lock ${lock.path}: ${error instanceof Error ? error.message : String(error)}; the next run takes it over`})
    }
    tracing.detach()
    close()
    // The hosts' connections close after that: the plan is free, and the run has said its last line.
    await hosts.runtime?.close()
    await tracing.finish()
  }
}
