import {escapeCell, normalizeCell} from './escape-cell.js'
import {renderDelimiter, renderRow} from './render-row.js'
import {splitRaw} from './detect-table-style.js'
import {headerCells, type LayoutRow, type StateLayout, type TableLine} from './state-layout.js'
import {isStandard, statusCell, type RowState, type TableState} from './table-state.js'
import {durationIntoNotes} from './duration-in-notes.js'
import {renderMeta} from './render-meta.js'
import {sectionLength, sectionText} from './section-text.js'

export interface RenderedState {
  /** The new section text, from its heading to where it ended (joined on first use). */
  readonly text: string
  /** The layout of the new text: the next write starts from it without parsing. */
  layout: StateLayout
  /** Rows whose line was (re)written. */
  changedRows: number
  /** Nothing changed: `text` is the layout's own text. */
  same: boolean
}

export interface RenderOptions {
  /**
   * A value wider than its column overflows it in its own row, and the other
   * rows keep their bytes (the store's writes: one event, one row in the
   * diff). Otherwise the whole table is re-padded, never shrinking (a merge).
   */
  overflow?: boolean
  /**
   * The agents whose rows may differ from the ones `layout` was rendered from:
   * every other row of `desired` is that very row (the caller checked by
   * identity), so a write looks at one row, not a thousand. Ignored when one
   * of them has no line yet.
   */
  changed?: readonly string[]
}

/**
 * Render `desired` into an existing section: rows whose values did not change
 * keep their exact bytes, changed and new rows are written in the table's
 * style, meta lines are updated in place. Pure.
 */
export function renderState(layout: StateLayout, desired: TableState, options: RenderOptions = {}): RenderedState {
  const {style, eol} = layout
  const columns = layout.columns.length
  const positions = rowPositions(layout)

  // Rows: changed ones get new text; missing ones are queued after the row of
  // the agent before them in plan order (or at the top).
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

  let rows: LayoutRow[]
  if (after.size === 0) {
    rows = layout.rows.slice()
    for (const [at, row] of replacedAt) rows[at] = row
  } else {
    rows = []
    const emit = (row: LayoutRow): void => {
      rows.push(row)
      for (const next of after.get(row) ?? []) emit(next)
    }
    for (const row of after.get(undefined) ?? []) emit(row)
    for (const row of layout.rows) emit(replaced.get(row) ?? row)
  }
  // A row that was last may not be now: only the last line keeps the table's
  // last line ending (which is '' when the table ends the file).
  const lastOld = layout.rows[layout.rows.length - 1] ?? layout.delimiter
  let delimiter: TableLine = layout.delimiter
  if (rows.length > layout.rows.length && lastOld.eol === '') {
    for (let i = 0; i < rows.length - 1; i++) if (rows[i]!.eol === '') rows[i] = {...rows[i]!, eol}
    if (layout.rows.length === 0) delimiter = {...delimiter, eol}
    rows[rows.length - 1] = {...rows[rows.length - 1]!, eol: ''}
  }

  let header = layout.header
  let nextStyle = style
  if (widen) {
    // A value wider than its column: re-pad the whole table, never shrinking.
    const kept = new Set(layout.rows)
    const texts = rows.map((row) => (kept.has(row) ? rawCells(row.text, columns) : row.values.map((value, i) => displayCell(value, i, layout))))
    const head = headerCells(layout)
    const widths = style.widths.slice(0, columns)
    for (const cells of [head, ...texts]) cells.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 3, cell.length, 3)))
    nextStyle = {...style, widths}
    header = {text: renderRow(head, nextStyle), eol: header.eol}
    delimiter = {text: renderDelimiter(nextStyle, columns), eol: delimiter.eol}
    rows.forEach((row, i) => (rows[i] = {...row, text: renderRow(texts[i]!, nextStyle)}))
  }

  const post = renderMeta(layout, desired)
  // Lines after the table need the table's last line to end.
  if (post.length > 0) {
    if (rows.length > 0 && rows[rows.length - 1]!.eol === '') rows[rows.length - 1] = {...rows[rows.length - 1]!, eol}
    else if (rows.length === 0 && delimiter.eol === '') delimiter = {...delimiter, eol}
  }
  const next: StateLayout = {...layout, style: nextStyle, header, delimiter, rows, post}
  // Same lines but a few: the length moves by theirs (a walk over every line costs more than the render).
  next.end = after.size === 0 && !widen ? layout.end + lengthChange(layout, next, [...replacedAt.keys(), rows.length - 1]) : layout.start + sectionLength(next)
  // No row added: every agent keeps its position, the next render reuses the index.
  if (after.size === 0) index.set(rows, positions)
  const same = changedRows === 0 && post.length === layout.post.length && post.every((line, i) => line === layout.post[i])
  return rendered(next, changedRows, same)
}

/**
 * The result, its text joined only when asked for: a store write splices the
 * changed lines into the file's bytes and never needs the whole section as a string.
 */
function rendered(layout: StateLayout, changedRows: number, same: boolean): RenderedState {
  let text: string | undefined
  return {
    get text() {
      text ??= sectionText(layout)
      return text
    },
    layout,
    changedRows,
    same
  }
}

/**
 * `previous` with new meta values and the same rows: only the lines after the
 * table are rendered again (a write's `Last updated:` stamp, on every write,
 * need not walk a thousand rows). Falls back to a whole render when lines come or go.
 */
export function renderMetaAgain(previous: RenderedState, desired: TableState, options: RenderOptions = {}): RenderedState {
  const {layout} = previous
  const post = renderMeta(layout, desired)
  if (post.length !== layout.post.length || post.length === 0) return renderState(layout, desired, options)
  let old = 0
  for (const line of layout.post) old += line.text.length + line.eol.length
  let length = 0
  for (const line of post) length += line.text.length + line.eol.length
  const same = post.every((line, i) => line === layout.post[i])
  return rendered({...layout, end: layout.end - old + length, post}, 0, same)
}

/** The rows to look at: all of them, or the changed ones when each has its line. */
function entries(desired: TableState, positions: ReadonlyMap<string, number>, changed: readonly string[] | undefined): Iterable<[string, RowState]> {
  if (!changed || !changed.every((agent) => positions.has(agent) && desired.rows.has(agent))) return desired.rows
  return changed.map((agent) => [agent, desired.rows.get(agent)!])
}

/** How much longer `next` is than `layout`, when only the rows at `touched`, the header, delimiter and lines after the table may differ. */
function lengthChange(layout: StateLayout, next: StateLayout, touched: readonly number[]): number {
  const size = (line: TableLine | undefined): number => (line ? line.text.length + line.eol.length : 0)
  let change = size(next.header) - size(layout.header) + size(next.delimiter) - size(layout.delimiter)
  for (const at of new Set(touched)) change += size(next.rows[at]) - size(layout.rows[at])
  for (const line of next.post) change += size(line)
  for (const line of layout.post) change -= size(line)
  return change
}

const index = new WeakMap<readonly LayoutRow[], Map<string, number>>()
/**
 * The row state a line was rendered from (or found to read back as): a write
 * passes the same row objects for the rows an event did not touch, so a
 * thousand-row table is checked by identity, not cell by cell.
 */
const renderedFrom = new WeakMap<LayoutRow, RowState>()

/** Where each agent's (first) row is, built once per rows array. */
function rowPositions(layout: StateLayout): Map<string, number> {
  let positions = index.get(layout.rows)
  if (!positions) {
    positions = new Map()
    layout.rows.forEach((row, i) => {
      if (!positions!.has(row.agent)) positions!.set(row.agent, i)
    })
    index.set(layout.rows, positions)
  }
  return positions
}

/** The values a row's cells should read back as, per column. */
function cellValues(agent: string, row: RowState, layout: StateLayout, old: LayoutRow | undefined): string[] {
  const {index, columns} = layout
  return columns.map((column, i) => {
    if (i === index.agent) return old ? old.values[i]! : agent
    if (i === index.status) return statusCell(row)
    if (i === index.agentId) return normalizeCell(row.agentId)
    if (i === index.duration) return normalizeCell(row.duration)
    if (i === index.notes) return normalizeCell(notesCell(row, index))
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
  if (index.notes !== -1 && v[index.notes] !== notesCell(row, index)) return false
  for (const column in row.extra) {
    const i = columns.indexOf(column)
    if (i !== -1 && !isStandard(i, index) && v[i] !== row.extra[column]) return false
  }
  return true
}

/** A table with no Duration column keeps the duration in the Notes (`took 3m 12s`). */
function notesCell(row: RowState, index: StateLayout['index']): string {
  return index.duration === -1 ? durationIntoNotes(row.notes, row.duration) : row.notes
}

function displayCell(value: string, i: number, layout: StateLayout): string {
  if (value === '' && (i === layout.index.agentId || i === layout.index.duration)) return '—'
  return escapeCell(value)
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

function rawCells(line: string, columns: number): string[] {
  const cells = splitRaw(line).map((cell) => cell.trim())
  while (cells.length < columns) cells.push('')
  return cells.slice(0, columns)
}
