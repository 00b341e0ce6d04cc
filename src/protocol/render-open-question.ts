import {fenceFor} from './assemble-prompt.js'

export interface OpenQuestionEntry {
  /** The agent's ID in the plan. */
  agent: string
  question: string
  context: string
  options: string[]
  resumeState: string
}

/**
 * One entry under `## Open Questions`, without a trailing line ending:
 *
 *     ### B: Which store should the cache use?
 *
 *     **Context:**
 *
 *     > The plan names no store.
 *
 *     **Options:**
 *
 *     1. Redis
 *     2. SQLite
 *
 *     **Resume state:**
 *
 *     ```
 *     step: 3 of 5
 *     ```
 *
 *     - **answer**:
 *
 * The context is quoted so that a `## ` line an agent wrote cannot end the
 * section; options and the question are kept to one line each.
 */
export function renderOpenQuestion(entry: OpenQuestionEntry, eol: '\n' | '\r\n' = '\n'): string {
  const lines = [`### ${entry.agent}: ${flat(entry.question) || 'question'}`, '']
  const context = entry.context.replace(/\s+$/, '')
  if (context.trim() !== '') {
    lines.push('**Context:**', '', ...context.split(/\r?\n/).map((line) => (line.trim() === '' ? '>' : `> ${line}`)), '')
  }
  const options = entry.options.map(flat).filter((option) => option !== '')
  if (options.length > 0) lines.push('**Options:**', '', ...options.map((option, index) => `${index + 1}. ${option}`), '')
  const state = entry.resumeState.replace(/\s+$/, '')
  if (state.trim() !== '') {
    const fence = fenceFor(state)
    lines.push('**Resume state:**', '', fence, ...state.split(/\r?\n/), fence, '')
  }
  lines.push('- **answer**:')
  return lines.join(eol)
}

function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}
