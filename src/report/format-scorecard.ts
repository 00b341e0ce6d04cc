import pc from 'picocolors'
import type {Scorecard} from '../events.js'
import {formatDuration} from '../util/format-duration.js'
import {colorStatus} from './color-status.js'
import {budgetUse} from '../plan/budget-use.js'

export interface FormatScorecardOptions {
  color?: boolean
}

/** The scorecard as a compact table for people: one row per agent, then the run's figures. */
export function formatScorecard(scorecard: Scorecard, options: FormatScorecardOptions = {}): string {
  const c = pc.createColors(options.color ?? false)
  // Where each agent runs or ran, when any ran on a host.
  const hosts = scorecard.agents.some((agent) => agent.host !== undefined)
  const header = ['Agent', 'Name', 'Status', 'Attempts', 'Time', ...(hosts ? ['Host'] : [])]
  const rows = scorecard.agents.map((agent) => [
    agent.id,
    agent.name,
    agent.status,
    String(agent.attempts),
    agent.durationMs === undefined ? '—' : formatDuration(agent.durationMs),
    ...(hosts ? [agent.host ?? '—'] : [])
  ])
  // Widths come from the plain text: colour codes would throw the padding off.
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[], paint: (cell: string, i: number) => string): string =>
    cells
      .map((cell, i) => paint(i === cells.length - 1 ? cell : cell.padEnd(widths[i]!), i))
      .join('  ')
      .trimEnd()

  const out: string[] = [c.bold('Scorecard'), line(header, (cell) => c.dim(cell))]
  for (const row of rows) out.push(line(row, (cell, i) => (i === 2 ? colorStatus(cell, row[2]!, c) : cell)))
  out.push('')

  const figures: Array<[string, string]> = []
  if (scorecard.nothingRan) figures.push(['This run', 'nothing launched (the table above is from earlier runs)'])
  else {
    figures.push(['Wall-clock', scorecard.wallClockMs === undefined ? '—' : formatDuration(scorecard.wallClockMs)])
    figures.push(['Sum of parts', formatDuration(scorecard.sumOfPartsMs)])
    figures.push(['Speedup', scorecard.speedup === undefined ? '—' : `${scorecard.speedup.toFixed(2)}×`])
    if (scorecard.peakConcurrency !== undefined) figures.push(['Peak concurrency', String(scorecard.peakConcurrency)])
  }
  if (scorecard.build !== undefined) figures.push(['Build', result(scorecard.build)])
  if (scorecard.integration !== undefined) figures.push(['Integration', result(scorecard.integration)])
  if (scorecard.tests !== undefined) figures.push(['Tests', scorecard.tests])
  if (scorecard.costUsd !== undefined) figures.push(['Cost', `$${scorecard.costUsd.toFixed(2)}`])
  if (scorecard.tokens !== undefined) figures.push(['Tokens', scorecard.tokens.toLocaleString('en-US')])
  if (scorecard.budget) {
    const use = budgetUse(scorecard.budget, {tokens: scorecard.tokens, usd: scorecard.costUsd})
    figures.push(['Budget', `${use.summary}${use.level === 'reached' ? ', reached' : ''}`])
  }
  const runners = Object.entries(scorecard.spentByRunner ?? {})
  if (runners.length > 1) figures.push(['By runner', runners.map(([runner, spent]) => `${runner} ${spentText(spent)}`).join('; ')])
  const counts = Object.entries(scorecard.counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ')
  figures.push(['Agents', counts || 'none'])
  const labelWidth = Math.max(...figures.map(([label]) => label.length))
  for (const [label, value] of figures) out.push(`${c.dim(label.padEnd(labelWidth))}  ${value}`)
  for (const discovery of scorecard.discoveries ?? []) out.push(`${c.dim('Discovery')}  ${discovery}`)
  return out.join('\n') + '\n'
}

/** `1,200 tokens, $0.10`. */
function spentText(spent: {tokens?: number; usd?: number}): string {
  return [spent.tokens !== undefined ? `${spent.tokens.toLocaleString('en-US')} tokens` : undefined, spent.usd !== undefined ? `$${spent.usd.toFixed(2)}` : undefined].filter(Boolean).join(', ')
}

/** A step's result as a person reads it: `pass` → `passed`, `fail (2 attempts)` → `failed (2 attempts)`; anything else as written. */
function result(value: string): string {
  return value.replace(/^pass\b/i, 'passed').replace(/^fail\b/i, 'failed')
}
