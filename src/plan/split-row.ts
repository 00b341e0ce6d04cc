import type {Locator} from './locate.js'
import {noneAsEmpty} from './none-as-empty.js'
import type {StateCell} from './types.js'

/**
 * Split one GFM table line (from `start` to `end` in `text`) into cells, the
 * way GFM does: on pipes not escaped as `\|`, leading and trailing pipes
 * optional. Each cell keeps its raw text between the pipes and its span.
 */
export function splitRow(text: string, start: number, end: number, at: Locator): StateCell[] {
  let from = start
  while (from < end && (text[from] === ' ' || text[from] === '\t')) from++
  let to = end
  while (to > from && (text[to - 1] === ' ' || text[to - 1] === '\t')) to--
  if (text[from] === '|') from++
  // A trailing pipe closes the last cell; an escaped one is cell content.
  const closed = to > from && text[to - 1] === '|' && text[to - 2] !== '\\'
  const last = closed ? to - 1 : end

  const cells: StateCell[] = []
  let cellStart = from
  for (let index = from; index <= last; index++) {
    if (index < last) {
      const code = text.charCodeAt(index)
      if (code === 92 /* \ */) {
        index++
        continue
      }
      if (code !== 124 /* | */) continue
    }
    const raw = text.slice(cellStart, Math.min(index, last))
    cells.push({value: cellValue(raw), raw, position: at.span(cellStart, Math.min(index, last))})
    cellStart = index + 1
  }
  return cells
}

/**
 * Trimmed, `\|` unescaped, `—` read as empty. The exact inverse of the store's
 * `escapeCell`, which doubles a run of backslashes before a pipe: inside a cell a
 * pipe always follows an odd run (an even one would end the cell), so halve it.
 */
export function cellValue(raw: string): string {
  const value = raw.trim().replace(/(\\+)\|/g, (_, run: string) => '\\'.repeat((run.length - 1) / 2) + '|')
  return noneAsEmpty(value)
}
