import type {StateLayout, TableLine} from './state-layout.js'

export interface Spliced {
  data: Buffer
  /** Where the section is in `data`. */
  sectionBytes: {start: number; end: number}
}

/** Where each row line starts, in bytes from the section's start; the last entry is where the lines after the table start. */
const rowOffsets = new WeakMap<StateLayout, Int32Array>()

/**
 * The file `seen` with the section at `at` (laid out as `old`) changed to
 * `next`, by copying its bytes and encoding only the lines that changed: a
 * row is changed when `next` holds another object for it (a render keeps the
 * unchanged rows' objects), the lines after the table when any of them is.
 * Undefined when the table's shape changed (rows added, a re-padded header):
 * the caller then encodes the whole section. Pure but for a cache of offsets.
 */
export function spliceLines(seen: Buffer, at: {start: number; end: number}, old: StateLayout, next: StateLayout): Spliced | undefined {
  const n = old.rows.length
  if (next.rows.length !== n || next.pre !== old.pre || next.header !== old.header || next.delimiter !== old.delimiter) return undefined
  const from = offsetsOf(old)
  const to = new Int32Array(n + 1)
  // Pieces of the new file: [start, end) ranges of `seen`, and encoded lines.
  const pieces: Array<number | string> = []
  let cursor = 0
  let shift = 0
  for (let i = 0; i < n; i++) {
    to[i] = from[i]! + shift
    const line = next.rows[i]!
    if (line === old.rows[i]) continue
    const text = line.text + line.eol
    pieces.push(cursor, from[i]!, text)
    cursor = from[i + 1]!
    shift += Buffer.byteLength(text) - (from[i + 1]! - from[i]!)
  }
  to[n] = from[n]! + shift
  const size = at.end - at.start
  if (!sameLines(old.post, next.post)) {
    let text = ''
    for (const line of next.post) text += line.text + line.eol
    pieces.push(cursor, from[n]!, text)
    cursor = size
    shift += Buffer.byteLength(text) - (size - from[n]!)
  }
  const data = Buffer.allocUnsafe(seen.length + shift)
  let out = seen.copy(data, 0, 0, at.start)
  for (let i = 0; i < pieces.length; i += 3) {
    out += seen.copy(data, out, at.start + (pieces[i] as number), at.start + (pieces[i + 1] as number))
    out += data.write(pieces[i + 2] as string, out, 'utf8')
  }
  seen.copy(data, out, at.start + cursor)
  rowOffsets.set(next, to)
  return {data, sectionBytes: {start: at.start, end: at.end + shift}}
}

/** The row offsets of a layout: kept from the splice that made it, or counted once. */
function offsetsOf(layout: StateLayout): Int32Array {
  let offsets = rowOffsets.get(layout)
  if (!offsets) {
    offsets = new Int32Array(layout.rows.length + 1)
    let at = Buffer.byteLength(layout.pre) + lineBytes(layout.header) + lineBytes(layout.delimiter)
    layout.rows.forEach((row, i) => {
      offsets![i] = at
      at += lineBytes(row)
    })
    offsets[layout.rows.length] = at
    rowOffsets.set(layout, offsets)
  }
  return offsets
}

function lineBytes(line: TableLine): number {
  return Buffer.byteLength(line.text) + line.eol.length
}

function sameLines(a: readonly TableLine[], b: readonly TableLine[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i])
}
