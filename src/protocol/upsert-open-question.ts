import {openQuestionEntries} from './open-question-entries.js'
import {renderOpenQuestion, type OpenQuestionEntry} from './render-open-question.js'

export const openQuestionsTitle = 'Open Questions'

/**
 * The whole `## Open Questions` section with `entry` in it: the agent's
 * existing entry replaced in place, or the entry appended. Every other byte
 * (other entries, prose, trailing blank lines) stays as it was. `section` is
 * the current section text, heading included, or undefined when there is none.
 */
export function upsertOpenQuestion(section: string | undefined, entry: OpenQuestionEntry, eol: '\n' | '\r\n' = '\n'): string {
  const rendered = renderOpenQuestion(entry, eol)
  if (section === undefined || section.trim() === '') return `## ${openQuestionsTitle}${eol}${eol}${rendered}${eol}`
  const trailing = /\s*$/.exec(section)![0]
  const content = section.slice(0, section.length - trailing.length)
  const lines = content.split('\n')
  const existing = openQuestionEntries(lines.map((line) => line.replace(/\r$/, ''))).find((candidate) => candidate.agent === entry.agent)
  if (existing) {
    let end = existing.end
    // Keep the blank lines that separate it from what follows.
    while (end > existing.start + 1 && lines[end - 1]!.replace(/\r$/, '').trim() === '') end--
    // Lines we did not write keep their own endings; ours use the plan's.
    const ours = rendered.split('\n')
    if (end < lines.length && eol === '\r\n') ours[ours.length - 1] += '\r'
    return [...lines.slice(0, existing.start), ...ours, ...lines.slice(end)].join('\n') + trailing
  }
  const separator = `${eol}${eol}`
  return `${content}${separator}${rendered}${trailing === '' ? '' : trailing.includes('\n') ? trailing : eol + trailing}`
}
