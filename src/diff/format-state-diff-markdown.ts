import {escapeCell} from '../store/escape-cell.js'
import {escapeHtml} from './escape-html.js'
import {metaRows, sinceLabel, summary, transition} from './format-state-diff.js'
import type {StateDiff} from './state-diff.js'

/** The diff as a pull-request comment: a heading, a one-line summary, a table, and Build / Integration. */
export function formatStateDiffMarkdown(diff: StateDiff, file: string, rev: string, mergeBase?: string): string {
  const lines = [`### mdplan: \`${file}\` since ${sinceLabel(rev, mergeBase, (text) => `\`${text}\``)}`, '']
  const meta = metaRows(diff)
  if (diff.agents.length === 0 && meta.length === 0) return [...lines, 'No change in the Execution State.', ''].join('\n')
  lines.push(`${summary(diff)}.`, '')
  if (diff.agents.length > 0) {
    lines.push('| Agent | Status | Duration | Notes |', '|---|---|---|---|')
    for (const agent of diff.agents) {
      const name = agent.name ? `${agent.id}: ${agent.name}` : agent.id
      const status = agent.from === agent.to ? agent.to : transition(agent.from, `**${agent.to}**`)
      lines.push(`| ${escapeCell(escapeHtml(name))} | ${status} | ${escapeHtml(agent.duration ?? '—')} | ${escapeCell(escapeHtml(agent.notes ?? ''))} |`.replace(/ {2}\|$/, ' |'))
    }
    lines.push('')
  }
  for (const [label, change] of meta) lines.push(`**${label}:** ${escapeHtml(change)}  `)
  if (meta.length > 0) lines[lines.length - 1] = lines[lines.length - 1]!.trimEnd()
  return lines.join('\n').replace(/\n*$/, '\n')
}
