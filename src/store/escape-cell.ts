import {noneAsEmpty} from '../plan/none-as-empty.js'

/**
 * A value as a table cell's text: `|` escaped as `\|`, newlines turned into
 * spaces, so a cell can never end its row early or break the table. A run of
 * backslashes before a pipe is doubled, or it would escape the pipe's escape.
 */
export function escapeCell(value: string): string {
  return normalizeCell(value)
    .replace(/(\\+)(?=\|)/g, '$1$1')
    .replace(/\|/g, '\\|')
}

/** What `trim()` (and so the reader) removes: any Unicode space, not only ASCII ones. */
const edgeSpace = /\s/

/** What a cell reads back as: one line, trimmed, a lone dash meaning none (''). */
export function normalizeCell(value: string): string {
  // Most cells are already one trimmed line: skip the regex work (a write normalizes every cell).
  const last = value.length - 1
  if (last > 0 && value.indexOf('\n') === -1 && value.indexOf('\r') === -1 && !edgeSpace.test(value[0]!) && !edgeSpace.test(value[last]!)) return value
  const line = value.replace(/\r\n|\r|\n/g, ' ').trim()
  return noneAsEmpty(line)
}
