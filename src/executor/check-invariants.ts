import type {ExecConfig} from './exec-config.js'
import type {ExecState} from './exec-state.js'
import {slotsUsed} from './schedule-pass.js'
import {accountLoads} from './account-full.js'

/**
 * The executor's promises, stated once. Tests check them after every step;
 * a violation is a bug in `step`, so it throws.
 */
export function checkInvariants(state: ExecState, config: ExecConfig): void {
  const fail = (message: string): never => {
    throw new Error(`executor invariant broken: ${message}`)
  }
  // At most one live attempt per agent holds by construction (a map by agent); the cap does not.
  const used = slotsUsed({state})
  if (used > config.concurrency) fail(`${used} slots held by live attempts, over a concurrency of ${config.concurrency}`)
  for (const attempt of state.attempts.values()) {
    const row = state.table.rows.get(attempt.agent)
    if (row?.status !== 'in_progress') fail(`${attempt.agent} has a live attempt but its row says ${row?.status ?? 'nothing'}`)
    // On disk before spawned: an attempt past `recording` was recorded by a write that finished.
    if (attempt.phase !== 'recording' && attempt.recordedBy > state.write.doneSeq) fail(`${attempt.agent} went past recording before the write that records it was done`)
    if (attempt.previous.status === 'completed') fail(`${attempt.agent} was relaunched although it had completed`)
    // A new attempt never shares a number (a log, an `attempt N:` note) with a failure its row records.
    for (const failed of row?.notes.attempts.keys() ?? []) if (failed >= attempt.attempt) fail(`${attempt.agent} runs as attempt ${attempt.attempt} but its row records attempt ${failed} failed`)
    // The write-ahead log: a remote attempt's key is in its row from the write that records it until it settles.
    const job = row?.notes.job
    if (attempt.key !== undefined && (job?.host !== (attempt.host ?? 'local') || job.key !== attempt.key)) fail(`${attempt.agent} runs as ${attempt.key} but its row's Notes do not name that job`)
  }
  if (config.hosts) {
    const perHost = new Map<string, number>()
    for (const attempt of state.attempts.values()) if (attempt.host !== undefined) perHost.set(attempt.host, (perHost.get(attempt.host) ?? 0) + 1)
    for (const [host, count] of perHost) if (count > config.hosts.slots(host)) fail(`${count} attempts on host ${host}, over its ${config.hosts.slots(host)} slots`)
  }
  // An account never runs more attempts than its cap (each attempt counted on the account it was picked for).
  for (const [account, {live, cap}] of accountLoads({state})) if (live > cap) fail(`${live} attempts on account ${account}, over its cap of ${cap}`)
  // An approved agent's held work is being merged: no attempt of it runs meanwhile, and the run does not end before it is in.
  for (const id of state.approving) if (state.attempts.has(id)) fail(`${id} runs while its approved work is being merged`)
  if (state.finished && state.approving.size > 0) fail('finished while approved work was being merged')
  if (state.finished && state.attempts.size > 0) fail('finished with attempts alive')
  if (state.finished && state.write.inflight) fail('finished with a write under way')
}
