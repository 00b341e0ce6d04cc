import type {Plan} from '../plan/types.js'
import {escapeCell, normalizeCell} from './escape-cell.js'
import {metaKeys, type TableState} from './table-state.js'

const note = '_This section is managed by mdplan. Edit a Status cell to re-queue (pending) or skip (completed) an agent._'
const header = '| Agent | Status | Agent ID | Duration | Notes |'
const delimiter = '|-------|--------|----------|----------|-------|'

/**
 * The plan's text with a state section where it has none: a new
 * `## Execution State` section appended at the end of the file, or (when the
 * section is there but holds no table) a table added to it. Rows in the
 * order of `state` (plan order). The final newline, or its absence, stays.
 */
export function appendStateSection(plan: Plan, state: TableState): string {
  const {text, eol} = plan
  const rows = [...state.rows].map(([agent, row]) => {
    const cells = [escapeCell(agent), row.status, escapeCell(row.agentId) || '—', escapeCell(row.duration) || '—', escapeCell(row.notes)]
    return '|' + cells.map((cell) => (cell === '' ? ' ' : ` ${cell} `)).join('|') + '|'
  })
  const meta = metaKeys.map(([name, , label]) => {
    const fallback = name === 'started' ? '—' : name === 'build' ? 'not yet run' : undefined
    const value = state.meta[name] === undefined ? fallback : normalizeCell(state.meta[name]) || '—'
    return value === undefined ? undefined : `${label}: ${value}`
  })
  const block = [header, delimiter, ...rows, '', ...meta.filter((line) => line !== undefined)]

  const section = plan.state?.section
  if (section) {
    // A section without a table: the table goes after what the section holds.
    const start = section.start.offset
    const end = section.end.offset
    const body = text.slice(start, end)
    const kept = body.replace(/(?:\r?\n[ \t]*)*$/, '')
    const trailing = body.slice(kept.length)
    const tail = end === text.length ? (plan.finalNewline ? eol : '') : trailing.split('\n').length > 2 ? trailing : eol + eol
    return text.slice(0, start) + kept + eol + eol + block.join(eol) + tail + text.slice(end)
  }

  const lead = text === '' ? '' : text.endsWith(eol + eol) ? '' : text.endsWith('\n') ? eol : eol + eol
  const lines = ['## Execution State', '', note, '', ...block]
  return text + lead + lines.join(eol) + (plan.finalNewline || text === '' ? eol : '')
}
