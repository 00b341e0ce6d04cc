import type {Heading, Root, RootContent} from 'mdast'
import type {Node} from 'unist'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'
import {inlineText} from './inline-text.js'
import {quickParse} from './quick-parse.js'
import {remarkBlocksOnly} from './remark-blocks-only.js'

// Frozen processors: building one per call costs more than small plans take to parse.
const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).freeze()
// What lean parses use: the same blocks, inline text left plain (headings are completed below).
const blocksOnly = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).use(remarkBlocksOnly).freeze()

/** Heading text that inline syntax could change (else the plain text is what a full parse gives). */
const inlineSyntax = /[\\`*_<[\]!~@]|https?:\/\/|www\./i

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
      for (const child of part.children) shift(child, start, line - 1)
      return {nodes: part.children, open}
    })
    if (tree) return tree
  }
  const parse = lean ? leanParse : (chunk: string): Root => processor.parse(chunk)
  if (text.length <= chunkSize * 2) return parse(text)
  const root: Root = {type: 'root', children: []}
  let start = 0
  let line = 0
  headingLine.lastIndex = chunkSize
  for (let match = headingLine.exec(text); match; match = headingLine.exec(text)) {
    const cut = match.index
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
    shift(child, offset, line)
    root.children.push(child)
  }
  let lines = line
  for (let index = chunk.indexOf('\n'); index !== -1; index = chunk.indexOf('\n', index + 1)) lines++
  return lines
}

function shift(node: Node, offset: number, line: number): void {
  const position = node.position
  if (position) {
    position.start.offset = (position.start.offset ?? 0) + offset
    position.end.offset = (position.end.offset ?? 0) + offset
    position.start.line += line
    position.end.line += line
  }
  const children = (node as {children?: Node[]}).children
  if (children) for (const child of children) shift(child, offset, line)
}

/** Whether the chunk's last block is a fence or HTML block still open at its end. */
function endsOpen(tree: Root, chunk: string): boolean {
  let node: RootContent | undefined = tree.children[tree.children.length - 1]
  while (node) {
    if (node.type === 'html') return openHtml(node.value, chunk)
    if (node.type === 'code') return !closedFence(chunk, node.position!.start.offset!, node.position!.end.offset!)
    node = 'children' in node && node.children.length > 0 ? (node.children[node.children.length - 1] as RootContent) : undefined
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

/**
 * `leanTree` of a full parse, computed without parsing inline syntax where it
 * is dropped anyway: blocks only, then each heading whose text could hold
 * inline syntax is parsed on its own (a plan reads its headings' text).
 */
function leanParse(text: string): Root {
  const tree = leanTree(blocksOnly.parse(text))
  const found: {headings: Heading[]; definitions: boolean} = {headings: [], definitions: false}
  collect(tree, found)
  for (const heading of found.headings) {
    const plain = inlineText(heading)
    if (!inlineSyntax.test(plain)) continue
    const start = heading.position!.start
    const source = text.slice(start.offset!, heading.position!.end.offset!)
    // A heading inside a container (a list, a quote) reads differently alone, and so
    // does a reference to a definition elsewhere: then parse the whole text instead.
    const alone = start.column === 1 && !(found.definitions && plain.includes('[')) ? processor.parse(source).children : []
    const full = alone.length === 1 && alone[0]!.type === 'heading' ? alone[0] : undefined
    if (!full || full.position!.end.offset !== source.length) return leanTree(processor.parse(text))
    for (const child of full.children) shift(child, start.offset!, start.line - 1)
    heading.children = full.children
  }
  return tree
}

function collect(node: Node, found: {headings: Heading[]; definitions: boolean}): void {
  if (node.type === 'heading') found.headings.push(node as Heading)
  else if (node.type === 'definition' || node.type === 'footnoteDefinition') found.definitions = true
  for (const child of (node as {children?: Node[]}).children ?? []) collect(child, found)
}

/**
 * Drop the inline content of paragraphs and tables: plan reading uses their
 * positions (and the source text), never their phrasing nodes, which are most
 * of a tree's weight. Headings, code, lists and list items stay whole.
 */
export function leanTree<T extends Node>(node: T): T {
  const parent = node as unknown as {type: string; children?: Node[]}
  if (!parent.children) return node
  if (parent.type === 'paragraph' || parent.type === 'table') parent.children = []
  else for (const child of parent.children) leanTree(child)
  return node
}
