import {PlanError} from '../plan/plan-error.js'
import type {Diagnostic, Plan} from '../plan/types.js'
import {conflictDiagnostics} from '../plan/conflict-diagnostics.js'

/** A section edit refused: the file holds a merge's conflict markers. The message names the first marker's file:line:col. */
export class ConflictedPlanError extends PlanError {
  constructor(diagnostics: Diagnostic[]) {
    super(diagnostics)
    this.name = 'ConflictedPlanError'
    const first = diagnostics[0]!
    const point = first.place === undefined ? undefined : 'start' in first.place ? first.place.start : first.place
    this.message = `${first.file}${point ? `:${point.line}:${point.column}` : ''}: ${first.reason} [${first.rule}]`
  }

  /** Throw when the plan holds conflict markers. */
  static refuse(plan: Plan): void {
    const conflicted = conflictDiagnostics(plan)
    if (conflicted.length > 0) throw new ConflictedPlanError(conflicted)
  }
}
