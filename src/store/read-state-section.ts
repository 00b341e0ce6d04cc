import {noneAsEmpty} from '../plan/none-as-empty.js'
import {cellValue} from '../plan/split-row.js'
import {normalizeKey} from '../plan/normalize-key.js'
import {statuses, type Status} from '../plan/types.js'
import {conflictedSection} from './conflicted-section.js'
import {splitRaw} from './detect-table-style.js'
import type {SectionSpan} from './locate-state-section.js'
import {readWaitLines} from '../plan/wait-line.js'
import {readBudgetLine} from '../plan/budget-line.js'
import {buildLayout, metaName, type MetaName, type StateLayout} from './state-layout.js'
import {rowFromCells, type RowState, type TableMeta} from './table-state.js'
import type {TableDamage} from './conflicted-section.js'

export interface SectionRead {
  layout: StateLayout
  /** The rows the table has (the first row wins for a repeated agent), and its meta lines. */
  rows: Map<string, RowState>
  meta: TableMeta
}

const vocabulary = new Set<string>(statuses)
const delimiterCell = /^[ \t]*:?-+:?[ \t]*$/
const metaLine = /^[ \t]*(?:\*\*)?([A-Za-z][A-Za-z0-9 _-]*?)(?::\*\*|\*\*:|:)[ \t]*(.*?)[ \t]*$/
/** Lines the section reader leaves to the full parser: fences, HTML, block starts among the rows. */
const unsure = /^ {0,3}(?:```|~~~|<)/m
const blockStart = /^ {0,3}(?:[>#]|[-*+][ \t]|\d{1,9}[.)][ \t])/

/**
 * Read the state section from its lines, the way `readStateTable` reads it
 * after a full parse, at a small fraction of the cost: this is what a merge of
 * a hand edit reads. Returns `null` when the section holds something only the
 * full parser judges (a fence, HTML), and a `TableDamage` when the section has
 * no table that reads as the state table.
 */
export function readStateSection(text: string, span: SectionSpan, known?: StateLayout): SectionRead | TableDamage | null {
  const conflicted = conflictedSection(text, span)
  if (conflicted) return conflicted
  const body = text.slice(span.start, span.end)
  if (unsure.test(body.slice(body.indexOf('\n') + 1))) return null
  const lines = linesOf(text, span)
  const firstBreak = text.indexOf('\n')
  // As the parser has it: the file's first line ending.
  const eol: '\n' | '\r\n' = firstBreak > 0 && text[firstBreak - 1] === '\r' ? '\r\n' : '\n'
  let damage: TableDamage | undefined
  for (let i = 1; i < lines.length; i++) {
    const header = lines[i]!
    if (!header.text.includes('|')) continue
    const columns = splitRaw(header.text).map((raw) => cellValue(raw))
    const delimiter = lines[i + 1]
    const cells = delimiter ? splitRaw(delimiter.text) : []
    const lower = columns.map((column) => normalizeKey(column))
    const stateHeader = lower.includes('agent') && lower.includes('status')
    if (!delimiter || cells.length !== columns.length || !cells.every((cell) => delimiterCell.test(cell))) {
      damage ??= {
        offset: stateHeader ? (delimiter?.start ?? header.start) : header.start,
        reason: stateHeader
          ? 'the line after the header must be the delimiter row, one `---` per column (`|---|---|`): put it back'
          : 'this table line is not part of a table mdplan can read: restore the `| Agent | Status | … |` header and the `|---|---|` line under it'
      }
      continue
    }
    // GFM: a table does not interrupt a paragraph in every parser; leave that to the full one.
    if (i > 1 && lines[i - 1]!.text.trim() !== '') return null
    if (!stateHeader) {
      damage ??= {offset: header.start, reason: 'the table header needs an `Agent` and a `Status` column: put them back'}
      i++
      continue
    }
    return readTable(text, span, {lines, at: i, columns, lower, eol}, known)
  }
  return damage ?? {offset: lines[0]!.start, reason: 'the section has no table any more: put the `| Agent | Status | … |` table back (undo the edit, or take it from git)'}
}

interface TableLines {
  lines: Line[]
  /** The header's line. */
  at: number
  columns: string[]
  lower: string[]
  eol: '\n' | '\r\n'
}

function readTable(text: string, span: SectionSpan, found: TableLines, known: StateLayout | undefined): SectionRead | null {
  const {lines, at, columns, lower, eol} = found
  // The columns readStateTable looks for, by the same normalized names.
  const [agent, status, agentId, duration, notes] = ['agent', 'status', 'agent_id', 'duration', 'notes'].map((name) => lower.indexOf(name)) as [number, number, number, number, number]
  const index = {agent, status, agentId, duration, notes}
  const table = {columns, index}
  const rowLines: Array<{start: number; agent: string; values: string[]}> = []
  const rows = new Map<string, RowState>()
  // Rows written as mdplan last wrote them read as they did then: most of a table, after a hand edit.
  const same = known && known.header.text === lines[at]!.text && known.columns.length === columns.length ? rowsByText(known) : undefined
  let k = at + 2
  for (; k < lines.length && lines[k]!.text.includes('|'); k++) {
    const line = lines[k]!
    const seen = same?.get(line.text)
    if (seen) {
      rowLines.push({start: line.start, agent: seen.agent, values: seen.values})
      if (seen.agent !== '' && !rows.has(seen.agent)) rows.set(seen.agent, rowFromCells(seen.values, statusOf(seen.values[index.status]!), table))
      continue
    }
    if (blockStart.test(line.text)) return null
    const values = splitRaw(line.text)
      .slice(0, columns.length)
      .map((raw) => cellValue(raw))
    while (values.length < columns.length) values.push('')
    const agent = values[index.agent]!.replace(/^(\*\*|`)(.*)\1$/, '$2')
    rowLines.push({start: line.start, agent, values})
    if (agent !== '' && !rows.has(agent)) rows.set(agent, rowFromCells(values, statusOf(values[index.status]!), table))
  }
  const metaStarts = new Map<number, MetaName>()
  const meta: TableMeta = {}
  const after = lines.slice(k).map((line) => line.text)
  const waits = readWaitLines(after)
  if (waits !== undefined) meta.waits = waits
  const budget = readBudgetLine(after)
  if (budget !== undefined) meta.budget = budget
  for (; k < lines.length; k++) {
    const line = lines[k]!
    const match = metaLine.exec(line.text)
    if (!match || line.text.trim() === '') continue
    const name = metaName(normalizeKey(match[1]!))
    if (!name || meta[name] !== undefined) continue
    meta[name] = noneAsEmpty(match[2]!.trim())
    metaStarts.set(line.start, name)
  }
  const layout = buildLayout({
    text,
    start: span.start,
    end: span.end,
    eol,
    headerStart: lines[at]!.start,
    delimiterStart: lines[at + 1]!.start,
    rows: rowLines,
    columns,
    index,
    metaStarts,
    style: known && known.header.text === lines[at]!.text && known.delimiter.text === lines[at + 1]!.text ? known.style : undefined
  })
  return {layout, rows, meta}
}

function statusOf(cell: string): Status | undefined {
  const word = cell.toLowerCase().replace(/[\s-]+/g, '_')
  return vocabulary.has(word) ? (word as Status) : undefined
}

const byText = new WeakMap<StateLayout, Map<string, {agent: string; values: string[]}>>()

/** A layout's rows by their text, built once per layout. */
function rowsByText(layout: StateLayout): Map<string, {agent: string; values: string[]}> {
  let map = byText.get(layout)
  if (!map) {
    map = new Map()
    for (const row of layout.rows) if (!map.has(row.text)) map.set(row.text, row)
    byText.set(layout, map)
  }
  return map
}

interface Line {
  start: number
  /** Without its line ending. */
  text: string
}

function linesOf(text: string, span: SectionSpan): Line[] {
  const lines: Line[] = []
  for (let offset = span.start; offset < span.end; ) {
    const newline = text.indexOf('\n', offset)
    const end = newline === -1 || newline >= span.end ? span.end : newline
    lines.push({start: offset, text: text.slice(offset, end > offset && text[end - 1] === '\r' ? end - 1 : end)})
    offset = end + 1
  }
  return lines
}
