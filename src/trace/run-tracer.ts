import type {Context, Span, Tracer} from '@opentelemetry/api'
import type {RunEvent} from '../events.js'
import type {Otel} from './load-otel.js'
import {formatTraceparent, type TraceContext} from './trace-context.js'

/** One attempt as the executor starts it: what its span is named by and carries. */
export interface TracedAttempt {
  agent: string
  attempt: number
  runner: string
  host?: string
}

/**
 * A run's trace, built from the run's events: the run's span (under the `TRACEPARENT` mdplan was started
 * with, when there is one), one span per attempt from its start to its end, one per pause or usage-limit
 * wait; agent, attempt, runner, host, tokens and cost as attributes (`mdplan.*`). `attempt` starts an
 * attempt's span and gives the `TRACEPARENT` its agent gets.
 */
export class RunTracer {
  #otel: Otel
  #tracer: Tracer
  #run: Span | undefined
  #runContext: Context | undefined
  #parent: Context
  #attempts = new Map<string, Span>()
  #pauses: Array<{span: Span; untilMs: number}> = []

  constructor(otel: Otel, tracer: Tracer, parent: TraceContext | undefined) {
    this.#otel = otel
    this.#tracer = tracer
    const {api} = otel
    this.#parent = parent
      ? api.trace.setSpanContext(api.ROOT_CONTEXT, {traceId: parent.traceId, spanId: parent.spanId, traceFlags: parent.flags, isRemote: true})
      : api.ROOT_CONTEXT
  }

  /** Start the attempt's span; the variables its agent gets (`TRACEPARENT`). */
  attempt(attempt: TracedAttempt): Record<string, string> {
    const key = `${attempt.agent}#${attempt.attempt}`
    this.#attempts.get(key)?.end()
    const attributes = {'mdplan.agent': attempt.agent, 'mdplan.attempt': attempt.attempt, 'mdplan.runner': attempt.runner, ...(attempt.host ? {'mdplan.host': attempt.host} : {})}
    const span = this.#tracer.startSpan(`agent ${attempt.agent}`, {attributes}, this.#context())
    this.#attempts.set(key, span)
    const {traceId, spanId, traceFlags} = span.spanContext()
    return {TRACEPARENT: formatTraceparent({traceId, spanId, flags: traceFlags})}
  }

  onEvent(event: RunEvent): void {
    const {SpanStatusCode} = this.#otel.api
    const at = Date.parse(event.time)
    if (event.type === 'run-started') {
      this.#context()
      this.#run!.setAttributes({'mdplan.plan': event.plan, 'mdplan.agents': event.agents, 'mdplan.concurrency': event.concurrency, 'mdplan.resumed': event.resumed})
    } else if (event.type === 'launched' || event.type === 'agent-id') {
      const span = this.#attempts.get(`${event.agent}#${event.type === 'launched' ? event.attempt : this.#latest(event.agent)}`)
      if (event.agentId) span?.setAttribute('mdplan.agent_id', event.agentId)
      if (event.type === 'launched') span?.setAttributes({'mdplan.resumed': event.resumed, ...(event.job ? {'mdplan.job': event.job} : {})})
    } else if (event.type === 'completed') {
      this.#endAttempt(event.agent, event.attempt, at, {'mdplan.outcome': 'completed', ...(event.tokens !== undefined ? {'mdplan.tokens': event.tokens} : {}), ...(event.costUsd !== undefined ? {'mdplan.cost_usd': event.costUsd} : {})})
    } else if (event.type === 'awaiting-review') {
      this.#endAttempt(event.agent, event.attempt, at, {'mdplan.outcome': 'awaiting_review'})
    } else if (event.type === 'failed') {
      const span = this.#endAttempt(event.agent, event.attempt, at, {'mdplan.outcome': 'failed', 'mdplan.will_retry': event.willRetry}, false)
      span?.setStatus({code: SpanStatusCode.ERROR, message: event.reason})
      span?.end(at)
    } else if (event.type === 'question') {
      this.#endAttempt(event.agent, this.#latest(event.agent), at, {'mdplan.outcome': 'needs_input', 'mdplan.question': event.question})
    } else if (event.type === 'paused') {
      const span = this.#tracer.startSpan(event.account ? 'usage-limit wait' : 'pause', {startTime: at, attributes: {'mdplan.reason': event.reason, ...(event.account ? {'mdplan.account': event.account} : {})}}, this.#context())
      this.#pauses.push({span, untilMs: event.untilMs})
    } else if (event.type === 'run-finished') {
      this.#finish(event.exitCode, at)
    }
  }

  #context(): Context {
    if (!this.#runContext) {
      this.#run = this.#tracer.startSpan('mdplan run', {}, this.#parent)
      this.#runContext = this.#otel.api.trace.setSpan(this.#parent, this.#run)
    }
    return this.#runContext
  }

  #latest(agent: string): number {
    let latest = 0
    for (const key of this.#attempts.keys()) if (key.startsWith(`${agent}#`)) latest = Math.max(latest, Number(key.slice(agent.length + 1)))
    return latest
  }

  #endAttempt(agent: string, attempt: number, at: number, attributes: Record<string, string | number | boolean>, end = true): Span | undefined {
    const key = `${agent}#${attempt}`
    const span = this.#attempts.get(key)
    if (!span) return undefined
    this.#attempts.delete(key)
    span.setAttributes(attributes)
    if (end) span.end(at)
    return span
  }

  /** The run's end ends what is still open: attempts it left running (a Ctrl-C), waits not yet over. */
  #finish(exitCode: number, at: number): void {
    for (const span of this.#attempts.values()) span.setAttribute('mdplan.outcome', 'interrupted').end(at)
    this.#attempts.clear()
    for (const {span, untilMs} of this.#pauses) span.end(Math.min(at, untilMs))
    this.#pauses = []
    this.#context()
    this.#run!.setAttribute('mdplan.exit_code', exitCode)
    if (exitCode !== 0) this.#run!.setStatus({code: this.#otel.api.SpanStatusCode.ERROR, message: `exit code ${exitCode}`})
    this.#run!.end(at)
  }
}
