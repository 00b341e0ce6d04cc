export type Align = 'left' | 'right' | 'center' | 'none'

export interface TableStyle {
  /** Every cell padded to its column's width (pipes line up). */
  aligned: boolean
  /** Content width per column (aligned tables). */
  widths: number[]
  align: Align[]
  /** `| --- |` rather than `|-----|`. */
  delimiterSpaced: boolean
  leadingPipe: boolean
  trailingPipe: boolean
  /** Indentation before the first pipe, as written on the header line. */
  indent: string
}

/**
 * The style of an existing table, from its header, delimiter and row lines.
 * Aligned means most rows put their pipes where the header puts them, or
 * pad every cell to its column's width except those wider than it (rows
 * mdplan wrote with a value that overflows: the table keeps its widths): a
 * compact table's header and delimiter often line up, its rows do not.
 */
export function detectTableStyle(header: string, delimiter: string, rows: readonly string[]): TableStyle {
  const indent = /^[ \t]*/.exec(header)![0]
  const trimmed = header.trim()
  const delimiterCells = splitRaw(delimiter)
  const headerPipes = pipes(header)
  const widths = splitRaw(header).map((raw) => Math.max(raw.length - 2, raw.trim().length))
  let matching = 0
  for (const row of rows) if (samePipes(pipes(row), headerPipes) || padded(row, widths)) matching++
  const aligned = rows.length > 0 && matching * 2 >= rows.length && samePipes(pipes(delimiter), headerPipes)
  return {
    aligned,
    widths,
    align: delimiterCells.map((raw) => {
      const cell = raw.trim()
      const left = cell.startsWith(':')
      const right = cell.endsWith(':')
      return left && right ? 'center' : left ? 'left' : right ? 'right' : 'none'
    }),
    delimiterSpaced: delimiterCells.length > 0 && delimiterCells.every((raw) => raw.startsWith(' ') && raw.endsWith(' ')),
    leadingPipe: trimmed.startsWith('|'),
    trailingPipe: trimmed.endsWith('|') && !trimmed.endsWith('\\|'),
    indent
  }
}

/** Cells between unescaped pipes, raw (padding kept), outer pipes dropped. */
export function splitRaw(line: string): string[] {
  let text = line.trim()
  if (text.startsWith('|')) text = text.slice(1)
  if (text.endsWith('|') && !text.endsWith('\\|')) text = text.slice(0, -1)
  const cells: string[] = []
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 92) i++
    else if (code === 124) {
      cells.push(text.slice(start, i))
      start = i + 1
    }
  }
  cells.push(text.slice(start))
  return cells
}

function pipes(line: string): number[] {
  const at: number[] = []
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i)
    if (code === 92) i++
    else if (code === 124) at.push(i)
  }
  return at
}

/** Every cell padded to its width, or wider than it with one space each side. */
function padded(row: string, widths: readonly number[]): boolean {
  const cells = splitRaw(row)
  if (cells.length !== widths.length) return false
  return cells.every((raw, i) => {
    const width = widths[i]!
    const length = raw.trim().length
    return length > width ? raw.length === length + 2 : raw.length === width + 2
  })
}

function samePipes(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((value, i) => value === b[i])
}
