import type {LayoutRow, StateLayout, TableLine} from './state-layout.js'
import type {TableState} from './table-state.js'
import {renderMeta} from './render-meta.js'
import {renderRows, type RowChanges} from './render-rows.js'
import {repadTable} from './repad-table.js'
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
  const {eol} = layout
  const positions = rowPositions(layout)
  const changes = renderRows(layout, desired, positions, options)
  const {after, replacedAt, changedRows, widen} = changes
  const rows = orderRows(layout, changes)
  let delimiter = endLastRow(layout, rows)

  let header = layout.header
  let nextStyle = layout.style
  if (widen) ({style: nextStyle, header, delimiter} = repadTable(layout, rows, delimiter))

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

/** The table's rows in their new order: the old ones (changed ones replaced), each followed by the new rows queued after it. */
function orderRows(layout: StateLayout, {replaced, replacedAt, after}: RowChanges): LayoutRow[] {
  if (after.size === 0) {
    const rows = layout.rows.slice()
    for (const [at, row] of replacedAt) rows[at] = row
    return rows
  }
  const rows: LayoutRow[] = []
  const emit = (row: LayoutRow): void => {
    rows.push(row)
    for (const next of after.get(row) ?? []) emit(next)
  }
  for (const row of after.get(undefined) ?? []) emit(row)
  for (const row of layout.rows) emit(replaced.get(row) ?? row)
  return rows
}

/**
 * A row that was last may not be now: only the last line keeps the table's
 * last line ending (which is '' when the table ends the file). Fixes `rows`
 * in place; returns the delimiter, which ends now when it was the last line.
 */
function endLastRow(layout: StateLayout, rows: LayoutRow[]): TableLine {
  const {eol} = layout
  const lastOld = layout.rows[layout.rows.length - 1] ?? layout.delimiter
  let delimiter: TableLine = layout.delimiter
  if (rows.length > layout.rows.length && lastOld.eol === '') {
    for (let i = 0; i < rows.length - 1; i++) if (rows[i]!.eol === '') rows[i] = {...rows[i]!, eol}
    if (layout.rows.length === 0) delimiter = {...delimiter, eol}
    rows[rows.length - 1] = {...rows[rows.length - 1]!, eol: ''}
  }
  return delimiter
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

