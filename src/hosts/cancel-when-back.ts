import {setTimeout as sleep} from 'node:timers/promises'
import type {Host} from './host.js'

/**
 * End a lost attempt's job once its host answers again, trying until it is
 * gone or `signal` aborts (the run ends). A host lost past its lease may
 * come back with the job still running: left alone, it would run to its end
 * beside the attempt's retry (its result is never merged: only the key a
 * row names is collected). A retry on the same host never waits on this: it
 * ends the job itself before it is submitted (HostRuntime.fence). The sweep
 * at a later run's start (or `mdplan clean`) removes it if this never could:
 * the plan's ledger remembers the host.
 */
export async function cancelWhenBack(host: Host, key: string, signal: AbortSignal, firstWaitMs = 500): Promise<void> {
  // Each look at a host that does not answer takes a few seconds of its own (the engine tries to reach it): the
  // wait between looks stays short, so a host that comes back has the job ended within about two seconds.
  for (let wait = firstWaitMs; !signal.aborted; wait = Math.min(wait * 2, 2_000)) {
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
