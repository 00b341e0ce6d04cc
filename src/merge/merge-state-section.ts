import type {Agent, Plan} from '../plan/types.js'
import {renderState} from '../store/render-state.js'
import {stateLayout, type LayoutRow, type StateLayout} from '../store/state-layout.js'
import {readMeta, readRows, type TableState} from '../store/table-state.js'
import {mergeTableState, type RowConflict, type TableSide} from './merge-table-state.js'
import {recomputeDerivedNotes} from './recompute-derived-notes.js'

export interface MergedStateSection {
  /** The whole `## Execution State` section, heading to where the next section starts. */
  text: string
  state: TableState
  conflicts: RowConflict[]
}

/**
 * The merged `## Execution State` section, rendered by the store's own
 * renderer into ours' section (theirs' when ours has no table), so the table
 * keeps its style and rows no side changed keep ours' bytes. A row the rule
 * cannot reconcile is written twice between conflict markers that name the
 * agent. Undefined when neither side has a table (the caller merges the text).
 */
export function mergeStateSection(base: Plan | undefined, ours: Plan, theirs: Plan, merged?: {agents: readonly Agent[]; maxAttempts: number}): MergedStateSection | undefined {
  const oursLayout = stateLayout(ours)
  const theirsLayout = stateLayout(theirs)
  const layout = oursLayout ?? theirsLayout
  if (!layout) return undefined
  const baseLayout = base ? stateLayout(base) : undefined
  // The text between the heading and the table (the "managed by" line): one side's edit is kept.
  const pre = oursLayout && theirsLayout && baseLayout && oursLayout.pre === baseLayout.pre ? theirsLayout.pre : layout.pre

  const side = (plan: Plan | undefined): TableSide => (plan ? {rows: readRows(plan), meta: readMeta(plan)} : {rows: new Map(), meta: {}})
  const table = mergeTableState(side(base), side(ours), side(theirs))
  // `blocked by:` describes other rows, which the merge may have changed: computed again, as a run would.
  if (merged) recomputeDerivedNotes(table.state, merged.agents, merged.maxAttempts)
  const start: StateLayout = {...layout, pre}
  const rendered = renderState(start, table.state).layout

  const rows: string[] = []
  const shown = new Set<string>()
  for (const row of rendered.rows) {
    const conflict = table.conflicts.find((candidate) => candidate.agent === row.agent)
    if (!conflict || shown.has(row.agent)) {
      rows.push(row.text, row.eol)
      continue
    }
    shown.add(row.agent)
    const theirsRows = new Map(table.state.rows).set(conflict.agent, conflict.theirs)
    const theirsLine = renderState(start, {rows: theirsRows, meta: table.state.meta}).layout.rows.find((other) => other.agent === row.agent)!
    rows.push(conflictBlock(row, theirsLine, conflict, layout.eol))
  }
  const parts = [rendered.pre, rendered.header.text, rendered.header.eol, rendered.delimiter.text, rendered.delimiter.eol, ...rows]
  for (const line of rendered.post) parts.push(line.text, line.eol)
  return {text: parts.join(''), state: table.state, conflicts: table.conflicts}
}

function conflictBlock(ours: LayoutRow, theirs: LayoutRow, conflict: RowConflict, eol: string): string {
  return [
    `<<<<<<< ours: agent ${conflict.agent}: ${conflict.reason}`,
    ours.text,
    '=======',
    theirs.text,
    `>>>>>>> theirs: agent ${conflict.agent}`
  ].join(eol) + (ours.eol || '')
}
