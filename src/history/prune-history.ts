import type {HistoryEntry} from './history-types.js'

/**
 * Keep at most `max` entries: drop the oldest completed entries first, then
 * the oldest of the other finished ones (failed, interrupted, …). An entry
 * still `spawned` is never dropped: its agent may be resumed, so when only
 * spawned entries are left the file keeps more than `max`.
 */
export function pruneHistory(entries: readonly HistoryEntry[], max: number): HistoryEntry[] {
  const excess = entries.length - Math.max(0, max)
  if (excess <= 0) return [...entries]
  const order = entries
    .map((entry, index) => ({entry, index}))
    .filter(({entry}) => entry.status !== 'spawned')
    .sort((a, b) => rank(a.entry) - rank(b.entry) || time(a.entry) - time(b.entry) || a.index - b.index)
  const dropped = new Set(order.slice(0, excess).map(({index}) => index))
  return entries.filter((_, index) => !dropped.has(index))
}

function rank(entry: HistoryEntry): number {
  return entry.status === 'completed' ? 0 : 1
}

function time(entry: HistoryEntry): number {
  const ms = Date.parse(entry.completion_timestamp ?? entry.timestamp)
  return Number.isNaN(ms) ? 0 : ms
}
