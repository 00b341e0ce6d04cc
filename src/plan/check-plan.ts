import {sortDiagnostics} from './sort-diagnostics.js'
import {validatePlan} from './validate-plan.js'
import type {Diagnostic, Plan} from './types.js'

/** Every problem of a plan: parse messages and validation, in one sorted list. */
export function checkPlan(plan: Plan): Diagnostic[] {
  return sortDiagnostics([...plan.messages, ...validatePlan(plan)])
}
