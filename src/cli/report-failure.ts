import {PlanError} from '../plan/plan-error.js'
import {LockHeldError} from '../store/lock.js'
import {formatDiagnostic} from './format-diagnostic.js'
import {exitCodes} from './exit-codes.js'
import type {Io} from './io.js'

/** Print why a command could not do its work, in a form a person can act on, and pick the exit code. */
export function reportFailure(error: unknown, io: Io): number {
  if (error instanceof PlanError) {
    for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic(diagnostic) + '\n')
    const errors = error.diagnostics.filter((d) => d.severity === 'error').length
    io.stderr(`${errors} ${errors === 1 ? 'error' : 'errors'}: nothing was launched and the plan was not changed. Fix the plan, or see \`mdplan validate\`.\n`)
    return exitCodes.invalid
  }
  if (error instanceof LockHeldError) {
    io.stderr(`mdplan: ${error.message}\n`)
    return exitCodes.locked
  }
  io.stderr(`mdplan: ${error instanceof Error ? error.message : String(error)}\n`)
  return exitCodes.failed
}
