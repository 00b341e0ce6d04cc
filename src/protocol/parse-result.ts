import {blockText, isNone, keyedValues, listItems, plainLine, resultLine, unfence} from './keyed-lines.js'

export type ResultBlock =
  | {kind: 'success'; /** The first detail line, for Notes. */ note?: string}
  | {kind: 'error'; description?: string; details?: string}
  | {kind: 'question'; question: string; context: string; resumeState: string; options: string[]}

/**
 * The RESULT block an agent's final text ends with:
 *
 *     RESULT: SUCCESS            (first detail line → Notes)
 *     RESULT: ERROR              Description: …  Details: …
 *     RESULT: QUESTION           Question: …  Context: …  Resume State: (text or fenced block)  Options: (list)
 *
 * The last RESULT line counts (one outside code fences first); Markdown
 * decoration (`**RESULT: SUCCESS**`, `## RESULT:`, `**Context:**`) is ignored.
 * Undefined when there is no RESULT line: the exit code decides.
 */
export function parseResult(text: string): ResultBlock | undefined {
  const lines = text.split(/\r?\n/)
  const found = lastResultLine(lines)
  if (!found) return undefined
  const {index, kind, rest} = found
  const values = keyedValues(lines.slice(index + 1))
  const get = (...keys: string[]): string | undefined => {
    for (let position = values.length - 1; position >= 0; position--) {
      const value = values[position]!
      if (keys.includes(value.key)) return blockText(value)
    }
    return undefined
  }
  if (kind === 'SUCCESS') {
    const first = [rest, ...firstLines(values)].map((line) => line.trim()).find((line) => line !== '' && !isNone(line))
    return {kind: 'success', note: first}
  }
  if (kind === 'ERROR') {
    const free = firstLines(values).find((line) => line.trim() !== '')
    return {kind: 'error', description: get('description') || rest || free || undefined, details: get('details') || undefined}
  }
  const context = get('context') ?? ''
  const listed = listItems(get('options') ?? '')
  // `Option 1: …` lines stand for an Options list when there is none.
  const options = listed.length > 0 ? listed : values.filter((value) => value.key === 'option').map((value) => blockText(value).replace(/\s+/g, ' '))
  const free = values[0]!.lines.map((line) => plainLine(line)).filter((line) => line !== '')
  const question = get('question') || rest || free[0] || context.split('\n')[0] || 'The agent asked a question'
  return {kind: 'question', question: question.replace(/\s+/g, ' ').trim(), context, resumeState: unfence(get('resume state') ?? ''), options}
}

function lastResultLine(lines: readonly string[]): {index: number; kind: string; rest: string} | undefined {
  let fenced: {index: number; kind: string; rest: string} | undefined
  let inFence: string | undefined
  let last: {index: number; kind: string; rest: string} | undefined
  lines.forEach((line, index) => {
    const fence = /^\s*(`{3,}|~{3,})/.exec(line)
    if (fence) {
      if (inFence === undefined) inFence = fence[1]![0]
      else if (fence[1]![0] === inFence) inFence = undefined
      return
    }
    const match = resultLine.exec(plainLine(line).replace(/^[-*+]\s+/, ''))
    if (!match) return
    const found = {index, kind: match[1]!.toUpperCase(), rest: match[2]!.replace(/\**$/, '').trim()}
    if (inFence === undefined) last = found
    else fenced = found
  })
  return last ?? fenced
}

/** Lines of the block that belong to no key or to a summary/details key, in order. */
function firstLines(values: ReturnType<typeof keyedValues>): string[] {
  const lines: string[] = []
  for (const value of values) {
    if (value.key === '' || value.key === 'summary' || value.key === 'details') {
      lines.push(value.inline, ...value.lines.map((line) => plainLine(line).replace(/^[-*+]\s+/, '')))
    }
    if (value.key !== '' && lines.some((line) => line.trim() !== '')) break
  }
  return lines
}
