import type {StateLayout, TableLine} from './state-layout.js'

/** Whether a render of `old` left every line's text as it was (a changed value that renders the same). */
export function sameSectionText(old: StateLayout, next: StateLayout): boolean {
  if (old.rows.length !== next.rows.length || old.post.length !== next.post.length || old.pre !== next.pre) return false
  const same = (a: TableLine, b: TableLine): boolean => a === b || (a.text === b.text && a.eol === b.eol)
  if (!same(old.header, next.header) || !same(old.delimiter, next.delimiter)) return false
  return old.rows.every((row, i) => same(row, next.rows[i]!)) && old.post.every((line, i) => same(line, next.post[i]!))
}
