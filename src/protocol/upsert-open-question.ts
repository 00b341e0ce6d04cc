import type {Plan, Section} from '../plan/types.js'
import {openQuestionEntries} from './open-question-entries.js'
import {renderOpenQuestion, type OpenQuestionEntry} from './render-open-question.js'

export const openQuestionsTitle = 'Open Questions'

/**
 * The whole `## Open Questions` section with `entry` in it: the agent's
 * existing entry replaced in place, or the entry appended. Every other byte
 * (other entries, prose, trailing blank lines) stays as it was. `current` is
 * the section's text (heading included), or the parsed `Section` as
 * `PlanStore.editSection` passes it (pass `plan` too for the heading's exact
 * bytes), or undefined when there is none.
 */
export function upsertOpenQuestion(
  current: string | Section | undefined,
  entry: OpenQuestionEntry,
  eol: '\n' | '\r\n' = '\n',
  plan?: Plan
): string {
  const section = typeof current === 'object' ? sectionText(current, plan) : current
  const rendered = renderOpenQuestion(entry, eol)
  if (section === undefined || section.trim() === '') return `## ${openQuestionsTitle}${eol}${eol}${rendered}${eol}`
  // The line endings and blank lines after the last line with text stay exactly as they were.
  const lastText = section.search(/\S\s*$/)
  const lineEnd = section.slice(lastText).search(/\r?\n/)
  const contentEnd = lineEnd === -1 ? section.length : lastText + lineEnd
  const trailing = section.slice(contentEnd)
  const content = section.slice(0, contentEnd)
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

function sectionText(section: Section, plan: Plan | undefined): string {
  if (plan) return plan.text.slice(section.section.start.offset, section.section.end.offset)
  return `## ${section.title}\n${section.body}`
}
