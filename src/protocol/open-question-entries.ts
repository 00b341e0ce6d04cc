import {parseMarkdown} from '../plan/parse-markdown.js'

/** Where each `### <ID>: …` entry of an Open Questions text starts and ends (line indices, end exclusive). */
export interface EntryLines {
  agent: string
  question: string
  start: number
  end: number
}

export const entryHeading = /^###\s+([A-Za-z][A-Za-z0-9_.-]*)\s*:\s*(.*?)\s*#*\s*$/

/**
 * The entries of an Open Questions section's lines. What is a heading is
 * decided by the Markdown parser the plan is read with (CommonMark: a fence
 * opens only at a line's start with at most three spaces of indent, a
 * backtick fence's info string holds no backtick, a fence closes with at
 * least as many of its own character, a list item or a block quote closes
 * what it opened), so an answer holding ```` ```npm ci``` ```` or an open fence
 * never swallows the next agent's entry. An entry is an H3 of the section
 * shaped `### <ID>: question`; any other heading up to H3 ends the one before.
 */
export function openQuestionEntries(lines: readonly string[]): EntryLines[] {
  const entries: EntryLines[] = []
  // A leading blank line: a section that starts with `---` is not front matter here.
  for (const node of parseMarkdown('\n' + lines.join('\n'), {lean: true}).children) {
    if (node.type !== 'heading' || node.depth > 3) continue
    const index = node.position!.start.line - 2
    const heading = node.depth === 3 ? entryHeading.exec(lines[index]!) : null
    const previous = entries[entries.length - 1]
    if (heading) {
      if (previous) previous.end = index
      entries.push({agent: heading[1]!, question: heading[2]!, start: index, end: lines.length})
    } else if (previous && previous.end === lines.length) {
      // Another heading ends the entry before it (never an entry of ours).
      previous.end = index
    }
  }
  return entries
}
