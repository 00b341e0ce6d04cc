import type {RootContent} from 'mdast'
import type {Locator} from './locate.js'
import {splitRow} from './split-row.js'
import {normalizeKey} from './normalize-key.js'
import {statuses, type Diagnostic, type MetaLine, type StateCell, type StateRow, type StateSection, type StateTable, type Status} from './types.js'

const vocabulary = new Set<string>(statuses)
const metaLine = /^[ \t]*(?:\*\*)?([A-Za-z][A-Za-z0-9 _-]*?)(?::\*\*|\*\*:|:)[ \t]*(.*?)[ \t]*$/

export interface StateInput {
  text: string
  at: Locator
  file: string
  heading: {start: number; end: number}
  /** Offset where the section ends (next heading of depth ≤ 2, or the end of the text). */
  end: number
  /** The root nodes inside the section, after the heading. */
  nodes: RootContent[]
  messages: Diagnostic[]
}

/** Read the `## Execution State` section: its table, and the `Key: value` lines after it. */
export function readStateTable(input: StateInput): StateSection {
  const {text, at, file, nodes, messages} = input
  let table: StateTable | undefined
  let tableEnd = input.heading.end
  for (const node of nodes) {
    if (node.type !== 'table') continue
    const found = readTable(text, at, node.position!.start.offset!, node.position!.end.offset!)
    if (!found) continue
    table = found
    tableEnd = found.position.end.offset
    break
  }

  if (!table) {
    // A pipe line that GFM did not take as a table is a table gone wrong.
    const stray = nodes.find((node) => node.type === 'paragraph' && text.startsWith('|', node.position!.start.offset))
    const header = nodes.find((node) => node.type === 'table')
    const where = stray ?? header
    if (where) {
      const start = where.position!.start.offset!
      messages.push({
        severity: 'error',
        rule: 'malformed-table',
        reason:
          where.type === 'table'
            ? 'malformed Execution State table: the header needs an `Agent` and a `Status` column'
            : 'malformed Execution State table: the line after the header must be a delimiter row with one `---` cell per column (`|---|---|`)',
        file,
        place: at.span(start, at.lineEnd(start))
      })
    }
  }

  // Code blocks after the table are not meta lines.
  const fenced: Array<[number, number]> = []
  for (const node of nodes) if (node.type === 'code') fenced.push([node.position!.start.offset!, node.position!.end.offset!])

  const meta: MetaLine[] = []
  let offset = table ? tableEnd : input.heading.end
  while (offset < input.end) {
    const lineEnd = at.lineEnd(offset)
    if (!fenced.some(([start, end]) => offset >= start && offset < end)) {
      const line = text.slice(offset, lineEnd)
      const match = metaLine.exec(line)
      if (match && line.trim() !== '') {
        meta.push({key: normalizeKey(match[1]!), rawKey: match[1]!, value: match[2]!, position: at.span(offset, lineEnd)})
      }
    }
    const next = text.indexOf('\n', lineEnd)
    if (next === -1) break
    offset = next + 1
  }

  return {
    heading: at.span(input.heading.start, input.heading.end),
    section: at.span(input.heading.start, input.end),
    ...(table ? {table} : {}),
    meta
  }
}

/**
 * Read a table from its lines; `undefined` when its header lacks `Agent` or `Status`.
 * GFM keeps a pipe-less line right after the rows (`Started: …`) as a row: the
 * table ends before the first line with no pipe.
 */
function readTable(text: string, at: Locator, start: number, end: number): StateTable | undefined {
  const headerEnd = at.lineEnd(start)
  const header = splitRow(text, start, headerEnd, at)
  const columns = header.map((cell) => cell.value)
  const lower = columns.map((column) => normalizeKey(column))
  const index = {
    agent: lower.indexOf('agent'),
    status: lower.indexOf('status'),
    agentId: lower.indexOf('agent_id'),
    duration: lower.indexOf('duration'),
    notes: lower.indexOf('notes')
  }
  if (index.agent === -1 || index.status === -1) return undefined

  const delimiterStart = text.indexOf('\n', headerEnd) + 1
  const delimiterEnd = at.lineEnd(delimiterStart)
  const rows: StateRow[] = []
  let tableEnd = delimiterEnd
  let offset = delimiterEnd
  for (;;) {
    const next = text.indexOf('\n', offset)
    if (next === -1 || next + 1 >= end) break
    const lineStart = next + 1
    const lineEnd = at.lineEnd(lineStart)
    if (!text.slice(lineStart, lineEnd).includes('|')) break
    rows.push(readRow(text, at, lineStart, lineEnd, columns.length, index))
    tableEnd = lineEnd
    offset = lineEnd
  }

  return {
    columns,
    index,
    header,
    delimiter: at.span(delimiterStart, delimiterEnd),
    rows,
    position: at.span(start, tableEnd)
  }
}

function readRow(text: string, at: Locator, start: number, end: number, width: number, index: StateTable['index']): StateRow {
  const cells = splitRow(text, start, end, at).slice(0, width)
  while (cells.length < width) {
    const empty: StateCell = {value: '', raw: '', position: at.span(end, end)}
    cells.push(empty)
  }
  const statusRaw = cells[index.status]!.raw.trim()
  const word = cells[index.status]!.value.toLowerCase().replace(/[\s-]+/g, '_')
  const status = vocabulary.has(word) ? (word as Status) : undefined
  const agent = cells[index.agent]!.value.replace(/^(\*\*|`)(.*)\1$/, '$2')
  return {agent, ...(status ? {status} : {}), statusRaw, cells, position: at.span(start, end)}
}
