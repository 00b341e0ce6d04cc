import {blockText, isNone, keyedValues, listItems, oneLine, plainLine, resultLine} from './keyed-lines.js'

export interface CompletionReport {
  filesChanged: string[]
  /** One line: how far the agent got. */
  checkpoint?: string
  discoveries: string[]
}

/**
 * The Completion Report an agent may end with:
 *
 *     ## Completion Report          (or COMPLETION REPORT, **Completion Report:**)
 *     Files changed:
 *     - src/a.ts (created)
 *     Checkpoint: step 3 of 5 done
 *     Discoveries:
 *     - The API returns 204, not 200
 *
 * Keys may be bold, bulleted or headings; lists may be `-`/`*`/numbered or, for
 * files, comma-separated on the key's line. Without the heading, the keys are
 * read from the RESULT block. Undefined when there is no report.
 */
export function parseCompletionReport(text: string): CompletionReport | undefined {
  const lines = text.split(/\r?\n/)
  let start = -1
  for (let index = lines.length - 1; index >= 0 && start === -1; index--) {
    if (/^completion report\s*:?$/i.test(plainLine(lines[index]!))) start = index + 1
  }
  if (start === -1) {
    for (let index = lines.length - 1; index >= 0 && start === -1; index--) {
      if (resultLine.test(plainLine(lines[index]!).replace(/^[-*+]\s+/, ''))) start = index + 1
    }
  }
  if (start === -1) return undefined
  const values = keyedValues(lines.slice(start))
  let found = false
  const report: CompletionReport = {filesChanged: [], discoveries: []}
  for (const value of values) {
    if (value.key === 'files changed' || value.key === 'files modified' || value.key === 'changed files' || value.key === 'files') {
      found = true
      const body = blockText(value)
      const items = value.lines.some((line) => line.trim() !== '') ? listItems(body) : body.split(',').map((item) => item.trim())
      report.filesChanged.push(...items.filter((item) => item !== '' && !isNone(item)).map((item) => item.replace(/^`([^`]+)`/, '$1')))
    } else if (value.key === 'checkpoint') {
      found = true
      const body = blockText(value)
      if (body.trim() !== '' && !isNone(body)) report.checkpoint = oneLine(body.replace(/^\s*[-*+]\s+/gm, ''))
    } else if (value.key === 'discoveries') {
      found = true
      const body = blockText(value)
      const items = value.lines.some((line) => line.trim() !== '') ? listItems(body) : [body]
      report.discoveries.push(...items.map((item) => item.trim()).filter((item) => item !== '' && !isNone(item)))
    }
  }
  return found ? report : undefined
}
