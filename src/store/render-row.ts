import type {Align, TableStyle} from './detect-table-style.js'

/** One table line from already-escaped cell texts, in the table's style. */
export function renderRow(cells: readonly string[], style: TableStyle): string {
  const parts = cells.map((cell, i) => {
    if (!style.aligned) return cell === '' ? ' ' : ` ${cell} `
    return ` ${pad(cell, style.widths[i] ?? cell.length, style.align[i] ?? 'none')} `
  })
  return join(parts, style)
}

/** The delimiter line of an aligned table, for re-padding it. */
export function renderDelimiter(style: TableStyle, columns: number): string {
  const parts: string[] = []
  for (let i = 0; i < columns; i++) {
    const width = style.widths[i] ?? 3
    const dashes = style.delimiterSpaced ? ` ${dash(width, style.align[i] ?? 'none')} ` : dash(width + 2, style.align[i] ?? 'none')
    parts.push(dashes)
  }
  return join(parts, style)
}

function join(parts: readonly string[], style: TableStyle): string {
  let line = parts.join('|')
  if (style.leadingPipe) line = '|' + line
  else line = line.replace(/^ /, '')
  if (style.trailingPipe) line += '|'
  else line = line.replace(/ +$/, '')
  return style.indent + line
}

function pad(text: string, width: number, align: Align): string {
  const room = Math.max(0, width - text.length)
  if (align === 'right') return ' '.repeat(room) + text
  if (align === 'center') return ' '.repeat(room >> 1) + text + ' '.repeat(room - (room >> 1))
  return text + ' '.repeat(room)
}

function dash(width: number, align: Align): string {
  const n = Math.max(width, 3)
  if (align === 'center') return ':' + '-'.repeat(n - 2) + ':'
  if (align === 'left') return ':' + '-'.repeat(n - 1)
  if (align === 'right') return '-'.repeat(n - 1) + ':'
  return '-'.repeat(n)
}
