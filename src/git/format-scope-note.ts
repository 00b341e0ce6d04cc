import type {Attribution} from './attribute-changes.js'

/**
 * The value of the `scope:` note for a row: `touched src/x.ts (owned by C)`,
 * several joined with `, ` and cut after `max` paths (`+2 more`) because a
 * table cell is one line a person reads. Undefined when there is nothing to say.
 */
export function formatScopeNote(violations: Attribution['violations'], max = 3): string | undefined {
  if (violations.length === 0) return undefined
  const shown = violations.slice(0, max).map((v) => `${v.path} (owned by ${v.owner})`)
  const more = violations.length - shown.length
  return `touched ${shown.join(', ')}${more > 0 ? ` +${more} more` : ''}`
}
