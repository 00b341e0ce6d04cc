import type {RunEvent} from '../events.js'
import type {Emitted} from '../executor/exec-effect.js'
import {startTracing, type RunTracing} from '../trace/start-tracing.js'

/**
 * A run's tracing (src/trace/), as the run holds it: what it has to say waits for the run's events (until
 * `attach`, after the lock), then goes there as it comes; after the run's last line, to stderr at `finish`.
 */
export interface RunTracingHold {
  /** The run's listener, the tracer first. */
  listener: (onEvent: ((event: RunEvent) => void) | undefined) => ((event: RunEvent) => void) | undefined
  traceEnv: RunTracing['traceEnv'] | undefined
  attach: (emit: (event: Emitted) => void) => void
  detach: () => void
  /** Send what is left (at most 5 s), and say on stderr what could not be sent. */
  finish: () => Promise<void>
}

export function runTracing(env: NodeJS.ProcessEnv = process.env): RunTracingHold {
  const waiting: string[] = []
  let warn = (message: string): void => void waiting.push(message)
  const tracing = startTracing(env, (message) => warn(message))
  return {
    listener: (onEvent) =>
      tracing
        ? (event) => {
            tracing.onEvent(event)
            onEvent?.(event)
          }
        : onEvent,
    traceEnv: tracing?.traceEnv,
    attach: (emit) => {
      warn = (message) => emit({type: 'warning', message})
      for (const message of waiting.splice(0)) warn(message)
    },
    detach: () => {
      warn = (message) => void waiting.push(message)
    },
    finish: async () => {
      const unsent = (await tracing?.shutdown()) ?? []
      for (const message of [...waiting, ...unsent]) process.stderr.write(`mdplan: trace: ${message}\n`)
    }
  }
}
