/** Where the `## Execution State` section is in a plan's text: from its heading's line to the next heading of depth ≤ 2. */
export interface SectionSpan {
  start: number
  end: number
}

/** The only lines that can open or close a section, or hide a heading: headings, fences, HTML, setext underlines. */
const interesting = /^ {0,3}(?:#|`{3,}|~{3,}|<[A-Za-z/!?]|=+[ \t]*\r?$|-+[ \t]*\r?$)/gm
const atx = /^(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*\r?$/
const fence = /^ {0,3}(`{3,}|~{3,})(.*?)\r?$/
const blankLine = /\n[ \t]*\r?(?:\n|$)/g

/**
 * Find the state section by reading lines, without parsing the document: a
 * merge of a hand edit must not cost a parse of the whole plan (seconds at 1000
 * agents). Only the lines that can matter are looked at (a regex search finds
 * them). Knows fences, HTML blocks and front matter, the places a heading line
 * is not a heading in a plan. Returns `undefined` when there is no such
 * section, and `null` when the text holds a construct this reader does not
 * judge (a possible setext heading, an indented heading, a formatted title):
 * the caller then asks the full parser. The first such section counts, as for
 * the parser.
 */
export function locateStateSection(text: string): SectionSpan | undefined | null {
  let found: number | undefined
  let from = 0
  if (text.startsWith('---\n') || text.startsWith('---\r\n')) {
    const close = /\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text.slice(3))
    if (!close) return null
    from = 3 + close.index + close[0].length
  }
  interesting.lastIndex = from
  for (let match = interesting.exec(text); match; match = interesting.exec(text)) {
    const start = match.index
    const newline = text.indexOf('\n', start)
    const end = newline === -1 ? text.length : newline
    const line = text.slice(start, end)
    const trimmed = line.trimStart()
    const next = (offset: number): void => {
      interesting.lastIndex = offset
    }
    next(end + 1)
    if (trimmed[0] === '`' || trimmed[0] === '~') {
      const opened = fence.exec(line)!
      if (opened[1]![0] === '`' && opened[2]!.includes('`')) continue
      // Skip to the closing fence; an unclosed one runs to the end, where the parser's judgement is needed.
      const close = closingFence(text, end + 1, opened[1]!)
      if (close === -1) return null
      next(close)
      continue
    }
    if (trimmed[0] === '<') {
      if (/^ {0,3}<!--/.test(line)) {
        const close = text.indexOf('-->', start)
        if (close === -1) return null
        next(close)
        continue
      }
      // Other HTML: a block to the next blank line, or a paragraph a heading may interrupt; or a
      // `<pre>`-like block that runs over blank lines. Only plain cases are judged here.
      if (/^ {0,3}<(?:script|pre|style|textarea)\b/i.test(line)) return null
      const close = blankAfter(text, start)
      if (close === -1 || /\n {0,3}#/.test(text.slice(start, close))) return null
      next(close)
      continue
    }
    if (trimmed[0] === '=' || trimmed[0] === '-') {
      // Under a paragraph line, an underline makes a heading: leave that to the parser.
      if (start > 0 && !blankBefore(text, start)) return null
      continue
    }
    if (line[0] !== '#') return null
    const heading = atx.exec(line)
    if (!heading) continue
    const depth = heading[1]!.length
    if (depth > 2) continue
    if (found !== undefined) return {start: found, end: start}
    if (depth !== 2) continue
    const title = heading[2] ?? ''
    if (/[*`[\]<&\\_]/.test(title)) return null
    // The parser's section key: case, spaces, `_` and `-` alike, a trailing `:` or `.` dropped.
    if (/^execution[\s_-]+state[:.]?$/i.test(title.trim())) found = start
  }
  return found === undefined ? undefined : {start: found, end: text.length}
}

/** Where the line after the fence that closes one opened with `marker` starts; -1 when none does. */
function closingFence(text: string, from: number, marker: string): number {
  for (let offset = from; offset < text.length; ) {
    const newline = text.indexOf('\n', offset)
    const end = newline === -1 ? text.length : newline
    const close = fence.exec(text.slice(offset, end))
    if (close && close[1]![0] === marker[0] && close[1]!.length >= marker.length && close[2]!.trim() === '') return end + 1
    offset = end + 1
  }
  return -1
}

/** Where the first blank line after `offset` is (the end of an HTML block); -1 when none is. */
function blankAfter(text: string, offset: number): number {
  blankLine.lastIndex = offset
  const match = blankLine.exec(text)
  return match ? match.index + 1 : -1
}

/** Whether the line before the one starting at `start` is blank or a heading (no paragraph to underline). */
function blankBefore(text: string, start: number): boolean {
  const previous = text.slice(text.lastIndexOf('\n', start - 2) + 1, start - 1)
  return previous.trim() === '' || /^ {0,3}#/.test(previous)
}
