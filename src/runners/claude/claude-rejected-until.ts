/**
 * When claude's account limit resets, to the second, from a stream-json `rate_limit_event` that says the
 * request was refused (2.1.330: `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected",
 * "resetsAt":1795855140,"rateLimitType":"five_hour",…}}`, epoch seconds). Undefined for any other event,
 * an `allowed` one, one a login's extra usage carries on past, or one without a usable time: the failure text is
 * read then, to the minute.
 */
export function claudeRejectedUntil(event: Record<string, unknown>): number | undefined {
  if (event.type !== 'rate_limit_event') return undefined
  const info = event.rate_limit_info as Record<string, unknown> | undefined
  // A login with extra usage goes on past its window: that refusal stops nothing.
  if (info?.status !== 'rejected' || info.isUsingOverage === true || info.overageStatus === 'allowed') return undefined
  const seconds = info.resetsAt
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined
}
