import type {PostLine} from './state-layout.js'
import {isWaitLine} from '../plan/wait-line.js'

/**
 * The lines after the table with the wait lines (wait-line.ts) the table's meta asks for: unchanged when
 * they already say it; else the old ones go and the new ones stand where the first old one stood, or
 * after the last `Key: value` line mdplan owns. `undefined` leaves them as they are; '' removes them.
 * Every other line keeps its bytes.
 */
export function renderWaitLines(post: PostLine[], waits: string | undefined, eol: string): PostLine[] {
  if (waits === undefined) return post
  const desired = waits === '' ? [] : waits.split('\n')
  const at: number[] = []
  let fenced = false
  post.forEach((line, i) => {
    if (/^[ \t]*(?:```|~~~)/.test(line.text)) fenced = !fenced
    else if (!fenced && line.meta === undefined && isWaitLine(line.text)) at.push(i)
  })
  if (at.length === desired.length && at.every((i, k) => post[i]!.text.trim() === desired[k])) return post
  const endedFile = post.length > 0 && post[post.length - 1]!.eol === ''
  const kept = post.filter((_, i) => !at.includes(i))
  let where = at.length > 0 ? at[0]! : lastMeta(post) + 1
  if (where > kept.length) where = kept.length
  const lines: PostLine[] = desired.map((text) => ({text, eol}))
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
