import type {Agent} from '../plan/types.js'
import type {TableState} from '../store/table-state.js'
import {emptyExecRow, execTable} from './exec-row.js'
import type {ExecState} from './exec-state.js'
import {readWaits} from './account-waits.js'

/** The executor's state before the first event: the table as read (its Notes as values), a row for every agent. */
export function createExecState(input: {
  agents: readonly Agent[]
  priority: ReadonlyMap<string, number>
  table: TableState
  rateLimitPauseMs: number
  /** After a reset the plan records, how much longer before launching there again (default 30 s). */
  resetMarginMs?: number
  /** The table differs from the file already (an imported side-file, a journal applied): write it first. */
  dirty?: boolean
  /** The table as the file has it, when `table` is not that (default: `table`). */
  onDisk?: TableState
  /** The first launch replaces `Started:` (see ExecState.newTiming). */
  newTiming?: boolean
  /** The highest attempt number of each agent whose logs are on disk (see ExecState.attemptsSeen). */
  attempts?: ReadonlyMap<string, number>
}): ExecState {
  const table = execTable(input.table)
  let added = input.dirty ?? false
  for (const agent of input.agents) {
    if (table.rows.has(agent.id)) continue
    table.rows.set(agent.id, emptyExecRow())
    added = true
  }
  return {
    agents: input.agents,
    byId: new Map(input.agents.map((agent) => [agent.id, agent])),
    order: input.agents.map((agent) => agent.id),
    priority: input.priority,
    table,
    attempts: new Map(),
    write: {seq: 0, doneSeq: 0, inflight: false, dirty: added, onDisk: input.onDisk ?? input.table},
    attemptsSeen: new Map(input.attempts),
    extraAttempts: new Map(),
    heldWarned: new Map(),
    noRetry: new Set(),
    transientRetries: new Map(),
    pausedFor: new Map(),
    answered: new Map(),
    filesCreated: new Set(),
    questionsPending: new Set(),
    approving: new Set(),
    discoveries: [],
    stopping: false,
    failFastTripped: false,
    pausedUntil: 0,
    pauseMs: input.rateLimitPauseMs,
    // A rerun honours the waits the plan records (a person clears one by deleting its line).
    waits: readWaits(table.meta.waits, input.resetMarginMs),
    accountPauseMs: new Map(),
    peakConcurrency: 0,
    finalLook: 'none',
    finished: false,
    hostsLost: new Set(),
    ...(input.newTiming ? {newTiming: true} : {})
  }
}
