import {resolve} from 'node:path'
import type {RunEvent, Scorecard} from '../events.js'
import {startTracing} from '../trace/start-tracing.js'
import {openRunEvents} from './run-events.js'
import {openRunPlan} from './open-run-plan.js'
import {preflightRun} from './preflight-run.js'
import {takeRunLock} from './take-run-lock.js'
import {executeRun} from './execute-run.js'
import type {RunPlanOptions} from './run-options.js'

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
  // What tracing has to say waits for the run's events (after the lock), then goes there as it comes.
  const warnings: string[] = []
  let warn = (message: string): void => void warnings.push(message)
  const tracing = startTracing(process.env, (message) => warn(message))
  const {emit, close} = openRunEvents(file, tracing ? tee(tracing.onEvent, options.onEvent) : options.onEvent)
  const {root, store, plan, templates} = await openRunPlan(options, file, cwd)
  const {runnerOf, hosts} = await preflightRun({options, plan, store, file, cwd, root})
  const {lock, watch} = await takeRunLock(file, store, hosts)
  options.onPlan?.(plan)
  try {
    warn = (message) => emit({type: 'warning', message})
    for (const message of warnings.splice(0)) warn(message)
    const traceEnv = tracing?.traceEnv
    return await executeRun({options, file, cwd, root, store, plan, emit, runnerOf, hosts, lock: watch, ...(traceEnv ? {traceEnv} : {})}, templates)
  } finally {
    store.close()
    try {
      await lock.release()
    } catch (error) {
      // A read-only folder keeps the lock directory: the next run takes it over (its owner is gone).
      emit({type: 'warning', message: `could not remove the lock ${lock.path}: ${error instanceof Error ? error.message : String(error)}; the next run takes it over`})
    }
    warn = (message) => void warnings.push(message)
    close()
    // The hosts' connections close after that: the plan is free, and the run has said its last line.
    await hosts.runtime?.close()
    const unsent = (await tracing?.shutdown()) ?? []
    for (const message of [...warnings, ...unsent]) process.stderr.write(`mdplan: trace: ${message}\n`)
  }
}

function tee(first: (event: RunEvent) => void, second: ((event: RunEvent) => void) | undefined): (event: RunEvent) => void {
  return (event) => {
    first(event)
    second?.(event)
  }
}
