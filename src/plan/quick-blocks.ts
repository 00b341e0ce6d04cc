import type {Code, Heading, List, ListItem, Paragraph, RootContent, Table} from 'mdast'
import {QuickLines, type Point} from './quick-lines.js'

// A reader of the few block shapes that make up most of a generated plan (ATX headings, plain
// paragraphs, `- ` lists of one-paragraph items, column-0 fences, pipe tables). It gives the lean
// tree micromark gives (src/plan/parse-markdown.ts), node for node and position for position, at
// a small fraction of micromark's cost. Anything it is not sure of makes it give up on the whole
// region, which micromark then parses: a line that could start or interrupt a block (see
// `special` in src/plan/quick-lines.ts), indentation where a block starts, tabs, carriage
// returns, inline syntax in a heading, a fence left open. test/unit/plan/quick-parse.test.ts
// compares it with micromark.

/** Heading text a blocks-only parse could read differently from its characters (inline syntax, escapes, references). */
const inlineSyntax = /[\\`*_<[\]!~@&]|https?:\/\/|www\./i
const headingLine = /^(#{1,6})( +)([^ ].*)$/
const fenceOpen = /^(`{3,}|~{3,}) *([^ ]*)(?: +(.*))?$/
const delimiterCell = /^ *(:?)-+(:?) *$/

/**
 * The lean blocks of `text` from `start` to `end`, a region that begins at
 * the start of a line (numbered `line`, from 1) and ends where the next
 * region's column-0 ATX heading begins (or at the end of the text); or
 * undefined when the region holds anything this reader does not handle.
 */
export function quickBlocks(text: string, start: number, end: number, line: number): RootContent[] | undefined {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c === 9 || c === 13 || c === 0) return undefined
  }
  const nodes: RootContent[] = []
  const lines = new QuickLines(text, start, end, line)

  if (text[lines.o] === '#') {
    const heading = readHeading(lines.source(), lines.o, lines.n)
    if (!heading) return undefined
    nodes.push(heading)
    lines.advance()
  }

  while (lines.more()) {
    if (lines.blank()) {
      lines.advance()
      continue
    }
    const c = text[lines.o]!
    // Indentation where a block starts (indented code, a list's later paragraph, …).
    if (c === ' ') return undefined
    const node = readBlock(lines, c)
    if (!node) return undefined
    nodes.push(node)
  }
  return nodes
}

/** The block that starts on the current line (whose first character is `c`), the cursor left after it; or undefined. */
function readBlock(lines: QuickLines, c: string): RootContent | undefined {
  if (c === '`' || c === '~') return readFence(lines, c)
  if (c === '-' && lines.text[lines.o + 1] === ' ') return readList(lines)
  if (c === '|') return readTable(lines)
  return readParagraph(lines)
}

/** A column-0 fence opened with `c` and closed before the region ends, or undefined. */
function readFence(lines: QuickLines, c: string): Code | undefined {
  const from = lines.at(lines.o)
  const source = lines.source()
  const opener = fenceOpen.exec(source)
  if (!opener || source.endsWith(' ') || /[\\&]/.test(source) || (c === '`' && source.indexOf('`', opener[1]!.length) !== -1)) return undefined
  const fence = opener[1]!
  const body: string[] = []
  for (lines.advance(); ; lines.advance()) {
    if (!lines.more()) return undefined
    const line = lines.source()
    const trimmed = trimSpaces(line)
    if (line.length - trimStartSpaces(line).length < 4 && trimmed.length >= fence.length && trimmed === c.repeat(trimmed.length)) break
    body.push(line)
  }
  const code: Code = {type: 'code', lang: opener[2] || null, meta: opener[3] ?? null, value: body.join('\n'), position: {start: from, end: lines.at(lines.e)}}
  lines.advance()
  return code
}

/** A tight `- ` list of one-paragraph items of plain text, or undefined. */
function readList(lines: QuickLines): List | undefined {
  const {text} = lines
  const from = lines.at(lines.o)
  const list: List = {type: 'list', ordered: false, start: null, spread: false, children: []}
  let item: ListItem | undefined
  let last = from
  while (lines.more() && !lines.blank()) {
    const o = lines.o
    if (text[o] === '-' && text[o + 1] === ' ') {
      // A new item: one space after the marker, then plain text.
      if (text[o + 2] === ' ' || !lines.plain(o + 2)) return undefined
      if (item) close(item, last)
      item = {type: 'listItem', spread: false, checked: null, children: [{type: 'paragraph', children: [], position: {start: lines.at(o + 2), end: from}}], position: {start: lines.at(o), end: from}}
      list.children.push(item)
    } else if (!lines.plain(o)) return undefined
    last = lines.at(lines.e)
    lines.advance()
  }
  close(item!, last)
  // After a blank line, an indented line would belong to the last item and a `- ` would make the list loose.
  while (lines.more() && lines.blank()) lines.advance()
  if (lines.more() && (text[lines.o] === ' ' || (text[lines.o] === '-' && text[lines.o + 1] === ' '))) return undefined
  list.position = {start: from, end: {...last}}
  return list
}

/** A pipe table: header and delimiter rows of as many cells, then rows that each start with `|`; or undefined. */
function readTable(lines: QuickLines): Table | undefined {
  const from = lines.at(lines.o)
  const header = trimEndSpaces(lines.source())
  lines.advance()
  if (!lines.more()) return undefined
  const delimiter = trimEndSpaces(lines.source())
  const cells = delimiter.slice(1, -1).split('|')
  if (header.length < 2 || !header.endsWith('|') || header.includes('\\') || delimiter.length < 2 || delimiter[0] !== '|' || !delimiter.endsWith('|')) return undefined
  if (header.slice(1, -1).split('|').length !== cells.length) return undefined
  const align: Table['align'] = []
  for (const cell of cells) {
    const match = delimiterCell.exec(cell)
    if (!match) return undefined
    align.push(match[1] && match[2] ? 'center' : match[1] ? 'left' : match[2] ? 'right' : null)
  }
  let last = lines.at(lines.e)
  for (lines.advance(); lines.more() && !lines.blank(); lines.advance()) {
    if (lines.text[lines.o] !== '|') return undefined
    last = lines.at(lines.e)
  }
  return {type: 'table', align, children: [], position: {start: from, end: last}}
}

/** A paragraph of plain lines, or undefined. */
function readParagraph(lines: QuickLines): Paragraph | undefined {
  const from = lines.at(lines.o)
  if (!lines.plain(lines.o)) return undefined
  let last = lines.at(lines.e)
  for (lines.advance(); lines.more() && !lines.blank(); lines.advance()) {
    if (!lines.plain(lines.o)) return undefined
    last = lines.at(lines.e)
  }
  return {type: 'paragraph', children: [], position: {start: from, end: last}}
}

/** End the item (and its one paragraph) at `last`. */
function close(item: ListItem, last: Point): void {
  item.children[0]!.position!.end = {...last}
  item.position!.end = {...last}
}

/** A column-0 ATX heading whose text is plain (no closing `#`s, no inline syntax), or undefined. */
function readHeading(source: string, offset: number, line: number): Heading | undefined {
  const match = headingLine.exec(source)
  if (!match) return undefined
  const content = trimEndSpaces(match[3]!)
  if (content.endsWith('#') || inlineSyntax.test(content)) return undefined
  const start = offset + match[1]!.length + match[2]!.length
  const point = (where: number): Point => ({line, column: where - offset + 1, offset: where})
  return {
    type: 'heading',
    depth: match[1]!.length as Heading['depth'],
    children: [{type: 'text', value: content, position: {start: point(start), end: point(start + content.length)}}],
    position: {start: point(offset), end: point(offset + source.length)}
  }
}

// Markdown's whitespace here is the space (tabs never reach this reader); JavaScript's trim would
// also take a no-break space or an em space, which micromark reads as text.
const trimEndSpaces = (text: string): string => text.replace(/ +$/, '')
const trimStartSpaces = (text: string): string => text.replace(/^ +/, '')
const trimSpaces = (text: string): string => trimEndSpaces(trimStartSpaces(text))
