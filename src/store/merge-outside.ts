import {lineDistance, mergeText} from './merge-text.js'

/** Stands for the state section in the text around it, so a line merge keeps its place. */
const marker = '\u0000mdplan: the Execution State section\u0000\n'

/** The text around the section, the section cut out and its place marked. */
export function outsideOf(text: string, start: number, end: number): string {
  return text.slice(0, start) + marker + text.slice(end)
}

/**
 * The text around the state section after a save: `theirs` (the saved file's)
 * merged into `ours` (what mdplan last wrote). A save that only brings back an
 * older version mdplan wrote (`known`) changes nothing; otherwise their edit is
 * taken from the known version it is closest to, so a stale buffer with a new
 * title keeps the title and undoes none of mdplan's writes. Returns the text
 * before and after the section.
 */
export function mergeOutside(theirs: string, ours: string, known: readonly string[]): {before: string; after: string} | undefined {
  let merged = ours
  if (theirs !== ours && !known.includes(theirs)) {
    let parent = ours
    let best = lineDistance(ours, theirs)
    for (const version of known) {
      if (best === 0) break
      if (version === ours) continue
      const d = lineDistance(version, theirs)
      if (d < best) {
        best = d
        parent = version
      }
    }
    merged = mergeText(parent, ours, theirs)
  }
  const at = merged.indexOf(marker)
  if (at === -1 || merged.indexOf(marker, at + 1) !== -1) return undefined
  return {before: merged.slice(0, at), after: merged.slice(at + marker.length)}
}
