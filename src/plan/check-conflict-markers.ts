import {findConflictMarkers} from './find-conflict-markers.js'
import type {Locator} from './locate.js'
import type {Diagnostic, Plan} from './types.js'
import {shellWord} from '../util/shell-word.js'

/**
 * Conflict markers a merge left in the plan, one error per region at its
 * first marker line. In the regions mdplan owns (`## Execution State`,
 * `## Open Questions`) they make a damaged table that `mdplan resolve` can
 * re-merge from git's index; anywhere else they are text a person must pick
 * from. Never read as content: a run that read half a conflicted table would
 * relaunch what either side completed.
 */
export function checkConflictMarkers(plan: Plan, at: Locator): Diagnostic[] {
  const {file, text} = plan
  const owned = [plan.state?.section, plan.openQuestions?.section].filter((span) => span !== undefined)
  // A region that reaches an owned section from either side (a hunk that holds its heading) is that section's.
  const touches = (start: number, end: number): boolean => owned.some((span) => start <= span.end.offset && end >= span.start.offset)
  return findConflictMarkers(text).map((region): Diagnostic => {
    const place = at.span(region.start, region.start + region.marker.length)
    const quoted = `\`${region.marker.slice(0, 7)}\``
    return touches(region.start, region.end)
      ? {
          severity: 'error',
          rule: 'damaged-state-table',
          reason: `conflict markers (${quoted}) from a merge in the Execution State: run \`mdplan resolve ${shellWord(file)}\` to merge its rows from git's index, or edit by hand (one row per agent, marker lines deleted); nothing runs until then`,
          file,
          place
        }
      : {
          severity: 'error',
          rule: 'conflict-markers',
          reason: `conflict markers (${quoted}) from a merge: keep the lines you want and delete the marker lines (\`mdplan resolve ${shellWord(file)}\` re-merges the plan's own sections); nothing runs until then`,
          file,
          place
        }
  })
}
