import type {ReadableSpan, SpanExporter} from '@opentelemetry/sdk-trace-base'
import type {RunEvent} from '../events.js'
import {version} from '../version.js'
import {loadOtel, type Otel} from './load-otel.js'
import {RunTracer, type TracedAttempt} from './run-tracer.js'
import {parseTraceparent} from './trace-context.js'

type ExportDone = Parameters<SpanExporter['export']>[1]

/** A run's tracing, when it is on: events in, `TRACEPARENT` out, and the last export at the end. */
export interface RunTracing {
  onEvent: (event: RunEvent) => void
  traceEnv: (attempt: TracedAttempt) => Record<string, string>
  /** Send what is left, within `timeoutMs`; what could not be sent, in one line each. */
  shutdown: (timeoutMs?: number) => Promise<string[]>
}

/**
 * Tracing is on when the environment names an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), as every OpenTelemetry SDK reads it, unless `OTEL_SDK_DISABLED=true`
 * or `OTEL_TRACES_EXPORTER=none`. The exporter takes the rest from the environment too (headers, protocol
 * `http/json`, timeout). A run without the SDK installed goes on untraced, and says how to install it.
 */
export function startTracing(env: NodeJS.ProcessEnv, warn: (message: string) => void, load: () => Otel | {error: string} = loadOtel): RunTracing | undefined {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT
  if (!endpoint || env.OTEL_SDK_DISABLED === 'true' || env.OTEL_TRACES_EXPORTER === 'none') return undefined
  const otel = load()
  if ('error' in otel) {
    warn(`OTEL_EXPORTER_OTLP_ENDPOINT is set, and the run is not traced: ${otel.error}`)
    return undefined
  }
  // The first failure is told as it happens; the last export's, by `shutdown`.
  const failures: string[] = []
  let told = 0
  const exporter = recording(new otel.exporter.OTLPTraceExporter(), (message) => {
    if (told === 0) warn(`could not send the run's trace to ${endpoint}: ${message}`)
    told = Math.max(told, 1)
    failures.push(message)
  })
  const {resources, sdk} = otel
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({'service.name': 'mdplan', 'service.version': version}))
    .merge(resources.detectResources({detectors: [resources.envDetector]}))
  const provider = new sdk.BasicTracerProvider({resource, spanProcessors: [new sdk.BatchSpanProcessor(exporter)]})
  const tracer = new RunTracer(otel, provider.getTracer('mdplan', version), parseTraceparent(env.TRACEPARENT))
  return {
    onEvent: (event) => tracer.onEvent(event),
    traceEnv: (attempt) => tracer.attempt(attempt),
    shutdown: async (timeoutMs = 5000) => {
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)))
      const ended = await Promise.race([provider.shutdown().then(() => 'sent' as const, (error: unknown) => String(error)), late])
      clearTimeout(timer)
      if (ended === 'late') failures.push(`no answer within ${timeoutMs / 1000} s for the last spans`)
      else if (ended !== 'sent' && failures.length === 0) failures.push(ended)
      return failures.slice(told).map((message) => `could not send the run's trace to ${endpoint}: ${message}`)
    }
  }
}

/** The exporter, telling each failed export (the SDK only logs it to its own diagnostics, off by default). */
function recording(exporter: SpanExporter, failed: (message: string) => void): SpanExporter {
  return {
    export: (spans: ReadableSpan[], done: ExportDone) =>
      exporter.export(spans, (result) => {
        // ExportResultCode.SUCCESS is 0 (@opentelemetry/core, not a package mdplan loads itself).
        if ((result.code as number) !== 0) failed(result.error?.message ?? 'the export failed')
        done(result)
      }),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve()
  }
}
