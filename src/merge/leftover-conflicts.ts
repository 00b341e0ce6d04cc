import {findConflictMarkers} from '../plan/find-conflict-markers.js'

/** A conflict a merge left for a person, where it starts (1-based line) and what it is about. */
export interface LeftoverConflict {
  line: number
  /** `row` of the state table, `question` under Open Questions, `text` anywhere else. */
  kind: 'row' | 'question' | 'text'
  agent?: string
  /** The rule's words for a row (`completed on ours, re-queued (pending) on theirs`). */
  reason?: string
}

const rowMarker = /^<{7} ours: agent (\S+): (.*)$/
const questionMarker = /^<{7} ours: open question of agent (\S+)$/

/**
 * The conflicts left in a merged plan, read back from its markers: the merge
 * driver names each row and question it could not reconcile in its
 * `<<<<<<<` line, and git's own text conflicts are the rest. Pure.
 */
export function leftoverConflicts(text: string): LeftoverConflict[] {
  return findConflictMarkers(text).map((region): LeftoverConflict => {
    const line = text.slice(0, region.start).split('\n').length
    const row = rowMarker.exec(region.marker)
    if (row) return {line, kind: 'row', agent: row[1]!, reason: row[2]!}
    const question = questionMarker.exec(region.marker)
    if (question) return {line, kind: 'question', agent: question[1]!}
    return {line, kind: 'text'}
  })
}
