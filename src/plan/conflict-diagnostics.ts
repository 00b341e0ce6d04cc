import type {Diagnostic, Plan} from './types.js'

/**
 * The plan's conflict-marker errors (`checkConflictMarkers`, found by every parse): a command that reads
 * the plan's progress or writes into the file refuses a plan that has any, at the marker's line.
 */
export function conflictDiagnostics(plan: Plan): Diagnostic[] {
  return plan.messages.filter((message) => message.rule === 'conflict-markers' || (message.rule === 'damaged-state-table' && message.reason.startsWith('conflict markers')))
}
