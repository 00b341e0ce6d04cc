import {emptyRow, type RowState, type TableMeta, type TableState} from '../store/table-state.js'
import {mergeNotes} from './merge-notes.js'

/** The rows a version of the table really has (not the empty rows an agent without one reads as), and its meta lines. */
export interface TableSide {
  rows: Map<string, RowState>
  meta: TableMeta
}

/** A row the rule cannot reconcile: left to a person, with both versions. */
export interface RowConflict {
  agent: string
  ours: RowState
  theirs: RowState
  reason: string
}

export interface MergedTable {
  /** In ours' row order, rows only theirs has after the row before them there; a conflicted row holds ours' version. */
  state: TableState
  conflicts: RowConflict[]
}

/**
 * Three-way merge of the Execution State, row by row against the base:
 * - a row only one side changed takes that side (a row one side deleted
 *   is kept when the other side has it, changed or not: rows are progress);
 * - a row both changed: a `completed` row beats any other status, an
 *   `awaiting_review` row (work done, held for a person) beats every status but
 *   `completed`, else the side whose `Last updated:` is later wins (ours on a
 *   tie); Notes are
 *   united (every `attempt N:` kept); Agent ID and Duration come with the
 *   winning status;
 * - a row one side moved back to `pending` (a re-queue, or a review's
 *   rejection) while the other completed it (or approved it) is a conflict:
 *   both are someone's intent.
 * `Started:` takes the earlier, `Last updated:` the later; `Build:` and
 * `Integration:` follow the one-side rule, else the later side. Pure.
 */
export function mergeTableState(base: TableSide, ours: TableSide, theirs: TableSide): MergedTable {
  const oursLater = (ours.meta.lastUpdated ?? '') >= (theirs.meta.lastUpdated ?? '')
  const rows = new Map<string, RowState>()
  const conflicts: RowConflict[] = []
  for (const agent of rowOrder(ours, theirs)) {
    const b = base.rows.get(agent) ?? emptyRow()
    const o = ours.rows.get(agent) ?? emptyRow()
    const t = theirs.rows.get(agent) ?? emptyRow()
    // A row one side deleted: ours' row stays as it is; theirs' comes back only if they changed it.
    if (!theirs.rows.has(agent)) rows.set(agent, o)
    else if (!ours.rows.has(agent)) {
      if (!base.rows.has(agent) || !same(t, b)) rows.set(agent, t)
    } else if (same(o, b) || same(o, t)) rows.set(agent, t)
    else if (same(t, b)) rows.set(agent, o)
    else {
      const requeued = (row: RowState): boolean => row.status === 'pending' && b.status !== 'pending'
      if ((o.status === 'completed' && requeued(t)) || (t.status === 'completed' && requeued(o))) {
        const reason = o.status === 'completed' ? 'completed on ours, re-queued (pending) on theirs' : 're-queued (pending) on ours, completed on theirs'
        conflicts.push({agent, ours: o, theirs: t, reason})
        rows.set(agent, o)
        continue
      }
      const oursWins = precedence(o) !== precedence(t) ? precedence(o) > precedence(t) : oursLater
      rows.set(agent, mergeRow(b, oursWins ? o : t, oursWins ? t : o))
    }
  }

  const later = (o: string | undefined, t: string | undefined): string | undefined => (o === undefined ? t : t === undefined || o >= t ? o : t)
  const earlier = (o: string | undefined, t: string | undefined): string | undefined => {
    if (!o) return t || o
    if (!t) return o
    return o <= t ? o : t
  }
  const pick = (key: 'build' | 'integration'): string | undefined => {
    const [b, o, t] = [base.meta[key], ours.meta[key], theirs.meta[key]]
    if ((o ?? '') === (b ?? '')) return t ?? o
    if ((t ?? '') === (b ?? '') || (t ?? '') === (o ?? '')) return o
    return oursLater ? o : t
  }
  const meta: TableMeta = {}
  const set = (key: keyof TableMeta, value: string | undefined): void => {
    if (value !== undefined) meta[key] = value
  }
  set('started', earlier(ours.meta.started, theirs.meta.started))
  set('lastUpdated', later(ours.meta.lastUpdated, theirs.meta.lastUpdated))
  set('build', pick('build'))
  set('integration', pick('integration'))
  return {state: {rows, meta}, conflicts}
}

/** Ours' rows in their order, each row only theirs has placed after the row before it in theirs. */
function rowOrder(ours: TableSide, theirs: TableSide): string[] {
  const order = [...ours.rows.keys()]
  let previous = -1
  for (const agent of theirs.rows.keys()) {
    const at = order.indexOf(agent)
    if (at !== -1) previous = at
    else order.splice(++previous, 0, agent)
  }
  return order
}

/** Which status wins a row both sides changed: the further along the work is (completed, then held for review), else neither. */
function precedence(row: RowState): number {
  return row.status === 'completed' ? 2 : row.status === 'awaiting_review' ? 1 : 0
}

function mergeRow(base: RowState, winner: RowState, loser: RowState): RowState {
  const extra: Record<string, string> = {...loser.extra, ...winner.extra}
  for (const column of Object.keys(extra)) {
    const b = base.extra[column] ?? ''
    const w = winner.extra[column] ?? ''
    if (w === b && loser.extra[column] !== undefined) extra[column] = loser.extra[column]!
  }
  return {
    status: winner.status,
    agentId: winner.agentId || loser.agentId,
    duration: winner.duration || loser.duration,
    notes: mergeNotes(winner.notes, loser.notes),
    extra
  }
}

function same(a: RowState, b: RowState): boolean {
  if (a.status !== b.status || a.agentId !== b.agentId || a.duration !== b.duration || a.notes !== b.notes) return false
  const columns = new Set([...Object.keys(a.extra), ...Object.keys(b.extra)])
  for (const column of columns) if ((a.extra[column] ?? '') !== (b.extra[column] ?? '')) return false
  return true
}
