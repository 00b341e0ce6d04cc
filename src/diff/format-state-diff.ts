import type {StateDiff} from './state-diff.js'

/**
 * The diff as plain lines, columns aligned:
 * `B  pending → completed  4m 12s  result: added the route`.
 */
export function formatStateDiff(diff: StateDiff, file: string, rev: string, mergeBase?: string): string {
  const meta = metaRows(diff)
  const since = sinceLabel(rev, mergeBase, (text) => text)
  if (diff.agents.length === 0 && meta.length === 0) return `${file}: no change in the Execution State since ${since}\n`
  const rows = diff.agents.map((agent) => [agent.id, transition(agent.from, agent.to), agent.duration ?? '—', agent.notes ?? ''])
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length)))
  const lines = [`${file} since ${since}: ${summary(diff)}`]
  for (const row of rows) lines.push(row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join('  ').trimEnd())
  for (const [label, change] of meta) lines.push(`${label}: ${change}`)
  return lines.join('\n') + '\n'
}

/** `HEAD`, or `merge base 635e65d of origin/main` when the diff compares with where the branches parted. */
export function sinceLabel(rev: string, mergeBase: string | undefined, code: (text: string) => string): string {
  return mergeBase ? `merge base ${code(mergeBase.slice(0, 7))} of ${code(rev)}` : code(rev)
}

export function transition(from: string | null, to: string): string {
  return from === null ? `(new) → ${to}` : from === to ? to : `${from} → ${to}`
}

/** `3 agents changed (2 completed, 1 failed)`. */
export function summary(diff: StateDiff): string {
  const n = diff.agents.length
  const counts = new Map<string, number>()
  for (const agent of diff.agents) if (agent.from !== agent.to) counts.set(agent.to, (counts.get(agent.to) ?? 0) + 1)
  const moved = [...counts].map(([status, count]) => `${count} ${status}`).join(', ')
  return `${n} agent${n === 1 ? '' : 's'} changed${moved ? ` (${moved})` : ''}`
}

/** Build and Integration lines that changed, as `[label, "from → to"]`. */
export function metaRows(diff: StateDiff): Array<[string, string]> {
  const rows: Array<[string, string]> = []
  if (diff.build) rows.push(['Build', `${diff.build.from ?? '—'} → ${diff.build.to ?? '—'}`])
  if (diff.integration) rows.push(['Integration', `${diff.integration.from ?? '—'} → ${diff.integration.to ?? '—'}`])
  return rows
}
