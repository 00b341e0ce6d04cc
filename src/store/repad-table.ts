import {displayCell} from './display-cell.js'
import {splitRaw, type TableStyle} from './detect-table-style.js'
import {renderDelimiter, renderRow} from './render-row.js'
import {headerCells, type LayoutRow, type StateLayout, type TableLine} from './state-layout.js'

/**
 * A value wider than its column: re-pad the whole table, never shrinking.
 * `rows` (the new rows; those kept from `layout` are read from their text)
 * are rendered again in place; `delimiter` keeps its line ending.
 */
export function repadTable(layout: StateLayout, rows: LayoutRow[], delimiter: TableLine): {style: TableStyle; header: TableLine; delimiter: TableLine} {
  const {style} = layout
  const columns = layout.columns.length
  const kept = new Set(layout.rows)
  const texts = rows.map((row) => (kept.has(row) ? rawCells(row.text, columns) : row.values.map((value, i) => displayCell(value, i, layout))))
  const head = headerCells(layout)
  const widths = style.widths.slice(0, columns)
  for (const cells of [head, ...texts]) cells.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 3, cell.length, 3)))
  const nextStyle = {...style, widths}
  const header = {text: renderRow(head, nextStyle), eol: layout.header.eol}
  const nextDelimiter = {text: renderDelimiter(nextStyle, columns), eol: delimiter.eol}
  rows.forEach((row, i) => (rows[i] = {...row, text: renderRow(texts[i]!, nextStyle)}))
  return {style: nextStyle, header, delimiter: nextDelimiter}
}

function rawCells(line: string, columns: number): string[] {
  const cells = splitRaw(line).map((cell) => cell.trim())
  while (cells.length < columns) cells.push('')
  return cells.slice(0, columns)
}
