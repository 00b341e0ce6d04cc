import {normalizeCell} from './escape-cell.js'
import {displayCell} from './display-cell.js'
import {renderRow} from './render-row.js'
import type {LayoutRow, StateLayout} from './state-layout.js'
import {isStandard, notesOfCells, statusCell, type RowState, type TableState} from './table-state.js'
import {durationIntoNotes} from './duration-in-notes.js'
import {spendColumns} from '../plan/spend-columns.js'
import {spendFromNotes, type SpendCells} from './spend-from-notes.js'

/** What the rows of a new table state change in a rendered table. */
export interface RowChanges {
  /** Rows rendered again, by the line they replace… */
  replaced: Map<LayoutRow, LayoutRow>
  /** …and by that line's position. */
  replacedAt: Map<number, LayoutRow>
  /** New rows, queued after the row of the agent before them in plan order (`undefined`: at the top). */
  after: Map<LayoutRow | undefined, LayoutRow[]>
  /** Rows whose line was (re)written. */
  changedRows: number
  /** A value is wider than its column of an aligned table that may not overflow: the table is padded again. */
  widen: boolean
}

/**
 * Render the rows of `desired` that changed (`positions`: where each agent's
 * row is in `layout`; `options`: renderState's). Rows: changed ones get new text; missing ones are
 * queued after the row of the agent before them in plan order (or at the top).
 */
export function renderRows(layout: StateLayout, desired: TableState, positions: ReadonlyMap<string, number>, options: {overflow?: boolean; changed?: readonly string[]}): RowChanges {
  const {style, eol} = layout
  const replaced = new Map<LayoutRow, LayoutRow>()
  const replacedAt = new Map<number, LayoutRow>()
  const after = new Map<LayoutRow | undefined, LayoutRow[]>()
  let previous: LayoutRow | undefined
  let changedRows = 0
  let widen = false
  for (const [agent, row] of entries(desired, positions, options.changed)) {
    const at = positions.get(agent)
    const old = at === undefined ? undefined : layout.rows[at]
    if (old) {
      previous = old
      if (renderedFrom.get(old) === row) continue
      if (unchanged(old, row, layout)) {
        renderedFrom.set(old, row)
        continue
      }
    }
    const values = cellValues(agent, row, layout, old)
    if (old && sameValues(old.values, values, layout.index.status)) {
      renderedFrom.set(old, row)
      continue
    }
    const cells = values.map((value, i) => displayCell(value, i, layout))
    if (style.aligned && !options.overflow && cells.some((cell, i) => cell.length > (style.widths[i] ?? 0))) widen = true
    const line: LayoutRow = {text: renderRow(cells, style), eol, agent, values}
    changedRows++
    renderedFrom.set(line, row)
    if (old) {
      const kept = {...line, eol: old.eol}
      renderedFrom.set(kept, row)
      replaced.set(old, kept)
      replacedAt.set(at!, kept)
    }
    else {
      const queue = after.get(previous) ?? []
      queue.push(line)
      after.set(previous, queue)
      previous = line
      after.set(line, [])
    }
  }
  return {replaced, replacedAt, after, changedRows, widen}
}

/** The rows to look at: all of them, or the changed ones when each has its line. */
function entries(desired: TableState, positions: ReadonlyMap<string, number>, changed: readonly string[] | undefined): Iterable<[string, RowState]> {
  if (!changed || !changed.every((agent) => positions.has(agent) && desired.rows.has(agent))) return desired.rows
  return changed.map((agent) => [agent, desired.rows.get(agent)!])
}

/**
 * The row state a line was rendered from (or found to read back as): a write
 * passes the same row objects for the rows an event did not touch, so a
 * thousand-row table is checked by identity, not cell by cell.
 */
const renderedFrom = new WeakMap<LayoutRow, RowState>()

/** The values a row's cells should read back as, per column. */
function cellValues(agent: string, row: RowState, layout: StateLayout, old: LayoutRow | undefined): string[] {
  const {index, columns} = layout
  const spend = spendColumns(columns)
  const owned = ownedCells(row, layout, old)
  return columns.map((column, i) => {
    if (i === index.agent) return old ? old.values[i]! : agent
    if (i === index.status) return statusCell(row)
    if (i === index.agentId) return normalizeCell(row.agentId)
    if (i === index.duration) return normalizeCell(row.duration)
    if (i === index.notes) return normalizeCell(owned.notes)
    if (i === spend.tokens) return normalizeCell(owned.tokens)
    if (i === spend.cost) return normalizeCell(owned.cost)
    if (isStandard(i, index)) return ''
    const value = row.extra[column]
    return value === undefined ? (old?.values[i] ?? '') : normalizeCell(value)
  })
}

/** A quick check, without building the row's cells (most rows do not change). */
function unchanged(old: LayoutRow, row: RowState, layout: StateLayout): boolean {
  const {index, columns} = layout
  const v = old.values
  if (v[index.status] !== statusCell(row)) return false
  if (index.agentId !== -1 && v[index.agentId] !== row.agentId) return false
  if (index.duration !== -1 && v[index.duration] !== row.duration) return false
  const owned = ownedCells(row, layout, old)
  if (index.notes !== -1 && v[index.notes] !== owned.notes) return false
  const spend = spendColumns(columns)
  if (spend.tokens !== -1 && v[spend.tokens] !== owned.tokens) return false
  if (spend.cost !== -1 && v[spend.cost] !== owned.cost) return false
  for (const column in row.extra) {
    const i = columns.indexOf(column)
    if (i !== -1 && !isStandard(i, index) && v[i] !== row.extra[column]) return false
  }
  return true
}

/**
 * The Notes cell of a row, and its Tokens and Cost cells where the table has them (the spend goes there,
 * out of the Notes: spend-from-notes.ts). A table with no Duration column keeps the duration in the Notes
 * (`took 3m 12s`). A line that reads back as the row keeps its cells (a person's `21002` stays as typed).
 */
function ownedCells(row: RowState, layout: StateLayout, old: LayoutRow | undefined): SpendCells {
  const {index} = layout
  const spend = spendColumns(layout.columns)
  const notesCell = (notes: string): string => (index.duration === -1 ? durationIntoNotes(notes, row.duration) : notes)
  if (spend.tokens === -1 && spend.cost === -1) return {notes: notesCell(row.notes), tokens: '', cost: ''}
  if (old) {
    const read = notesOfCells(old.values, layout)
    const at = (i: number): string => (i === -1 ? '' : (old.values[i] ?? ''))
    if (read.notes === row.notes && (index.duration !== -1 || read.duration === row.duration)) return {notes: at(index.notes), tokens: at(spend.tokens), cost: at(spend.cost)}
  }
  const cells = spendFromNotes(row.notes, spend)
  return {...cells, notes: notesCell(cells.notes)}
}

function sameValues(old: readonly string[], values: readonly string[], status: number): boolean {
  for (let i = 0; i < values.length; i++) {
    const a = old[i] ?? ''
    const b = values[i]!
    if (a === b) continue
    if (i === status && a.toLowerCase().replace(/[\s-]+/g, '_') === b) continue
    return false
  }
  return true
}
