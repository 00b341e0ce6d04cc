/**
 * Per-run usage from running totals (codex `turn.completed.usage` counts the
 * whole thread: 1000 → 2000 → 3000 across resumes). Keys missing from
 * `previous` count from zero; a total that went down (a new session) is kept as is.
 */
export function usageDelta(current: Record<string, number>, previous?: Record<string, number>): Record<string, number> {
  if (!previous) return {...current}
  const delta: Record<string, number> = {}
  for (const [key, value] of Object.entries(current)) {
    const before = previous[key] ?? 0
    delta[key] = value >= before ? value - before : value
  }
  return delta
}
