import type {Locator} from './locate.js'
import {splitList} from './split-list.js'
import type {AgentRef} from './types.js'

/** `[A, B]`, `A, B`, `` `A` ``, `—`, `none`, `A (types)` → agent references with positions. */
export function parseAgentRefs(text: string, start: number, end: number, at: Locator): AgentRef[] {
  const refs: AgentRef[] = []
  for (const piece of splitList(text, start, end)) {
    let from = piece.start
    let to = piece.end
    const source = text.slice(from, to)
    // A trailing `(why)` annotation is not part of the id.
    const annotation = /\s+\([^()]*\)$/.exec(source)
    if (annotation) to -= annotation[0].length
    const prefix = /^(?:agent\s+)?(?:\*\*|`)?/i.exec(text.slice(from, to))!
    from += prefix[0].length
    while (to > from && (text[to - 1] === '`' || text[to - 1] === '*')) to--
    if (from < to) refs.push({id: text.slice(from, to), position: at.span(from, to)})
  }
  return refs
}
