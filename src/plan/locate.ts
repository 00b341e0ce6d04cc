import type {Point, Span} from './types.js'

/** Turns offsets into unist points (1-based line and column) for one text. */
export interface Locator {
  point: (offset: number) => Point
  span: (start: number, end: number) => Span
  /** Offset where the line holding `offset` starts. */
  lineStart: (offset: number) => number
  /** Offset where the line holding `offset` ends, before its line ending. */
  lineEnd: (offset: number) => number
}

/** Build a locator: one pass over the text, then binary search per lookup. */
export function locate(text: string): Locator {
  const starts = [0]
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1)

  const lineIndex = (offset: number): number => {
    let low = 0
    let high = starts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (starts[mid]! <= offset) low = mid
      else high = mid - 1
    }
    return low
  }

  const point = (offset: number): Point => {
    const line = lineIndex(offset)
    return {line: line + 1, column: offset - starts[line]! + 1, offset}
  }

  const lineEnd = (offset: number): number => {
    const line = lineIndex(offset)
    let end = line + 1 < starts.length ? starts[line + 1]! - 1 : text.length
    if (end > starts[line]! && text.charCodeAt(end - 1) === 13) end--
    return end
  }

  return {
    point,
    span: (start, end) => ({start: point(start), end: point(end)}),
    lineStart: (offset) => starts[lineIndex(offset)]!,
    lineEnd
  }
}
