import {openQuestionEntries} from './open-question-entries.js'

/**
 * The Open Questions section text with `answer` written after the
 * `**answer**:` item of `agent`'s entry (replacing an earlier answer and its
 * indented continuation lines; an entry without the item gets one). Later
 * lines of a multi-line answer are indented to stay inside the item.
 * Undefined when the agent has no entry. Pure.
 */
export function setAnswer(section: string, agent: string, answer: string): string | undefined {
  const lines = section.split('\n')
  const entry = openQuestionEntries(lines.map((line) => line.replace(/\r$/, ''))).find((candidate) => candidate.agent === agent)
  if (!entry) return undefined
  const cr = (index: number): string => (lines[index]?.endsWith('\r') ? '\r' : '')
  const [first, ...rest] = answer.trim().split(/\r?\n/)
  const item = (prefix: string, index: number): string[] => [
    `${prefix} ${first ?? ''}`.trimEnd() + cr(index),
    ...rest.map((line) => (line.trim() === '' ? '' : `  ${line}`) + cr(index))
  ]
  for (let index = entry.start + 1; index < entry.end; index++) {
    const match = /^(\s*(?:[-*+]\s+)?(?:\*\*|__)?answer(?:\*\*|__)?\s*:\s*(?:\*\*|__)?)/i.exec(lines[index]!.replace(/\r$/, ''))
    if (!match) continue
    let end = index + 1
    while (end < entry.end && /^\s{2,}\S/.test(lines[end]!)) end++
    return [...lines.slice(0, index), ...item(match[1]!.trimEnd(), index), ...lines.slice(end)].join('\n')
  }
  let last = entry.end - 1
  while (last > entry.start && lines[last]!.trim() === '') last--
  const eol = cr(last)
  return [...lines.slice(0, last + 1), eol, ...item('- **answer**:', last), ...lines.slice(last + 1)].join('\n')
}
