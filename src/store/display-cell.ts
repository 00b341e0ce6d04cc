import {escapeCell} from './escape-cell.js'
import type {StateLayout} from './state-layout.js'

/** A cell's value as the table shows it: escaped, an empty Agent ID or Duration as `—`. */
export function displayCell(value: string, i: number, layout: StateLayout): string {
  if (value === '' && (i === layout.index.agentId || i === layout.index.duration)) return '—'
  return escapeCell(value)
}
