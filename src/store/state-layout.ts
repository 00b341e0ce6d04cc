import type {Plan, StateTable} from '../plan/types.js'
import {detectTableStyle, splitRaw, type TableStyle} from './detect-table-style.js'
import {metaKeys, type TableMeta} from './table-state.js'

export type MetaName = keyof TableMeta

export interface TableLine {
  text: string
  /** The line ending after it: `\n`, `\r\n`, or '' at the end of the file. */
  eol: string
}

export interface LayoutRow extends TableLine {
  agent: string
  /** Cell values per column as they read back (trimmed, unescaped, `—` as ''). */
  values: string[]
}

export interface PostLine extends TableLine {
  meta?: {name: MetaName; valueStart: number; valueEnd: number}
}

/**
 * The `## Execution State` section cut into the pieces mdplan owns: the table
 * lines and the meta lines after it. Everything else is kept as text, so
 * rendering is a join and a row that did not change keeps its bytes. It
 * carries no offsets into the rest of the file except where the section is.
 */
export interface StateLayout {
  start: number
  end: number
  /** The text after the section is the end of the file. */
  atEof: boolean
  eol: '\n' | '\r\n'
  /** From the heading to the table's header line, verbatim. */
  pre: string
  columns: string[]
  index: StateTable['index']
  style: TableStyle
  header: TableLine
  delimiter: TableLine
  rows: LayoutRow[]
  /** The lines after the table to the end of the section. */
  post: PostLine[]
}

const metaLine = /^([ \t]*(?:\*\*)?[A-Za-z][A-Za-z0-9 _-]*?(?::\*\*|\*\*:|:)[ \t]*)(.*?)[ \t]*$/
const names = new Map<string, MetaName>(metaKeys.map(([name, key]) => [key, name]))

/** The layout of a parsed plan's state section; undefined when it has no section or no table. */
export function stateLayout(plan: Plan): StateLayout | undefined {
  const state = plan.state
  const table = state?.table
  if (!state || !table) return undefined
  const metaStarts = new Map<number, MetaName>()
  for (const line of state.meta) {
    const name = names.get(line.key)
    if (name && ![...metaStarts.values()].includes(name)) metaStarts.set(line.position.start.offset, name)
  }
  return buildLayout({
    text: plan.text,
    start: state.section.start.offset,
    end: state.section.end.offset,
    eol: plan.eol,
    headerStart: lineStart(plan.text, table.position.start.offset),
    delimiterStart: table.delimiter.start.offset,
    rows: table.rows.map((row) => ({start: row.position.start.offset, agent: row.agent, values: row.cells.map((cell) => cell.value)})),
    columns: table.columns,
    index: table.index,
    metaStarts
  })
}

export interface LayoutInput {
  text: string
  /** The section's range in `text`. */
  start: number
  end: number
  eol: '\n' | '\r\n'
  /** Where the table's header, delimiter and row lines start. */
  headerStart: number
  delimiterStart: number
  rows: Array<{start: number; agent: string; values: string[]}>
  columns: string[]
  index: StateTable['index']
  /** Where each meta line mdplan owns starts (the first of each name). */
  metaStarts: ReadonlyMap<number, MetaName>
  /** The table's style when the caller knows it (the same header and delimiter as a layout it has). */
  style?: TableStyle | undefined
}

/** The layout from where a reader found the table's lines (the full parser or the section reader). */
export function buildLayout(input: LayoutInput): StateLayout {
  const {text, start, end, metaStarts} = input
  const header = lineAt(text, input.headerStart)
  const delimiter = lineAt(text, input.delimiterStart)
  const rows: LayoutRow[] = input.rows.map((row) => ({...lineAt(text, row.start), agent: row.agent, values: row.values}))
  const lastStart = input.rows.length > 0 ? input.rows[input.rows.length - 1]!.start : input.delimiterStart
  const last = rows[rows.length - 1] ?? delimiter
  const postStart = Math.min(end, lastStart + last.text.length + last.eol.length)
  const post: PostLine[] = []
  for (let offset = postStart; offset < end; ) {
    const line = lineAt(text, offset, end)
    const name = metaStarts.get(offset)
    const match = name ? metaLine.exec(line.text) : null
    post.push(match ? {...line, meta: {name: name!, valueStart: match[1]!.length, valueEnd: match[1]!.length + match[2]!.length}} : line)
    offset += line.text.length + line.eol.length
  }
  return {
    start,
    end,
    atEof: end === text.length,
    eol: input.eol,
    pre: text.slice(start, input.headerStart),
    columns: input.columns,
    index: input.index,
    style: input.style ?? detectTableStyle(header.text, delimiter.text, rows.map((row) => row.text)),
    header,
    delimiter,
    rows,
    post
  }
}

/** The meta name of a `Key: value` line's normalized key, if mdplan owns it. */
export function metaName(key: string): MetaName | undefined {
  return names.get(key)
}

/** The header's cells as written, trimmed (not unescaped: they are re-rendered as they are). */
export function headerCells(layout: StateLayout): string[] {
  return splitRaw(layout.header.text).map((cell) => cell.trim())
}

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1
}

function lineAt(text: string, start: number, limit = text.length): TableLine {
  const newline = text.indexOf('\n', start)
  const next = newline === -1 || newline >= limit ? limit : newline + 1
  let end = next
  let eol = ''
  if (text[end - 1] === '\n') {
    end--
    eol = '\n'
    if (text[end - 1] === '\r') {
      end--
      eol = '\r\n'
    }
  }
  return {text: text.slice(start, end), eol}
}
