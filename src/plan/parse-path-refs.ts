import type {Locator} from './locate.js'
import {splitList} from './split-list.js'
import type {PathRef} from './types.js'

/**
 * `` [`src/a.ts`, app/api/[id]/route.ts (if missing)] `` → paths with positions.
 * A trailing parenthetical (or any text after a backticked path) is the
 * path's annotation.
 */
export function parsePathRefs(text: string, start: number, end: number, at: Locator): PathRef[] {
  const refs: PathRef[] = []
  for (const piece of splitList(text, start, end)) {
    const source = text.slice(piece.start, piece.end)
    let from = piece.start
    let to = piece.end
    let annotation: string | undefined
    if (source.startsWith('`')) {
      const close = source.indexOf('`', 1)
      if (close !== -1) {
        to = piece.start + close
        from++
        const rest = source.slice(close + 1).trim()
        if (rest !== '') annotation = rest.replace(/^[-\u2014\u2013:]\s*/, '').replace(/^\((.*)\)$/, '$1')
      }
    } else {
      const match = /\s+\(([^()]*)\)$/.exec(source)
      if (match) {
        to -= match[0].length
        annotation = match[1]
      }
      // Quotes around a bare path are not part of it.
      if (/^(["']).*\1$/.test(text.slice(from, to)) && to - from >= 2) {
        from++
        to--
      }
    }
    const path = text.slice(from, to).trim()
    if (path === '') continue
    refs.push({path, ...(annotation ? {annotation} : {}), position: at.span(from, to)})
  }
  return refs
}
