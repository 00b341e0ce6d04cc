import type {Locator} from './locate.js'

/** An indented block (`prompt: |` and following lines): de-indented text and the offsets of its source. */
export interface Block {
  text: string
  start: number
  end: number
}

/**
 * Read the indented block that starts on the line at `from`: every following
 * line that is blank or indented at least as far as the block's first line.
 * Returns the block de-indented by that amount, verbatim otherwise (headings,
 * lists and code fences inside stay as written). `undefined` when the first
 * non-blank line is not indented.
 */
export function readBlock(text: string, from: number, limit: number, at: Locator): Block | undefined {
  let indent = -1
  let start = -1
  let end = -1
  const lines: Array<[number, number]> = []
  let offset = from
  while (offset < limit) {
    const lineEnd = Math.min(at.lineEnd(offset), limit)
    const line = text.slice(offset, lineEnd)
    const blank = line.trim() === ''
    if (!blank) {
      const width = /^[ \t]*/.exec(line)![0].length
      if (indent === -1) {
        if (width === 0) return undefined
        indent = width
        start = offset
      } else if (width < indent) break
      end = lineEnd
    }
    if (indent !== -1) lines.push([offset, lineEnd])
    const next = text.indexOf('\n', lineEnd)
    if (next === -1) break
    offset = next + 1
  }
  if (indent === -1) return undefined

  let result = ''
  for (const [lineStart, lineEnd] of lines) {
    if (lineStart > end) break
    if (result !== '' || lineStart !== start) result += '\n'
    result += text.slice(Math.min(lineStart + indent, lineEnd), lineEnd)
  }
  return {text: result, start, end}
}
