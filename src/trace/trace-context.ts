/**
 * A W3C trace context (`traceparent: 00-<trace id>-<span id>-<flags>`), as mdplan reads it from its own
 * environment (a parent agent's span: a child plan's run nests under it) and hands it to every agent it
 * starts (`TRACEPARENT`), so a CLI that reports its own telemetry nests under the attempt's span.
 */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string
  /** 16 lowercase hex digits, not all zero. */
  spanId: string
  /** The trace flags byte (1: sampled). */
  flags: number
}

const form = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The context a `traceparent` value names; undefined for anything else (an unknown version, zero ids). */
export function parseTraceparent(text: string | undefined): TraceContext | undefined {
  const match = form.exec(text?.trim() ?? '')
  if (!match) return undefined
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string]
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined
  return {traceId, spanId, flags: Number.parseInt(flags, 16)}
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags.toString(16).padStart(2, '0')}`
}
