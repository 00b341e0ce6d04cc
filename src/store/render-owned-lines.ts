import type {PostLine} from './state-layout.js'

/**
 * The lines after the table with mdplan's own lines of one kind (`owned`: the wait lines of wait-line.ts, the
 * budget line of budget-line.ts) as `desired` asks: unchanged when they already say it; else the old ones go
 * and the new ones stand where the first old one stood, or after the last `Key: value` line mdplan owns.
 * `undefined` leaves them as they are; '' removes them. Every other line keeps its bytes.
 */
export function renderOwnedLines(post: PostLine[], desired: string | undefined, owned: (text: string) => boolean, eol: string): PostLine[] {
  if (desired === undefined) return post
  const wanted = desired === '' ? [] : desired.split('\n')
  const at: number[] = []
  let fenced = false
  post.forEach((line, i) => {
    if (/^[ \t]*(?:```|~~~)/.test(line.text)) fenced = !fenced
    else if (!fenced && line.meta === undefined && owned(line.text)) at.push(i)
  })
  if (at.length === wanted.length && at.every((i, k) => post[i]!.text.trim() === wanted[k])) return post
  const endedFile = post.length > 0 && post[post.length - 1]!.eol === ''
  const kept = post.filter((_, i) => !at.includes(i))
  let where = at.length > 0 ? at[0]! : lastMeta(post) + 1
  if (where > kept.length) where = kept.length
  const lines: PostLine[] = wanted.map((text) => ({text, eol}))
  const next = [...kept.slice(0, where), ...lines, ...kept.slice(where)]
  // The file ended without a final newline: so it still does.
  if (!endedFile || next.length === 0) return next
  const last = next.length - 1
  return next.map((line, i) => (i === last ? (line.eol === '' ? line : {...line, eol: ''}) : line.eol === '' ? {...line, eol} : line))
}

function lastMeta(post: readonly PostLine[]): number {
  for (let i = post.length - 1; i >= 0; i--) if (post[i]!.meta !== undefined) return i
  return post.length - 1
}
