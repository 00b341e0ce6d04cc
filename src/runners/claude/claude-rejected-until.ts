/**
 * When claude's account limit resets, to the second, from a stream-json `rate_limit_event` that says the
 * request was refused (2.1.330: `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected",
 * "resetsAt":1795855140,"rateLimitType":"five_hour",…}}`, epoch seconds). Undefined for any other event,
 * an `allowed` one, or one without a usable time: the failure text is read then, to the minute.
 */
export function claudeRejectedUntil(event: Record<string, unknown>): number | undefined {
  if (event.type !== 'rate_limit_event') return undefined
  const info = event.rate_limit_info as Record<string, unknown> | undefined
  if (info?.status !== 'rejected') return undefined
  const seconds = info.resetsAt
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined
}
