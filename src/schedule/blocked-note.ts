import type {Assessment} from './assess-agents.js'

/**
 * The `blocked by:` note of a pending agent, derived from its assessment:
 * `C (failed), D (needs input)`, or undefined when nothing blocks it. The
 * run writes it on every scheduling pass; the merge driver recomputes it, since
 * it describes other rows that a merge may have changed.
 */
export function blockedNote(assessment: Assessment | undefined): string | undefined {
  if (assessment?.kind !== 'blocked') return undefined
  return assessment.by.map((b) => (b.why === 'blocked' ? b.id : `${b.id} (${b.why})`)).join(', ')
}
