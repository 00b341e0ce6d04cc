/** The first retry's delay, before jitter (the next ones double it). */
export const backoffBaseMs = 1000
/** The longest delay between two tries. */
export const backoffCapMs = 5 * 60_000

/**
 * How long to wait before try `tries + 1`, after `tries` failed: exponential (1 s, 2 s, 4 s, … up to 5 min) with
 * "equal jitter" (half of it fixed, half drawn by `random` in [0, 1)), so receivers that failed together are not
 * hit together again; never sooner than a `Retry-After` the receiver asked for (up to the cap). Pure.
 */
export function backoffDelay(tries: number, random: number, retryAfterMs?: number): number {
  const full = Math.min(backoffCapMs, backoffBaseMs * 2 ** Math.max(0, tries - 1))
  const delay = full / 2 + (random * full) / 2
  return Math.round(Math.max(delay, Math.min(retryAfterMs ?? 0, backoffCapMs)))
}
