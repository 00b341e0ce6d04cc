import type {Root, RootContent, Yaml} from 'mdast'
import {quickBlocks} from './quick-blocks.js'

/** micromark's lean parse of `text` from `start` (at the start of line `line`) to `end`, positions shifted into `text`, and whether its last block is a fence or HTML block still open at `end`. */
export type FullParse = (start: number, end: number, line: number) => {nodes: RootContent[]; open: boolean}

const headingLine = /^#{1,6}(?=[ \t\n]|$)/gm

/**
 * The lean tree of `text`, cut into regions at its column-0 ATX headings (and
 * after its front matter): each region that `quickBlocks` reads is read by
 * it, the rest by `full` (micromark), a run of such regions at a time. A
 * region `full` leaves inside an open fence or HTML block takes the next
 * region in, as parseMarkdown's chunks do, since the heading that starts it
 * is then no heading. Undefined when no region could be read quickly (or the
 * text has carriage returns or front matter this reader does not follow):
 * then the whole text is micromark's.
 */
export function quickParse(text: string, full: FullParse): Root | undefined {
  if (text.includes('\r')) return undefined
  const children: RootContent[] = []
  const starts: number[] = []
  let from = 0
  if (text.startsWith('---')) {
    const yaml = frontMatter(text)
    if (!yaml) return undefined
    from = yaml.position!.end.offset!
    children.push(yaml)
  }
  starts.push(from)
  headingLine.lastIndex = from
  for (let match = headingLine.exec(text); match; match = headingLine.exec(text)) {
    // `^` also matches after U+2028 and U+2029, which are no line endings to Markdown.
    if (match.index > from && text.charCodeAt(match.index - 1) === 10) starts.push(match.index)
  }
  starts.push(text.length)

  const regions = starts.length - 1
  const lines: number[] = []
  let line = 1
  for (let r = 0, at = 0; r < regions; r++) {
    for (let i = text.indexOf('\n', at); i !== -1 && i < starts[r]!; i = text.indexOf('\n', i + 1)) line++
    at = starts[r]!
    lines.push(line)
  }
  const quick = starts.slice(0, -1).map((start, r) => quickBlocks(text, start, starts[r + 1]!, lines[r]!))
  if (!quick.some((nodes) => nodes !== undefined)) return undefined

  for (let r = 0; r < regions; ) {
    const nodes = quick[r]
    if (nodes) {
      children.push(...nodes)
      r++
      continue
    }
    let next = r + 1
    for (;;) {
      while (next < regions && !quick[next]) next++
      const parsed = full(starts[r]!, starts[next]!, lines[r]!)
      if (!parsed.open || next === regions) {
        children.push(...parsed.nodes)
        break
      }
      next++
    }
    r = next
  }

  const lastBreak = text.lastIndexOf('\n')
  const end = {line: lines[0]! + count(text, starts[0]!, '\n'), column: text.length - lastBreak, offset: text.length}
  return {type: 'root', children, position: {start: {line: 1, column: 1, offset: 0}, end}}
}

/** Front matter that micromark reads as such for sure (a `---` line, its YAML, a `---` line), or undefined. */
function frontMatter(text: string): Yaml | undefined {
  if (text[3] !== '\n') return undefined
  let line = 2
  for (let at = 4; at <= text.length; line++) {
    const next = text.indexOf('\n', at)
    const end = next === -1 ? text.length : next
    if (text.startsWith('---', at) || text.startsWith('...', at)) {
      if (!/^--- *$/.test(text.slice(at, end))) return undefined
      return {type: 'yaml', value: at > 4 ? text.slice(4, at - 1) : '', position: {start: {line: 1, column: 1, offset: 0}, end: {line, column: end - at + 1, offset: end}}}
    }
    if (next === -1) return undefined
    at = next + 1
  }
  return undefined
}

function count(text: string, from: number, char: string): number {
  let found = 0
  for (let i = text.indexOf(char, from); i !== -1; i = text.indexOf(char, i + 1)) found++
  return found
}
