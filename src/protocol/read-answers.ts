import type {Plan, Span} from '../plan/types.js'
import {listItems, unfence} from './keyed-lines.js'
import {openQuestionEntries} from './open-question-entries.js'

export interface OpenQuestion {
  agent: string
  question: string
  context: string
  options: string[]
  resumeState: string
  /** What a person wrote after `**answer**:`; undefined while unanswered. */
  answer?: string
  /** The entry, heading to its last line, in the plan's text. */
  position: Span
}

/**
 * The entries under `## Open Questions` (as `renderOpenQuestion` writes them,
 * or written by hand in the same spirit): `### <ID>: question`, a quoted or
 * labelled context, an options list, a fenced resume state, and the
 * `- **answer**:` item, whose text (and indented continuation lines) is the answer.
 */
export function readAnswers(plan: Plan): OpenQuestion[] {
  const section = plan.openQuestions
  if (!section) return []
  const body = section.body
  // The body runs from after the heading line to the end of the section.
  const bodyStart = section.section.end.offset - body.length
  const lines = body.split('\n')
  const lineStarts: number[] = []
  let offset = 0
  for (const line of lines) {
    lineStarts.push(offset)
    offset += line.length + 1
  }
  return openQuestionEntries(lines.map((line) => line.replace(/\r$/, ''))).map((entry) => {
    const entryLines = lines.slice(entry.start, entry.end).map((line) => line.replace(/\r$/, ''))
    let last = entryLines.length - 1
    while (last > 0 && entryLines[last]!.trim() === '') last--
    const startOffset = bodyStart + lineStarts[entry.start]!
    const endOffset = bodyStart + lineStarts[entry.start + last]! + entryLines[last]!.length
    return {
      agent: entry.agent,
      question: entry.question,
      ...readEntry(entryLines.slice(1)),
      position: {start: point(plan.text, startOffset), end: point(plan.text, endOffset)}
    }
  })
}

type Label = 'context' | 'options' | 'resume state' | undefined

function readEntry(lines: readonly string[]): {context: string; options: string[]; resumeState: string; answer?: string} {
  const context: string[] = []
  const options: string[] = []
  let resumeState: string | undefined
  let answer: string[] | undefined
  let label: Label
  let fence: {marker: string; lines: string[]} | undefined
  let inAnswer = false
  for (const line of lines) {
    if (fence) {
      // A fence closes with at least as many of its own character, and nothing else on the line.
      if (new RegExp(`^\\s*${fence.marker[0] === '`' ? '`' : '~'}{${fence.marker.length},}[ \\t]*$`).test(line)) {
        // The resume state is the entry's fenced block (the context is quoted, so its fences are not here).
        if (resumeState === undefined || label === 'resume state') resumeState = fence.lines.join('\n')
        fence = undefined
      } else fence.lines.push(line)
      continue
    }
    if (inAnswer) {
      // The answer item continues on indented lines, whatever Markdown they hold (an `answer:` of its own included).
      if (/^\s{2,}\S/.test(line)) {
        answer!.push(line.trim())
        continue
      }
      if (line.trim() !== '') inAnswer = false
    }
    const answerMatch = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?answer(?:\*\*|__)?\s*:\s*(?:\*\*|__)?\s*(.*)$/i.exec(line)
    if (answerMatch) {
      answer = [answerMatch[1]!]
      inAnswer = true
      // Whatever follows the answer item is not part of the question.
      label = undefined
      continue
    }
    // CommonMark: a backtick fence's info string holds no backtick. (Any indent: a hand-written entry may nest its fence in a list item.)
    const opening = /^\s*(`{3,}|~{3,})(.*)$/.exec(line)
    if (opening && !(opening[1]![0] === '`' && opening[2]!.includes('`'))) {
      fence = {marker: opening[1]!, lines: []}
      continue
    }
    const labelled = /^\s*(?:[-*+]\s+)?(?:\*\*|__)?(context|options|resume[ _-]state)\s*:?\s*(?:\*\*|__)?\s*:?\s*(.*)$/i.exec(line)
    if (labelled) {
      label = labelled[1]!.toLowerCase().replace(/[_-]/, ' ') as Label
      const rest = labelled[2]!.trim()
      if (rest !== '') {
        if (label === 'context') context.push(rest)
        else if (label === 'options') options.push(...listItems(rest))
        else if (label === 'resume state') resumeState = unfence(rest)
      }
      continue
    }
    if (/^\s*>/.test(line)) {
      context.push(line.replace(/^\s*>\s?/, ''))
      continue
    }
    if (label === 'options' && line.trim() !== '') {
      options.push(...listItems(line))
      continue
    }
    if (label === 'context' && line.trim() !== '') context.push(line.trim())
  }
  const text = answer?.join('\n').trim()
  return {
    context: context.join('\n').trim(),
    options,
    resumeState: resumeState ?? '',
    answer: text === undefined || text === '' ? undefined : text
  }
}

function point(text: string, offset: number): {line: number; column: number; offset: number} {
  let line = 1
  let lineStart = 0
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line++
    lineStart = index + 1
  }
  return {line, column: offset - lineStart + 1, offset}
}
