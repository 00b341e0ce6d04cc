/** Where the `## Execution State` section is in a plan's text: from its heading's line to the next heading of depth ≤ 2. */
export interface SectionSpan {
  start: number
  end: number
}

const atx = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/
const underline = /^ {0,3}(?:=+|-+)[ \t]*$/
const htmlStart = /^ {0,3}<[A-Za-z/!?]/
const listOrQuote = /^ {0,3}(?:[-*+>]|\d{1,9}[.)])(?:[ \t]|$)/

/**
 * Find the state section by reading lines, without parsing the document: a
 * merge of a hand edit must not cost a parse of the whole plan (seconds at 1000
 * agents). Knows fences, HTML blocks and front matter, the only places a
 * heading line is not a heading in a plan. Returns `undefined` when there is
 * no such section, and `null` when the text holds a construct this reader does
 * not judge (a setext heading, an indented heading, a formatted title): the
 * caller then asks the full parser. The first such section counts, as for the
 * parser.
 */
export function locateStateSection(text: string): SectionSpan | undefined | null {
  let found: number | undefined
  let open: {char: string; size: number} | undefined
  /** Inside an HTML block: until a blank line, or until `-->` for a comment. */
  let html: 'blank' | 'comment' | undefined
  let previousBlank = true
  let offset = 0
  if (text.startsWith('---\n') || text.startsWith('---\r\n')) {
    const close = /\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text.slice(3))
    if (!close) return null
    offset = 3 + close.index + close[0].length
  }
  while (offset < text.length) {
    const newline = text.indexOf('\n', offset)
    const next = newline === -1 ? text.length : newline + 1
    const line = text.slice(offset, newline === -1 ? text.length : text[newline - 1] === '\r' ? newline - 1 : newline)
    const blank = line.trim() === ''
    const lineStart = offset
    offset = next
    if (open) {
      const close = fence.exec(line)
      if (close && close[1]![0] === open.char && close[1]!.length >= open.size && close[2]!.trim() === '') open = undefined
      previousBlank = false
      continue
    }
    if (html) {
      if (html === 'blank' ? blank : line.includes('-->')) html = undefined
      previousBlank = blank
      continue
    }
    const opened = fence.exec(line)
    if (opened && !(opened[1]![0] === '`' && opened[2]!.includes('`'))) {
      open = {char: opened[1]![0]!, size: opened[1]!.length}
      previousBlank = false
      continue
    }
    if (htmlStart.test(line)) {
      const comment = /^ {0,3}<!--/.test(line)
      if (!(comment ? line.includes('-->') : false)) html = comment ? 'comment' : 'blank'
      previousBlank = false
      continue
    }
    if (!previousBlank && underline.test(line) && !listOrQuote.test(line)) return null
    previousBlank = blank
    if (line[0] !== '#') {
      // An indented heading (1-3 spaces) is still a heading: rare, leave it to the parser.
      if (/^ {1,3}#/.test(line)) return null
      continue
    }
    const heading = atx.exec(line)
    if (!heading) continue
    const depth = heading[1]!.length
    if (depth > 2) continue
    if (found !== undefined) return {start: found, end: lineStart}
    if (depth !== 2) continue
    const title = heading[2] ?? ''
    if (/[*`[\]<&\\_]/.test(title)) return null
    if (key(title) === 'execution state') found = lineStart
    // A heading ends any paragraph: the next line cannot be a setext underline.
    previousBlank = true
  }
  if (open || html) return null
  return found === undefined ? undefined : {start: found, end: text.length}
}

function key(title: string): string {
  return title
    .toLowerCase()
    .replace(/[\s_-]+/g, ' ')
    .replace(/[:.]$/, '')
    .trim()
}
