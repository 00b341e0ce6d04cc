import type {ExecEvent, Input} from './exec-event.js'
import type {ExecState} from './exec-state.js'
import {checkInvariants} from './check-invariants.js'
import {step} from './step.js'
import {watchPlan} from './watch-plan.js'
import {heldPlaces} from './held-places.js'
import type {Driver, DriverInput} from './driver.js'
import {performEffect} from './perform-effect.js'

export type {DriverInput} from './driver.js'

/**
 * The thin imperative shell around `step`: one queue of events, fed to
 * `step` one at a time; each effect `step` returns is performed
 * (perform-effect.ts) and its result comes back as an event. Resolves with
 * the final state.
 */
export function driveExecutor(input: DriverInput): Promise<ExecState> {
  const {config} = input
  const now = input.now ?? Date.now
  let state = input.state
  const queue: ExecEvent[] = []
  let draining = false
  let drainScheduled = false
  let done!: (state: ExecState) => void
  const finished = new Promise<ExecState>((resolve) => (done = resolve))

  // One event at a time, in order: an effect's result is queued, never handled inside another step.
  // The queue is drained after the I/O of this turn of the event loop, not at once: processes that
  // ended together, and writes and checks that finished meanwhile, are stepped as one batch (each
  // but the last marked `more`), so they share one scheduling pass and one write.
  const dispatch = (event: Input): void => {
    queue.push({...event, now: now()})
    if (draining || drainScheduled) return
    drainScheduled = true
    setImmediate(drain)
  }

  const drain = (): void => {
    drainScheduled = false
    draining = true
    try {
      while (queue.length > 0 && !state.finished) {
        const event = queue.shift()!
        if (queue.length > 0) event.more = true
        const result = step(state, event, config)
        state = result.state
        if (input.checkInvariants) checkInvariants(state, config)
        // Before any effect: a completion the table cannot take is on disk before the run can be killed.
        input.journal?.afterStep(state)
        for (const effect of result.effects) performEffect(driver, effect)
      }
    } finally {
      draining = false
    }
  }

  const onAbort = (): void => dispatch({type: 'abort'})
  const watch = watchPlan({store: input.store, file: input.file, cwd: input.cwd, plan: input.plan, pollMs: input.pollMs, dispatch, state: () => state, unplaceable: config.unplaceable})
  const driver: Driver = {
    input,
    now,
    state: () => state,
    dispatch,
    later: (work) => {
      void work().then((events) => {
        for (const event of Array.isArray(events) ? events : [events]) dispatch(event)
      })
    },
    watch,
    held: heldPlaces(() => input.store.plan),
    controllers: new Map(),
    endedAt: new Map(),
    timers: new Set(),
    finish: () => {
      for (const timer of driver.timers) clearTimeout(timer)
      driver.timers.clear()
      watch.stop()
      input.signal?.removeEventListener('abort', onAbort)
      done(state)
    }
  }
  if (input.signal?.aborted) queue.push({type: 'abort', now: now()})
  input.signal?.addEventListener('abort', onAbort, {once: true})
  input.lock?.onLost((error) => dispatch({type: 'lock-lost', reason: error.message}))
  for (const event of watch.initial(state)) queue.push({...event, now: now()})
  dispatch({type: 'start'})
  return finished
}
