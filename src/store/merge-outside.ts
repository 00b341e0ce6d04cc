import {lineDistance, mergeText} from './merge-text.js'

/** The text around the state section: before its heading, and after its end. */
export interface Outside {
  before: string
  after: string
}

/** Stands for the state section in the text around it, so a line merge keeps its place. */
const marker = '\u0000mdplan: the Execution State section\u0000\n'

export function outsideOf(text: string, start: number, end: number): Outside {
  return {before: text.slice(0, start), after: text.slice(end)}
}

function same(a: Outside, b: Outside): boolean {
  return a.before === b.before && a.after === b.after
}

/**
 * The text around the state section after a save: `theirs` (the saved file's)
 * merged into `ours` (what mdplan last wrote). A save that only brings back an
 * older version mdplan wrote (`known`) changes nothing; otherwise their edit is
 * taken from the known version it is closest to, so a stale buffer with a new
 * title keeps the title and undoes none of mdplan's writes. `parents`: more
 * versions their save may have started from (no versions mdplan wrote: a save
 * that brings one back is an edit). `theirs` in the result: the text is theirs
 * unchanged.
 */
export function mergeOutside(theirs: Outside, ours: Outside, known: readonly Outside[], parents: readonly Outside[] = []): (Outside & {theirs: boolean}) | undefined {
  if (same(theirs, ours)) return {...theirs, theirs: true}
  if (known.some((version) => same(version, theirs))) return {...ours, theirs: false}
  const joined = (outside: Outside): string => outside.before + marker + outside.after
  const text = joined(theirs)
  let parent = ours
  let best = lineDistance(joined(ours), text)
  for (const version of [...parents, ...known]) {
    if (best === 0) break
    if (same(version, ours)) continue
    const d = lineDistance(joined(version), text)
    // A tie with ours goes to the other version: taken from ours, their text stands as it is, and lines ours
    // has that theirs lacks would be lost (a save made from a file that lacked a save mdplan still held: its
    // lines in place of the held one's are as near to ours as to the file it was made from). Merged from the
    // other, both sides' lines are kept.
    if (d < best || (d === best && parent === ours)) {
      best = d
      parent = version
    }
  }
  // Their save started from what mdplan last wrote: the text around the section is theirs as it is.
  if (parent === ours) return {...theirs, theirs: true}
  const merged = mergeText(joined(parent), joined(ours), text)
  const at = merged.indexOf(marker)
  if (at === -1 || merged.indexOf(marker, at + 1) !== -1) return undefined
  return {before: merged.slice(0, at), after: merged.slice(at + marker.length), theirs: false}
}
