/** Where each `### <ID>: …` entry of an Open Questions text starts and ends (line indices, end exclusive), fences respected. */
export interface EntryLines {
  agent: string
  question: string
  start: number
  end: number
}

export const entryHeading = /^###\s+([A-Za-z][A-Za-z0-9_.-]*)\s*:\s*(.*?)\s*#*\s*$/

export function openQuestionEntries(lines: readonly string[]): EntryLines[] {
  const entries: EntryLines[] = []
  let fence: string | undefined
  lines.forEach((line, index) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (opening) {
      if (fence === undefined) fence = opening[1]!
      else if (opening[1]![0] === fence[0] && opening[1]!.length >= fence.length && line.trim() === opening[1]) fence = undefined
      return
    }
    if (fence !== undefined) return
    const heading = entryHeading.exec(line)
    if (heading) {
      const previous = entries[entries.length - 1]
      if (previous) previous.end = index
      entries.push({agent: heading[1]!, question: heading[2]!, start: index, end: lines.length})
    } else if (/^#{1,3}\s/.test(line)) {
      // Another heading ends the entry before it (never an entry of ours).
      const previous = entries[entries.length - 1]
      if (previous && previous.end === lines.length) previous.end = index
    }
  })
  return entries
}
