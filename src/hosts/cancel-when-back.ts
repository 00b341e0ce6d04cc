import {setTimeout as sleep} from 'node:timers/promises'
import type {Host} from './host.js'

/**
 * End a lost attempt's job once its host answers again, trying until it is
 * gone or `signal` aborts (the run ends). A host lost past its lease may
 * come back with the job still running: left alone, it would run to its end
 * beside the attempt's retry (its result is never merged: only the key a
 * row names is collected). The sweep at the run's end, and at a later run's
 * start, removes it too if this never could.
 */
export async function cancelWhenBack(host: Host, key: string, signal: AbortSignal, firstWaitMs = 1_000): Promise<void> {
  for (let wait = firstWaitMs; !signal.aborted; wait = Math.min(wait * 2, 10_000)) {
    await sleep(wait, undefined, {signal}).catch(() => undefined)
    if (signal.aborted) return
    // Undefined: the host does not answer yet.
    const listed = await host.list(key).catch(() => undefined)
    if (listed !== undefined && !listed.includes(key)) return
    if (listed !== undefined && !signal.aborted) {
      await host.cancel([key]).catch(() => undefined)
      wait = firstWaitMs / 2
    }
  }
}
