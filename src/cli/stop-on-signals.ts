import type {Io} from './io.js'
import {exitCodes} from '../exit-codes.js'

/**
 * Ctrl-C, SIGTERM and SIGHUP stop the run (`controller` aborts); a second one kills at once. Returns the
 * function that removes the handlers.
 */
export function stopOnSignals(io: Io, controller: AbortController): () => void {
  let interrupts = 0
  const onSignal = (signal: NodeJS.Signals): void => {
    // A closed terminal's hangup can come twice (the kernel's, then the shell's to its jobs): one request to stop.
    if (signal === 'SIGHUP' && interrupts > 0) return
    interrupts++
    if (interrupts > 1) {
      // A second Ctrl-C: kill at once (spawnAgent's exit hook kills the agents' process groups).
      io.stderr('\nmdplan: killed; rows stay in_progress and resume on the next run\n')
      process.exit(exitCodes.interrupted)
    }
    io.stderr(`\nmdplan: ${signal}: stopping; running agents are ended and resume on the next run (Ctrl-C again to kill at once)\n`)
    controller.abort()
  }
  // SIGHUP: the terminal closed or the ssh session dropped. Left to its default it ended mdplan alone and
  // its agents (in their own process groups) ran on, unwatched: it is stopped as Ctrl-C stops it.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
  for (const signal of signals) process.on(signal, onSignal)
  return () => {
    for (const signal of signals) process.off(signal, onSignal)
  }
}
