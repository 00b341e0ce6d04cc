import {setNote} from '../plan/notes.js'
import {mergeNoteItems} from './merge-note-items.js'
import {mergeWaitLines} from './merge-wait-lines.js'
import {metaKeys, statusCell, type RowState, type TableMeta, type TableState} from './table-state.js'

export interface HumanEdit {
  agent: string
  column: string
  from: string
  to: string
}

export interface Conflict {
  agent: string
  column: string
  mine: string
  theirs: string
  winner: 'person' | 'mdplan'
}

export interface MergeResult {
  state: TableState
  humanEdits: HumanEdit[]
  conflicts: Conflict[]
  /** Agents whose row the person deleted (the base had it, their table has not): mdplan's row is back. */
  restored: string[]
}

type Cell = 'status' | 'agentId' | 'duration' | 'notes'
/** The standard cells of a row and their column headers. */
export const cells: Array<[Cell, string]> = [
  ['status', 'Status'],
  ['agentId', 'Agent ID'],
  ['duration', 'Duration'],
  ['notes', 'Notes']
]

/**
 * Three-way merge of the table, cell by cell. `base` is what mdplan last
 * wrote, `mine` what it wants now, `theirs` what the file says now (only the
 * rows it really has). A cell only one side changed takes that side's value;
 * when both changed it the person wins, unless the agent is running (mdplan
 * knows better then); either way the row's Notes say so. Notes merge item by
 * item (mergeNoteItems): the person's own items always stand. A row the person
 * deleted comes back (its agent still exists); a row only they have is kept.
 * `Last updated:` is mdplan's: it stamps every write. Pure.
 */
export function mergeState(base: TableState, mine: TableState, theirs: {rows: Map<string, RowState>; meta: TableMeta}, running: ReadonlySet<string>): MergeResult {
  const humanEdits: HumanEdit[] = []
  const conflicts: Conflict[] = []
  const restored: string[] = []
  const rows = new Map<string, RowState>()

  for (const [agent, want] of mine.rows) {
    const had = base.rows.get(agent)
    const now = theirs.rows.get(agent)
    if (!now) {
      if (had) restored.push(agent)
      rows.set(agent, copy(want))
      continue
    }
    const was = had ?? now
    // Most rows: the person did not touch them, mdplan's row stands as it is.
    if ((was === now || sameRow(was, now)) && coversExtra(want, now)) {
      rows.set(agent, want)
      continue
    }
    const merged = copy(want)
    const notes: string[] = []
    const pick = (column: string, b: string, m: string, t: string): string => {
      if (t === b) return m
      humanEdits.push({agent, column, from: b, to: t})
      if (m === b || m === t) return t
      const winner = running.has(agent) ? 'mdplan' : 'person'
      conflicts.push({agent, column, mine: m, theirs: t, winner})
      const kept = winner === 'person' ? t : m
      notes.push(`${column} kept ${kept || '—'}`)
      return kept
    }
    for (const [key, column] of cells) {
      if (key === 'notes') continue
      if (key !== 'status') {
        merged[key] = pick(column, was[key], want[key], now[key])
        continue
      }
      // Status by the cell's text, so `skipped` (held: no status mdplan knows) is an edit, not a `pending`.
      const from = pick(column, statusCell(was), statusCell(want), statusCell(now)) === statusCell(want) ? want : now
      merged.status = from.status
      if (from.held === undefined) delete merged.held
      else merged.held = from.held
    }
    if (now.notes !== was.notes) {
      humanEdits.push({agent, column: 'Notes', from: was.notes, to: now.notes})
      // Item by item: the person's own items are kept even in a running agent's row, and mdplan's items beside them.
      const items = mergeNoteItems(was.notes, want.notes, now.notes, running.has(agent))
      merged.notes = items.notes
      if (items.clashed.length > 0) {
        const winner = running.has(agent) ? 'mdplan' : 'person'
        conflicts.push({agent, column: 'Notes', mine: want.notes, theirs: now.notes, winner})
        notes.push(`Notes kept ${winner === 'person' ? "the person's" : "mdplan's"} ${items.clashed.join(' and ')}`)
      }
    }
    const columns = new Set([...Object.keys(want.extra), ...Object.keys(now.extra)])
    for (const column of columns) {
      const value = pick(column, was.extra[column] ?? '', want.extra[column] ?? now.extra[column] ?? '', now.extra[column] ?? '')
      merged.extra[column] = value
    }
    if (notes.length > 0) merged.notes = setNote(merged.notes, 'conflict', notes.join(', '))
    rows.set(agent, merged)
  }
  for (const [agent, row] of theirs.rows) if (!rows.has(agent)) rows.set(agent, copy(row))

  const meta = mergeMeta(base.meta, mine.meta, theirs.meta, humanEdits)
  return {state: {rows, meta}, humanEdits, conflicts, restored}
}

/** The lines after the table, line by line: a person's edit stands, except on `Last updated:`. */
function mergeMeta(base: TableMeta, mine: TableMeta, theirs: TableMeta, humanEdits: HumanEdit[]): TableMeta {
  const meta: TableMeta = {}
  for (const [name, , label] of metaKeys) {
    const b = base[name]
    const m = mine[name]
    const t = theirs[name]
    // A line that is missing and one that says `—` both mean "none": not an edit.
    if (name === 'lastUpdated' || (t ?? '') === (b ?? '')) {
      if (m !== undefined) meta[name] = m
      else if (t !== undefined) meta[name] = t
      continue
    }
    humanEdits.push({agent: '', column: label, from: b ?? '', to: t ?? ''})
    if (t !== undefined) meta[name] = t
    else if (m !== undefined && m !== b) meta[name] = m
  }
  // The wait lines, account by account: a person's edit (a line deleted to clear a wait) stands, unless mdplan
  // recorded a newer limit of that account meanwhile.
  const waits = mergeWaitLines(base.waits, mine.waits, theirs.waits)
  if (waits.edited) humanEdits.push({agent: '', column: 'Waits', from: base.waits ?? '', to: theirs.waits ?? ''})
  if (waits.text !== undefined) meta.waits = waits.text
  // The budget line is worked out from the rows and the budget: mdplan's, when it says one.
  const budget = mine.budget ?? theirs.budget
  if (budget !== undefined) meta.budget = budget
  return meta
}

function sameRow(a: RowState, b: RowState): boolean {
  if (a.status !== b.status || a.held !== b.held || a.agentId !== b.agentId || a.duration !== b.duration || a.notes !== b.notes) return false
  for (const column in b.extra) if ((a.extra[column] ?? '') !== b.extra[column]) return false
  return true
}

/** Whether `want` has every user column `now` has (or the merge must take `now`'s value for it). */
function coversExtra(want: RowState, now: RowState): boolean {
  for (const column in now.extra) if (!(column in want.extra)) return false
  return true
}

function copy(row: RowState): RowState {
  return {...row, extra: {...row.extra}}
}

