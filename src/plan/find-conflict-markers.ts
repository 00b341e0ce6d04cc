/** A stretch of text a merge left between conflict markers. */
export interface ConflictRegion {
  /** Offset of the region's first marker line. */
  start: number
  /** Offset just past its last marker line (the end of the text when it never closes). */
  end: number
  /** The first marker line's text, for messages (`<<<<<<< HEAD`). */
  marker: string
}

// git's own rule (`git diff --check`): seven of one marker character at the
// start of a line, then a space or the line's end.
const markerLine = /^(<{7}|\|{7}|={7}|>{7})(?=[ \t\r]|$).*$/gm

/**
 * The conflict regions a merge left in `text` (`<<<<<<<`, diff3's `|||||||`,
 * `=======`, `>>>>>>>`), in order. A lone `=======` is a setext underline to
 * Markdown, so it counts only inside a region a `<<<<<<<` or `|||||||` opened;
 * a `>>>>>>>` or `|||||||` with no opener is a region of its own (half a
 * resolution is still unresolved). Pure.
 */
export function findConflictMarkers(text: string): ConflictRegion[] {
  const regions: ConflictRegion[] = []
  let open: ConflictRegion | undefined
  markerLine.lastIndex = 0
  for (let match = markerLine.exec(text); match; match = markerLine.exec(text)) {
    const start = match.index
    const lineEnd = start + match[0].length
    const end = text[lineEnd] === '\n' ? lineEnd + 1 : lineEnd
    const kind = match[1]![0]
    if (kind === '<') {
      if (open) regions.push(open)
      open = {start, end, marker: match[0].replace(/\r$/, '')}
    } else if (kind === '>') {
      if (open) {
        open.end = end
        regions.push(open)
        open = undefined
      } else regions.push({start, end, marker: match[0].replace(/\r$/, '')})
    } else if (open) open.end = end
    else if (kind === '|') open = {start, end, marker: match[0].replace(/\r$/, '')}
  }
  if (open) regions.push({...open, end: text.length})
  return regions
}
