import {escapeCell, normalizeCell} from './escape-cell.js'
import {renderDelimiter, renderRow} from './render-row.js'
import {splitRaw} from './detect-table-style.js'
import {headerCells, type LayoutRow, type PostLine, type StateLayout, type TableLine} from './state-layout.js'
import {isStandard, metaKeys, type RowState, type TableState} from './table-state.js'
import {durationIntoNotes} from './duration-in-notes.js'

export interface RenderedState {
  /** The new section text, from its heading to where it ended. */
  text: string
  /** The layout of the new text: the next write starts from it without parsing. */
  layout: StateLayout
  /** Rows whose line was (re)written. */
  changedRows: number
}

/**
 * Render `desired` into an existing section: rows whose values did not change
 * keep their exact bytes, changed and new rows are written in the table's
 * style, meta lines are updated in place. Pure.
 */
export function renderState(layout: StateLayout, desired: TableState): RenderedState {
  const {style, eol} = layout
  const columns = layout.columns.length
  const positions = rowPositions(layout)

  // Rows: changed ones get new text; missing ones are queued after the row of
  // the agent before them in plan order (or at the top).
  const replaced = new Map<LayoutRow, LayoutRow>()
  const after = new Map<LayoutRow | undefined, LayoutRow[]>()
  let previous: LayoutRow | undefined
  let changedRows = 0
  let widen = false
  for (const [agent, row] of desired.rows) {
    const at = positions.get(agent)
    const old = at === undefined ? undefined : layout.rows[at]
    if (old) {
      previous = old
      if (unchanged(old, row, layout)) continue
    }
    const values = cellValues(agent, row, layout, old)
    if (old && sameValues(old.values, values, layout.index.status)) continue
    const cells = values.map((value, i) => displayCell(value, i, layout))
    if (style.aligned && cells.some((cell, i) => cell.length > (style.widths[i] ?? 0))) widen = true
    const line: LayoutRow = {text: renderRow(cells, style), eol, agent, values}
    changedRows++
    if (old) replaced.set(old, {...line, eol: old.eol})
    else {
      const queue = after.get(previous) ?? []
      queue.push(line)
      after.set(previous, queue)
      previous = line
      after.set(line, [])
    }
  }

  let rows: LayoutRow[]
  if (after.size === 0) rows = replaced.size === 0 ? layout.rows.slice() : layout.rows.map((row) => replaced.get(row) ?? row)
  else {
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
  const parts: string[] = [layout.pre, header.text, header.eol, delimiter.text, delimiter.eol]
  for (const row of rows) parts.push(row.text, row.eol)
  for (const line of post) parts.push(line.text, line.eol)
  const text = parts.join('')
  const next: StateLayout = {...layout, end: layout.start + text.length, style: nextStyle, header, delimiter, rows, post}
  // No row added: every agent keeps its position, the next render reuses the index.
  if (after.size === 0) index.set(rows, positions)
  return {text, layout: next, changedRows}
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

/** The values a row's cells should read back as, per column. */
function cellValues(agent: string, row: RowState, layout: StateLayout, old: LayoutRow | undefined): string[] {
  const {index, columns} = layout
  return columns.map((column, i) => {
    if (i === index.agent) return old ? old.values[i]! : agent
    if (i === index.status) return row.status
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
  if (v[index.status] !== row.status) return false
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

/** Meta lines: values replaced in place; missing ones added in the order Started, Last updated, Build, Integration. */
function renderMeta(layout: StateLayout, desired: TableState): PostLine[] {
  const {eol} = layout
  const post = layout.post.slice()
  const present = new Map(post.map((line, i) => [line.meta?.name, i] as const))
  const missing: Array<(typeof metaKeys)[number]> = []
  for (const entry of metaKeys) {
    const [name] = entry
    const value = desired.meta[name]
    if (value === undefined) continue
    const at = present.get(name)
    if (at === undefined) {
      missing.push(entry)
      continue
    }
    const line = post[at]!
    const meta = line.meta!
    const old = line.text.slice(meta.valueStart, meta.valueEnd)
    const shown = escapeMeta(value)
    if (old === shown || (old === '—' && shown === '—')) continue
    const text = line.text.slice(0, meta.valueStart) + shown + line.text.slice(meta.valueEnd)
    post[at] = {...line, text, meta: {name, valueStart: meta.valueStart, valueEnd: meta.valueStart + shown.length}}
  }
  if (missing.length === 0) return post

  const make = ([name, , label]: (typeof metaKeys)[number]): PostLine => {
    const shown = escapeMeta(desired.meta[name]!)
    return {text: `${label}: ${shown}`, eol, meta: {name, valueStart: label.length + 2, valueEnd: label.length + 2 + shown.length}}
  }
  const anyMeta = post.some((line) => line.meta)
  if (!anyMeta) {
    // A block right after the table, set off by blank lines.
    const block: PostLine[] = [{text: '', eol}, ...missing.map(make)]
    const next = post[0]
    if (next && next.text.trim() !== '') block.push({text: '', eol})
    else if (!next && !layout.atEof) block.push({text: '', eol})
    const lastTable = layout.rows[layout.rows.length - 1] ?? layout.delimiter
    // The table ended the file without a final newline: so does the block.
    if (lastTable.eol === '' && post.length === 0) block[block.length - 1] = {...block[block.length - 1]!, eol: ''}
    return [...block, ...post]
  }
  for (const entry of missing) {
    const order = metaKeys.indexOf(entry)
    let at = -1
    for (let k = order - 1; k >= 0 && at === -1; k--) {
      const i = post.findIndex((line) => line.meta?.name === metaKeys[k]![0])
      if (i !== -1) at = i + 1
    }
    for (let k = order + 1; k < metaKeys.length && at === -1; k++) {
      const i = post.findIndex((line) => line.meta?.name === metaKeys[k]![0])
      if (i !== -1) at = i
    }
    const line = make(entry)
    const before = post[at - 1]
    if (at === post.length && before && before.eol === '') {
      post[at - 1] = {...before, eol}
      line.eol = ''
    }
    post.splice(at, 0, line)
  }
  return post
}

function escapeMeta(value: string): string {
  const line = normalizeCell(value)
  return line === '' ? '—' : line
}
