import {findConflictMarkers} from '../plan/find-conflict-markers.js'
import type {SectionSpan} from './locate-state-section.js'

/** Why a section has no state table: the offset of the line to fix, and what to do. */
export interface TableDamage {
  offset: number
  reason: string
}

/**
 * A merge's conflict markers in (or reaching into) the section: the table up
 * to the first marker is only one side's, and a write would bury the other's
 * completions under new rows. The damage is at the marker.
 */
export function conflictedSection(text: string, span: SectionSpan): TableDamage | undefined {
  const region = findConflictMarkers(text).find((found) => found.start <= span.end && found.end >= span.start)
  if (!region) return undefined
  return {
    offset: region.start,
    reason: `it holds conflict markers from a merge (\`${region.marker.slice(0, 7)}\`): run \`mdplan resolve\` on this plan to merge the rows from git's index, or edit it by hand (one row per agent, marker lines deleted)`
  }
}
