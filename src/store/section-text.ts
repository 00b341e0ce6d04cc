import type {StateLayout} from './state-layout.js'

/** The section's text: its lines joined. */
export function sectionText(layout: StateLayout): string {
  const parts: string[] = [layout.pre, layout.header.text, layout.header.eol, layout.delimiter.text, layout.delimiter.eol]
  for (const row of layout.rows) parts.push(row.text, row.eol)
  for (const line of layout.post) parts.push(line.text, line.eol)
  return parts.join('')
}

/** The section's length in UTF-16 units (a layout's `end - start`), without joining it. */
export function sectionLength(layout: StateLayout): number {
  let length = layout.pre.length + layout.header.text.length + layout.header.eol.length + layout.delimiter.text.length + layout.delimiter.eol.length
  for (const row of layout.rows) length += row.text.length + row.eol.length
  for (const line of layout.post) length += line.text.length + line.eol.length
  return length
}
