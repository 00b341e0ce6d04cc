/**
 * How one try to deliver ended: sent; worth another try soon (`retry`, with backoff); not possible in this process
 * (`later`: a variable it needs is not set; a later run may have it); refused for good; or not possible on this
 * machine (`skipped`: no `notify-send`).
 */
export type SendResult =
  | {kind: 'ok'}
  | {kind: 'retry'; detail: string; retryAfterMs?: number}
  | {kind: 'later'; detail: string}
  | {kind: 'permanent'; detail: string}
  | {kind: 'skipped'; detail: string}

/**
 * A receiver's answer: 2xx is delivered; 408, 429 and 5xx are tried again (with its `Retry-After`, when it gives
 * one in seconds); any other status (a 4xx: a wrong URL, a refused token; a redirect) would fail the same way
 * every time: permanent. Pure.
 */
export function sendResultOf(status: number, body: string, retryAfter?: string): SendResult {
  if (status >= 200 && status < 300) return {kind: 'ok'}
  const detail = `HTTP ${status}${body.trim() === '' ? '' : `: ${body.replace(/\s+/g, ' ').trim().slice(0, 200)}`}`
  if (status === 408 || status === 429 || status >= 500) {
    const seconds = retryAfter !== undefined && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : undefined
    return {kind: 'retry', detail, ...(seconds !== undefined ? {retryAfterMs: seconds * 1000} : {})}
  }
  return {kind: 'permanent', detail}
}
