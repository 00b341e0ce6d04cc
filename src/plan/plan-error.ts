import type {Diagnostic} from './types.js'

/** A plan that cannot be used (unreadable, not a plan, or invalid): carries every problem, positioned. */
export class PlanError extends Error {
  readonly diagnostics: Diagnostic[]

  constructor(diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => d.reason).join('\n') || 'invalid plan')
    this.name = 'PlanError'
    this.diagnostics = diagnostics
  }
}
