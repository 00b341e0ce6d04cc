import {untouchedRow, type RowState} from '../store/table-state.js'
import {storeRow} from './exec-row.js'
import type {ExecState} from './exec-state.js'

/**
 * Rows the run knows that the file does not say (its last writes failed, or its lock was lost), with what
 * the file said after mdplan's last write. A table a save damaged (or took away with its section) says
 * nothing any more: then every row that is more than an untouched `pending` is unrecorded too, even one
 * that write had recorded (a completion the damage erased must not make the agent run again). The rows
 * are as the store writes them (the journal keeps them so).
 */
export function unrecordedRows(state: ExecState): Array<{agent: string; row: RowState; base: RowState | undefined}> {
  const out: Array<{agent: string; row: RowState; base: RowState | undefined}> = []
  const unreadable = state.write.unreadable === true
  for (const [agent, known] of state.table.rows) {
    const row = storeRow(known)
    const base = state.write.onDisk.rows.get(agent)
    if (!base || !sameRow(row, base)) out.push({agent, row, base})
    else if (unreadable && !untouchedRow(row)) out.push({agent, row, base})
  }
  return out
}

/** Every cell the same (an extra column missing on one side counts as empty). */
export function sameRow(a: RowState, b: RowState): boolean {
  if (a.status !== b.status || a.held !== b.held || a.agentId !== b.agentId || a.duration !== b.duration || a.notes !== b.notes) return false
  const keys = new Set([...Object.keys(a.extra), ...Object.keys(b.extra)])
  for (const key of keys) if ((a.extra[key] ?? '') !== (b.extra[key] ?? '')) return false
  return true
}
