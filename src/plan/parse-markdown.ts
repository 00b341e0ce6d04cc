import type {Root, RootContent} from 'mdast'
import {micromarkParse} from './micromark-parse.js'
import {quickParse} from './quick-parse.js'
import {shiftPositions} from './shift-positions.js'

export {leanTree} from './lean-tree.js'

/**
 * Chunks are at least this long (characters). Small chunks keep memory flat
 * and are faster too: one whole-document parse of a big plan is superlinear.
 */
const chunkSize = 4 * 1024
const headingLine = /^#{1,6}(?=[ \t\r\n]|$)/gm

/**
 * Markdown (GFM + YAML front matter) to mdast, with positions. Pass text
 * without a BOM.
 *
 * Large plans are parsed in chunks cut just before a heading at column 0:
 * such a line always ends the block before it (a paragraph, list, table or
 * indented code), except inside a fence or an HTML block; a cut whose chunk
 * ends inside one is not taken. So the tree is the one a single parse gives,
 * at a fraction of its peak memory (micromark holds every event of the whole
 * document at once: about 0.5 GB for a 1000-agent plan). One difference:
 * a link reference whose definition sits in another chunk stays plain text,
 * which nothing in a plan relies on.
 *
 * `lean` drops what a plan never reads (see `leanTree`), so that a big plan's
 * tree does not outweigh the plan. A lean parse reads the regions between
 * column-0 headings whose blocks are of a few plain shapes without micromark
 * (src/plan/quick-parse.ts; the same tree), unless `quick` is false.
 */
export function parseMarkdown(text: string, options: {lean?: boolean; quick?: boolean} = {}): Root {
  const lean = options.lean === true
  if (lean && options.quick !== false) {
    const tree = quickParse(text, (start, end, line) => {
      const chunk = text.slice(start, end)
      const part = parseMarkdown(chunk, {lean: true, quick: false})
      const open = endsOpen(part, chunk)
      for (const child of part.children) shiftPositions(child, start, line - 1)
      return {nodes: part.children, open}
    })
    if (tree) return tree
  }
  const parse = (chunk: string): Root => micromarkParse(chunk, lean)
  if (text.length <= chunkSize * 2) return parse(text)
  const root: Root = {type: 'root', children: []}
  let start = 0
  let line = 0
  headingLine.lastIndex = chunkSize
  for (let match = headingLine.exec(text); match; match = headingLine.exec(text)) {
    const cut = match.index
    // `^` also matches after U+2028 and U+2029, which are no line endings to Markdown: no cut there.
    const code = text.charCodeAt(cut - 1)
    if (code !== 10 && code !== 13) continue
    if (cut - start < chunkSize) {
      headingLine.lastIndex = start + chunkSize
      continue
    }
    const chunk = text.slice(start, cut)
    const tree = parse(chunk)
    // A chunk that ends inside a fence or HTML block would change the parse: grow it.
    if (endsOpen(tree, chunk)) continue
    line = append(root, tree, start, line, chunk)
    start = cut
    headingLine.lastIndex = start + chunkSize
  }
  const chunk = text.slice(start)
  const last = parse(chunk)
  const end = last.position!.end
  append(root, last, start, line, chunk)
  root.position = {start: {line: 1, column: 1, offset: 0}, end: {line: end.line + line, column: end.column, offset: (end.offset ?? 0) + start}}
  return root
}

/** Move a chunk's nodes into `root`, shifting their positions; returns the line count so far. */
function append(root: Root, tree: Root, offset: number, line: number, chunk: string): number {
  for (const child of tree.children) {
    shiftPositions(child, offset, line)
    root.children.push(child)
  }
  let lines = line
  for (let index = chunk.indexOf('\n'); index !== -1; index = chunk.indexOf('\n', index + 1)) lines++
  return lines
}

/** Whether the chunk's last block is a fence or HTML block still open at its end. */
function endsOpen(tree: Root, chunk: string): boolean {
  let node: RootContent | undefined = tree.children[tree.children.length - 1]
  while (node) {
    if (node.type === 'html') return openHtml(node.value, chunk)
    if (node.type === 'code') return !closedFence(chunk, node.position!.start.offset!, node.position!.end.offset!)
    node = 'children' in node && node.children.length > 0 ? (node.children[node.children.length - 1]) : undefined
  }
  return false
}

/** Whether the code block from `start` to `end` is an indented block or a fence with its closing line. */
export function closedFence(text: string, start: number, end: number): boolean {
  const firstLineEnd = text.indexOf('\n', start)
  const open = /^[ \t]*(`{3,}|~{3,})/.exec(text.slice(start, firstLineEnd === -1 ? end : firstLineEnd))
  if (!open) return true
  const lastLineStart = text.lastIndexOf('\n', end - 1) + 1
  if (lastLineStart <= start) return false
  const close = /^[ \t]*(`{3,}|~{3,})[ \t]*\r?$/.exec(text.slice(lastLineStart, end))
  return close !== null && close[1]![0] === open[1]![0] && close[1]!.length >= open[1]!.length
}

/**
 * HTML blocks of CommonMark kinds 1–5 (`<!--`, `<pre>`, `<?`, …) end only at
 * their terminator; the others end at a blank line.
 */
function openHtml(value: string, chunk: string): boolean {
  const ends: Array<[RegExp, RegExp]> = [
    [/^<!--/, /-->/],
    [/^<(?:pre|script|style|textarea)[\s>]/i, /<\/(?:pre|script|style|textarea)>/i],
    [/^<\?/, /\?>/],
    [/^<!\[CDATA\[/, /\]\]>/],
    [/^<![A-Za-z]/, />/]
  ]
  const start = value.trimStart()
  for (const [open, close] of ends) if (open.test(start)) return !close.test(start.slice(4))
  return !/\n[ \t]*\r?\n[ \t\r\n]*$/.test(chunk)
}

