import {unrecordedRows} from '../../src/executor/unrecorded-rows.js'
import type {JournalEntry} from '../../src/store/journal-lines.js'
import {lockVerdict} from '../../src/store/lock-verdict.js'
import type {ExecSim} from './exec-sim.js'

/** The simulated run's own lock: a live pid on host `here`. */
const owner = {pid: 4242, host: 'here', startedAt: '2026-11-23T00:00:00.000Z'}
export const staleMs = 30_000

/** The run lock is lost under the run (its directory removed, its owner.json replaced). */
export function loseLock(sim: ExecSim, reason: string): void {
  if (sim.finished || sim.lockLost) return
  // Set first: a spawn or a table write the loss itself would cause is a violation too.
  sim.lockLost = true
  sim.dispatch({type: 'lock-lost', reason})
}

/**
 * Another `mdplan run` looks at this run's lock, `ageMs` after its last
 * refresh: from this host (the run lives, maybe stopped with Ctrl-Z, so the
 * lock is never taken over however stale) or from another host (where a pid
 * means nothing: stale means taken over, and this run has lost its lock).
 */
export function intruder(sim: ExecSim, ageMs: number, sameHost: boolean, stopped: boolean): void {
  if (sim.finished || sim.lockLost) return
  const verdict = lockVerdict({
    owner,
    ageMs,
    staleMs,
    ownerlessMs: 2000,
    host: sameHost ? owner.host : 'there',
    isAlive: (pid) => pid === owner.pid,
    isStopped: () => stopped
  })
  if (sameHost && verdict.kind === 'take-over') sim.violations.push(`a live owner on this host was taken over (${ageMs} ms since its refresh, stopped: ${stopped})`)
  if (sameHost && verdict.kind !== (stopped ? 'stopped' : 'held')) sim.violations.push(`a ${stopped ? 'stopped' : 'running'} owner was judged ${verdict.kind}`)
  if (!sameHost && verdict.kind !== (ageMs > staleMs ? 'take-over' : 'held')) sim.violations.push(`another host judged a lock ${ageMs} ms old ${verdict.kind}`)
  if (verdict.kind === 'take-over') loseLock(sim, 'taken over by a run on another host')
}

/** What `finishRun` keeps in the journal when the run ends unable to write its table (or without its lock). */
export function journalAtExit(sim: ExecSim): JournalEntry[] {
  if (!sim.lockLost && sim.state.write.failed === undefined) return []
  return unrecordedRows(sim.state).map(({agent, row, base}) => ({v: 1, plan: 'plan.md', agent, row, base, time: ''}))
}
