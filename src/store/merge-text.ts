import {splitRaw} from './detect-table-style.js'

interface Hunk {
  /** Replaced lines of the base: [start, end). */
  start: number
  end: number
  lines: string[]
}

/**
 * Line-based three-way merge of two edits of `base`: the edits of `older` and
 * of `newer` are both applied. Where they touch the same lines, table rows are
 * merged cell by cell, two insertions at one place are both kept (newer
 * first), and otherwise `newer` wins. Used to fold a person's write that
 * landed in a file mdplan had just replaced into the current file. Pure.
 */
export function mergeText(base: string, older: string, newer: string): string {
  if (older === base || older === newer) return newer
  if (newer === base) return older
  const o = lines(base)
  const a = hunks(o, lines(older))
  const b = hunks(o, lines(newer))
  const out: string[] = []
  let at = 0
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const ha = a[i]
    const hb = b[j]
    const first = !hb || (ha && before(ha, hb)) ? 'a' : 'b'
    // The region: this hunk and every hunk of either side that touches it.
    let start = (first === 'a' ? ha : hb)!.start
    let end = (first === 'a' ? ha : hb)!.end
    const fromA: Hunk[] = []
    const fromB: Hunk[] = []
    for (let grew = true; grew; ) {
      grew = false
      while (a[i] && touches(a[i]!, start, end)) {
        fromA.push(a[i]!)
        start = Math.min(start, a[i]!.start)
        end = Math.max(end, a[i]!.end)
        i++
        grew = true
      }
      while (b[j] && touches(b[j]!, start, end)) {
        fromB.push(b[j]!)
        start = Math.min(start, b[j]!.start)
        end = Math.max(end, b[j]!.end)
        j++
        grew = true
      }
    }
    out.push(...o.slice(at, start))
    const side = (list: Hunk[]): string[] => apply(o, start, end, list)
    if (fromA.length === 0) out.push(...side(fromB))
    else if (fromB.length === 0) out.push(...side(fromA))
    else out.push(...resolve(o.slice(start, end), side(fromA), side(fromB)))
    at = end
  }
  out.push(...o.slice(at))
  return out.join('')
}

/** Overlapping ranges, an insertion inside the other, or two insertions at one place (an insertion at a replacement's edge goes beside it). */
function touches(hunk: Hunk, start: number, end: number): boolean {
  if (hunk.start < end && hunk.end > start) return true
  if (hunk.start === hunk.end) return start === end ? hunk.start === start : hunk.start > start && hunk.start < end
  if (start === end) return start > hunk.start && start < hunk.end
  return false
}

/** Hunks in base order; at one place an insertion comes before a replacement. */
function before(a: Hunk, b: Hunk): boolean {
  return a.start < b.start || (a.start === b.start && a.start === a.end && b.start !== b.end)
}

/** The base lines [start, end) with the hunks (all inside it) applied. */
function apply(o: string[], start: number, end: number, list: Hunk[]): string[] {
  const result: string[] = []
  let at = start
  for (const hunk of list) {
    result.push(...o.slice(at, hunk.start), ...hunk.lines)
    at = hunk.end
  }
  result.push(...o.slice(at, end))
  return result
}

function resolve(base: string[], older: string[], newer: string[]): string[] {
  if (base.length === 0) {
    // Two insertions at one place: once when one holds the other (both sides saw it).
    if (contains(newer, older)) return newer
    if (contains(older, newer)) return older
    return [...newer, ...older]
  }
  if (older.length === base.length && newer.length === base.length && base.every((line) => line.includes('|'))) {
    return base.map((line, k) => mergeRow(line, older[k]!, newer[k]!))
  }
  return newer
}

/** One table row both sides changed: cell by cell, the newer side winning a cell both changed. */
function mergeRow(base: string, older: string, newer: string): string {
  const eol = /\r?\n$/.exec(newer)?.[0] ?? ''
  const o = splitRaw(base.trimEnd())
  const a = splitRaw(older.trimEnd())
  const b = splitRaw(newer.trimEnd())
  if (o.length !== a.length || o.length !== b.length) return newer
  const cells = o.map((cell, k) => (b[k]!.trim() === cell.trim() ? a[k]! : b[k]!))
  const lead = /^[ \t]*\|/.test(newer) ? '|' : ''
  const trail = /\|[ \t]*\r?\n?$/.test(newer) && !/\\\|[ \t]*\r?\n?$/.test(newer) ? '|' : ''
  return /^[ \t]*/.exec(newer)![0] + lead + cells.join('|') + trail + eol
}

function contains(outer: string[], inner: string[]): boolean {
  if (inner.length > outer.length) return false
  for (let k = 0; k + inner.length <= outer.length; k++) if (inner.every((line, m) => outer[k + m] === line)) return true
  return false
}

/** How many lines an edit from `a` to `b` touches (capped for large edits): picks the version a text was derived from. */
export function lineDistance(a: string, b: string): number {
  if (a === b) return 0
  // Only the lines between the common head and tail are split and compared (a plan is thousands of lines, an edit a few).
  let head = 0
  const most = Math.min(a.length, b.length)
  while (head < most && a.charCodeAt(head) === b.charCodeAt(head)) head++
  head = a.lastIndexOf('\n', head - 1) + 1
  let tail = 0
  while (tail < most - head && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++
  const cut = (text: string): string => {
    const end = text.length - tail
    const next = text.indexOf('\n', end - 1)
    return text.slice(head, next === -1 || end === text.length ? text.length : next + 1)
  }
  return hunks(lines(cut(a)), lines(cut(b))).reduce((sum, hunk) => sum + (hunk.end - hunk.start) + hunk.lines.length, 0)
}

function lines(text: string): string[] {
  const result: string[] = []
  let start = 0
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
    result.push(text.slice(start, at + 1))
    start = at + 1
  }
  if (start < text.length) result.push(text.slice(start))
  return result
}

/** The edits from `o` to `n` as hunks (Myers' O(ND) diff on lines). */
function hunks(o: string[], n: string[]): Hunk[] {
  let prefix = 0
  while (prefix < o.length && prefix < n.length && o[prefix] === n[prefix]) prefix++
  let suffix = 0
  while (suffix < o.length - prefix && suffix < n.length - prefix && o[o.length - 1 - suffix] === n[n.length - 1 - suffix]) suffix++
  const x = o.slice(prefix, o.length - suffix)
  const y = n.slice(prefix, n.length - suffix)
  if (x.length === 0 && y.length === 0) return []
  const pairs = diagonal(x, y)
  if (!pairs) return [{start: prefix, end: o.length - suffix, lines: y}]
  const result: Hunk[] = []
  let xi = 0
  let yi = 0
  for (const [px, py] of [...pairs, [x.length, y.length] as const]) {
    if (px > xi || py > yi) result.push({start: prefix + xi, end: prefix + px, lines: y.slice(yi, py)})
    xi = px + 1
    yi = py + 1
  }
  return result
}

/** Matching line pairs of a shortest edit script, or undefined when the edit is too large to bother. */
function diagonal(x: string[], y: string[]): Array<readonly [number, number]> | undefined {
  const n = x.length
  const m = y.length
  const max = Math.min(n + m, 1000)
  const offset = max + 1
  const v = new Int32Array(2 * max + 3)
  const trace: Int32Array[] = []
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice())
    for (let k = -d; k <= d; k += 2) {
      let px: number
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) px = v[offset + k + 1]!
      else px = v[offset + k - 1]! + 1
      let py = px - k
      while (px < n && py < m && x[px] === y[py]) {
        px++
        py++
      }
      v[offset + k] = px
      if (px >= n && py >= m) return backtrack(trace, d, offset, n, m)
    }
  }
  return undefined
}

function backtrack(trace: Int32Array[], steps: number, offset: number, n: number, m: number): Array<readonly [number, number]> {
  const pairs: Array<readonly [number, number]> = []
  let px = n
  let py = m
  for (let d = steps; d > 0; d--) {
    const v = trace[d]!
    const k = px - py
    const prevK = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? k + 1 : k - 1
    const prevX = v[offset + prevK]!
    const prevY = prevX - prevK
    while (px > prevX && py > prevY) pairs.push([--px, --py])
    px = prevX
    py = prevY
  }
  while (px > 0 && py > 0) pairs.push([--px, --py])
  return pairs.reverse()
}
