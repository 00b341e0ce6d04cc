import type {Plan} from '../plan/types.js'

export interface SectionEdit {
  text: string
  /** The range of the old text that was replaced, and the length of what replaced it. */
  start: number
  end: number
  length: number
}

/**
 * The plan's text with the H2 section `title` replaced by `section` (its whole
 * text, `## ` heading included). The old section's trailing blank lines stay,
 * so the next heading keeps its spacing. An absent section is appended at the
 * end of the file, or just before `## Execution State` when that is the last
 * section (the table stays last, where people look for it). Pure.
 */
export function replaceSection(plan: Plan, title: string, section: string): SectionEdit {
  const {text, eol} = plan
  const body = section.replace(/\r?\n/g, eol).replace(/(?:\r?\n)+$/, '')
  const wanted = key(title)
  const current = plan.sections.find((candidate) => key(candidate.title) === wanted)
  if (current) {
    const start = current.section.start.offset
    const end = current.section.end.offset
    const old = text.slice(start, end)
    let trailing = /(?:\r?\n)*$/.exec(old)![0]
    if (trailing === '' && end < text.length) trailing = eol
    const replacement = body + trailing
    return {text: text.slice(0, start) + replacement + text.slice(end), start, end, length: replacement.length}
  }

  const last = [...plan.sections].sort((a, b) => b.section.start.offset - a.section.start.offset)[0]
  if (last && key(last.title) === 'execution state' && wanted !== 'execution state') {
    const at = last.section.start.offset
    const before = text.slice(0, at)
    const lead = before === '' || before.endsWith(eol + eol) ? '' : eol
    const replacement = lead + body + eol + eol
    return {text: before + replacement + text.slice(at), start: at, end: at, length: replacement.length}
  }
  const lead = text === '' ? '' : text.endsWith(eol + eol) ? '' : text.endsWith('\n') ? eol : eol + eol
  const replacement = lead + body + (plan.finalNewline || text === '' ? eol : '')
  return {text: text + replacement, start: text.length, end: text.length, length: replacement.length}
}

function key(title: string): string {
  return title.trim().toLowerCase().replace(/[\s_-]+/g, ' ')
}
