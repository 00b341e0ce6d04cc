import type {Heading, List, ListItem, RootContent, Table} from 'mdast'

// A reader of the few block shapes that make up most of a generated plan (ATX headings, plain
// paragraphs, `- ` lists of one-paragraph items, column-0 fences, pipe tables). It gives the lean
// tree micromark gives (src/plan/parse-markdown.ts), node for node and position for position, at
// a small fraction of micromark's cost. Anything it is not sure of makes it give up on the whole
// region, which micromark then parses: a line that could start or interrupt a block (see
// `special`), indentation where a block starts, tabs, carriage returns, inline syntax in a
// heading, a fence left open. test/unit/plan/quick-parse.test.ts compares it with micromark.

type Point = {line: number; column: number; offset: number}

/** A line whose first non-space character is one of these could start or interrupt a block (or be a table's delimiter row, a setext underline, a definition). */
const special = new Set(['#', '>', '-', '=', '|', '~', '`', '<', '[', ':', '\\'])
/** These start a block only as a bullet (followed by a space or the line's end) or a thematic break (`***`, `___`). */
const bullets = new Set(['*', '+', '_'])
const thematicBreak = /^([*_])(?: *\1){2,} *$/
/** An ordered list's marker. */
const ordered = /^\d{1,9}[.)]/
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
  // The current line: its start, its end (its `\n`, or `end`) and its number.
  let o = start
  let e = lineEnd(o)
  let n = line
  function lineEnd(from: number): number {
    const at = text.indexOf('\n', from)
    return at === -1 || at > end ? end : at
  }
  const advance = (): void => {
    o = e + 1
    e = o < end ? lineEnd(o) : end
    n++
  }
  const more = (): boolean => o < end
  const at = (offset: number): Point => ({line: n, column: offset - o + 1, offset})
  const blank = (): boolean => {
    for (let i = o; i < e; i++) if (text.charCodeAt(i) !== 32) return false
    return true
  }
  /** Whether the current line, from `from`, reads as plain text where a paragraph goes on. */
  const plain = (from: number): boolean => {
    let i = from
    while (i < e && text.charCodeAt(i) === 32) i++
    if (i === e) return false
    const c = text[i]!
    if (bullets.has(c)) return c !== '_' && (i + 1 === e || text[i + 1] === ' ') ? false : !thematicBreak.test(text.slice(i, e))
    return !special.has(c) && !ordered.test(text.slice(i, Math.min(i + 11, e)))
  }

  if (text[o] === '#') {
    const heading = readHeading(text.slice(o, e), o, n)
    if (!heading) return undefined
    nodes.push(heading)
    advance()
  }

  while (more()) {
    if (blank()) {
      advance()
      continue
    }
    const c = text[o]!
    // Indentation where a block starts (indented code, a list's later paragraph, …).
    if (c === ' ') return undefined
    const from = at(o)
    if (c === '`' || c === '~') {
      const source = text.slice(o, e)
      const opener = fenceOpen.exec(source)
      if (!opener || source.endsWith(' ') || /[\\&]/.test(source) || (c === '`' && source.indexOf('`', opener[1]!.length) !== -1)) return undefined
      const fence = opener[1]!
      const lines: string[] = []
      for (advance(); ; advance()) {
        if (!more()) return undefined
        const body = text.slice(o, e)
        const trimmed = trimSpaces(body)
        if (body.length - trimStartSpaces(body).length < 4 && trimmed.length >= fence.length && trimmed === c.repeat(trimmed.length)) break
        lines.push(body)
      }
      nodes.push({type: 'code', lang: opener[2] || null, meta: opener[3] ?? null, value: lines.join('\n'), position: {start: from, end: at(e)}})
      advance()
      continue
    }
    if (c === '-' && text[o + 1] === ' ') {
      const list: List = {type: 'list', ordered: false, start: null, spread: false, children: []}
      let item: ListItem | undefined
      let last = from
      while (more() && !blank()) {
        if (text[o] === '-' && text[o + 1] === ' ') {
          // A new item: one space after the marker, then plain text.
          if (text[o + 2] === ' ' || !plain(o + 2)) return undefined
          if (item) close(item, last)
          item = {type: 'listItem', spread: false, checked: null, children: [{type: 'paragraph', children: [], position: {start: at(o + 2), end: from}}], position: {start: at(o), end: from}}
          list.children.push(item)
        } else if (!plain(o)) return undefined
        last = at(e)
        advance()
      }
      close(item!, last)
      // After a blank line, an indented line would belong to the last item and a `- ` would make the list loose.
      while (more() && blank()) advance()
      if (more() && (text[o] === ' ' || (text[o] === '-' && text[o + 1] === ' '))) return undefined
      list.position = {start: from, end: {...last}}
      nodes.push(list)
      continue
    }
    if (c === '|') {
      // Header and delimiter rows of as many cells, then rows that each start with `|`.
      const header = trimEndSpaces(text.slice(o, e))
      advance()
      if (!more()) return undefined
      const delimiter = trimEndSpaces(text.slice(o, e))
      const cells = delimiter.slice(1, -1).split('|')
      if (header.length < 2 || !header.endsWith('|') || header.includes('\\') || delimiter.length < 2 || delimiter[0] !== '|' || !delimiter.endsWith('|')) return undefined
      if (header.slice(1, -1).split('|').length !== cells.length) return undefined
      const align: Table['align'] = []
      for (const cell of cells) {
        const match = delimiterCell.exec(cell)
        if (!match) return undefined
        align.push(match[1] && match[2] ? 'center' : match[1] ? 'left' : match[2] ? 'right' : null)
      }
      let last = at(e)
      for (advance(); more() && !blank(); advance()) {
        if (text[o] !== '|') return undefined
        last = at(e)
      }
      nodes.push({type: 'table', align, children: [], position: {start: from, end: last}})
      continue
    }
    if (!plain(o)) return undefined
    let last = at(e)
    for (advance(); more() && !blank(); advance()) {
      if (!plain(o)) return undefined
      last = at(e)
    }
    nodes.push({type: 'paragraph', children: [], position: {start: from, end: last}})
  }
  return nodes
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
