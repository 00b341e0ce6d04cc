import type {Attribution} from './attribute-changes.js'
import {plural} from '../util/plural.js'

/**
 * End-of-run lines for what no row can hold: changes to files no agent
 * declares, and changes that could not be pinned on one agent.
 */
export function formatScopeReport(undeclared: readonly string[], unattributed: Attribution['unattributed']): string[] {
  const lines: string[] = []
  const files = [...new Set(undeclared)].sort()
  if (files.length > 0) lines.push(`scope: ${plural(files.length, 'changed file')} no agent declares: ${files.join(', ')}`)
  const byPath = new Map<string, Set<string>>()
  for (const item of unattributed) {
    const set = byPath.get(item.path) ?? new Set<string>()
    for (const candidate of item.candidates) set.add(candidate)
    byPath.set(item.path, set)
  }
  for (const [path, candidates] of [...byPath].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`scope: ${path} changed while ${[...candidates].join(', ')} ran; cannot tell which`)
  }
  return lines
}
