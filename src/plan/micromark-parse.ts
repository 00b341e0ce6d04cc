import type {Heading, Root} from 'mdast'
import type {Node} from 'unist'
import {unified} from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'
import {inlineText} from './inline-text.js'
import {leanTree} from './lean-tree.js'
import {remarkBlocksOnly} from './remark-blocks-only.js'
import {shiftPositions} from './shift-positions.js'

// The Markdown parser itself (unified, remark, micromark), apart from the rest of the plan
// reader: the bundles load this module only when a plan needs it (scripts/bundle.js), since
// src/plan/quick-blocks.ts reads most generated plans without it.

// Frozen processors: building one per call costs more than small plans take to parse.
const processor = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).freeze()
// What lean parses use: the same blocks, inline text left plain (headings are completed below).
const blocksOnly = unified().use(remarkParse).use(remarkGfm).use(remarkFrontmatter).use(remarkBlocksOnly).freeze()

/** Heading text that inline syntax could change (else the plain text is what a full parse gives). */
const inlineSyntax = /[\\`*_<[\]!~@]|https?:\/\/|www\./i

/** micromark's tree of `text` (GFM, YAML front matter), or its lean tree (see `leanParse`). */
export function micromarkParse(text: string, lean: boolean): Root {
  return lean ? leanParse(text) : processor.parse(text)
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
    const source = text.slice(start.offset, heading.position!.end.offset)
    // A heading inside a container (a list, a quote) reads differently alone, and so
    // does a reference to a definition elsewhere: then parse the whole text instead.
    const alone = start.column === 1 && !(found.definitions && plain.includes('[')) ? processor.parse(source).children : []
    const full = alone.length === 1 && alone[0]!.type === 'heading' ? alone[0] : undefined
    if (!full || full.position!.end.offset !== source.length) return leanTree(processor.parse(text))
    for (const child of full.children) shiftPositions(child, start.offset!, start.line - 1)
    heading.children = full.children
  }
  return tree
}

function collect(node: Node, found: {headings: Heading[]; definitions: boolean}): void {
  if (node.type === 'heading') found.headings.push(node as Heading)
  else if (node.type === 'definition' || node.type === 'footnoteDefinition') found.definitions = true
  for (const child of (node as {children?: Node[]}).children ?? []) collect(child, found)
}

