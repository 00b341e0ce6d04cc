import type {Node} from 'unist'

/** Shift the positions of `node` and its descendants, parsed from a chunk, into the whole text: the chunk starts at `offset`, after `line` lines. */
export function shiftPositions(node: Node, offset: number, line: number): void {
  const position = node.position
  if (position) {
    position.start.offset = (position.start.offset ?? 0) + offset
    position.end.offset = (position.end.offset ?? 0) + offset
    position.start.line += line
    position.end.line += line
  }
  const children = (node as {children?: Node[]}).children
  if (children) for (const child of children) shiftPositions(child, offset, line)
}

