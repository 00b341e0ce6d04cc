/**
 * A count with its noun, singular for exactly one: `1 agent`, `2 agents`,
 * `0 agents`, `1 entry`/`3 entries` (with `many`). Every count mdplan prints
 * goes through here, so none reads `1 agents`.
 */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`
}
