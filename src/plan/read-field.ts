import type {ListItem} from 'mdast'
import type {Locator} from './locate.js'
import {normalizeKey} from './normalize-key.js'
import {readBlock} from './read-block.js'
import {trimLines} from './trim-lines.js'
import type {Field} from './types.js'

/** `- **key**: value`, `- **key:** value`, `- key: value`, `` - `key`: value `` (any case, `-`/`_`/space between words). */
const fieldLine = /^[-*+][ \t]+(?:\*\*([^*\n]+?)\*\*[ \t]*:|\*\*([^*\n]+?):\*\*|__([^_\n]+?)__[ \t]*:|`?([A-Za-z][A-Za-z0-9 _-]*?)`?[ \t]*:)[ \t]*/
const blockMarker = /^[|>][-+]?[ \t]*$/

/** A field read from one list item, plus where its value's source is. */
export interface FieldRead {
  field: Field
  /** Offsets of the value's source (for list values and positions). */
  valueStart: number
  valueEnd: number
  /** Set when the value is an indented `|` block. */
  block: boolean
  /** Where the item's source ends (past a block that outruns the list item). */
  end: number
  /** Whether the value starts on the key's own line (else it is on the lines below, or empty). */
  onKeyLine: boolean
}

/** Read a list item as a field; `undefined` when it is not `key: value`. */
export function readField(item: ListItem, text: string, at: Locator, limit: number): FieldRead | undefined {
  const start = item.position!.start.offset!
  const itemEnd = item.position!.end.offset!
  const firstLineEnd = at.lineEnd(start)
  const match = fieldLine.exec(text.slice(start, firstLineEnd))
  if (!match) return undefined
  const rawKey = (match[1] ?? match[2] ?? match[3] ?? match[4]!).trim()
  const key = normalizeKey(rawKey)
  if (!/^[a-z][a-z0-9_]*$/.test(key)) return undefined
  const valueStart = start + match[0].length
  const inline = text.slice(valueStart, firstLineEnd)

  if (blockMarker.test(inline)) {
    const next = text.indexOf('\n', firstLineEnd)
    const block = next === -1 ? undefined : readBlock(text, next + 1, limit, at)
    if (block) {
      return {
        field: {key, rawKey, value: block.text, position: at.span(start, Math.max(block.end, itemEnd))},
        valueStart: block.start,
        valueEnd: block.end,
        block: true,
        end: Math.max(block.end, itemEnd),
        onKeyLine: false
      }
    }
    // `prompt: |` with nothing indented under it: an empty value, not a `|`.
    return {field: {key, rawKey, value: '', position: at.span(start, itemEnd)}, valueStart: firstLineEnd, valueEnd: firstLineEnd, block: true, end: itemEnd, onKeyLine: false}
  }

  const onKeyLine = inline.trim() !== ''
  // A value on the lines below the key starts at its line's beginning, so that
  // its first line is de-indented like the others.
  let [from, to] = trimLines(text, valueStart, itemEnd)
  if (!onKeyLine && to > from) from = at.lineStart(from)
  return {
    field: {key, rawKey, value: dedent(text.slice(from, to), onKeyLine), position: at.span(start, itemEnd)},
    valueStart: from,
    valueEnd: to,
    block: false,
    end: itemEnd,
    onKeyLine
  }
}

/** Remove the common indent of the value's lines (a first line on the key's line has none of its own). */
function dedent(value: string, onKeyLine: boolean): string {
  const lines = value.split(/\r?\n/)
  if (lines.length === 1 && onKeyLine) return value
  const measured = onKeyLine ? lines.slice(1) : lines
  let indent = Infinity
  for (const line of measured) if (line.trim() !== '') indent = Math.min(indent, /^[ \t]*/.exec(line)![0].length)
  if (indent === Infinity || indent === 0) return lines.join('\n')
  const cut = (line: string): string => line.slice(Math.min(indent, /^[ \t]*/.exec(line)![0].length))
  return onKeyLine ? [lines[0], ...lines.slice(1).map(cut)].join('\n') : lines.map(cut).join('\n')
}
