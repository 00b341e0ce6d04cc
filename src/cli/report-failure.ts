import {PlanError} from '../plan/plan-error.js'
import type {Diagnostic} from '../plan/types.js'
import {LockHeldError} from '../store/lock.js'
import {LeftoverAgentsError} from '../process/end-leftovers.js'
import {LinkReplacedError} from '../store/plan-lock.js'
import {plural} from '../util/plural.js'
import {formatDiagnostic} from './format-diagnostic.js'
import {exitCodes} from '../exit-codes.js'
import type {Io} from './io.js'

/** Print why a command could not do its work, in a form a person can act on, and pick the exit code. */
export function reportFailure(error: unknown, io: Io): number {
  if (error instanceof PlanError) {
    for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic(diagnostic) + '\n')
    const errors = error.diagnostics.filter((d) => d.severity === 'error')
    io.stderr(`${plural(errors.length, 'error')}: nothing was launched and the plan was not changed. ${hintFor(errors)}\n`)
    return exitCodes.invalid
  }
  if (error instanceof LockHeldError || error instanceof LeftoverAgentsError || error instanceof LinkReplacedError) {
    io.stderr(`mdplan: ${error.message}\n`)
    return exitCodes.locked
  }
  io.stderr(`mdplan: ${error instanceof Error ? error.message : String(error)}\n`)
  return exitCodes.failed
}

// Problems `mdplan validate` does not look for: pointing there would send the person to a check that passes.
const runnerRules = new Set(['runner-not-installed', 'runner-not-ready'])
const sideFileRules = new Set(['state-json-unconfirmed'])
// Problems of the machines and the repository, not of the plan (validate finds the plan valid).
const environmentRules = new Set(['host-unavailable', 'host-unreachable', 'host-no-commit', 'host-needs-git'])

/** What to do next, for the kinds of error there are. */
export function hintFor(errors: readonly Diagnostic[]): string {
  const rules = new Set(errors.map((d) => d.rule))
  const runner = [...rules].some((rule) => runnerRules.has(rule ?? ''))
  const sideFile = [...rules].some((rule) => sideFileRules.has(rule ?? ''))
  const environment = [...rules].some((rule) => environmentRules.has(rule ?? ''))
  const plan = [...rules].some((rule) => !runnerRules.has(rule ?? '') && !sideFileRules.has(rule ?? '') && !environmentRules.has(rule ?? ''))
  const hints: string[] = []
  if (plan) hints.push('Fix the plan, or see `mdplan validate`.')
  if (environment) hints.push('Check the host or the repository as the line says (then `mdplan run` checks it again), or run with `--host NAME` to use other hosts.')
  if (runner) hints.push('Install or set up the runner as the line says (then `mdplan run` checks it again).')
  if (sideFile) hints.push('Choose with `--import-state` or `--ignore-state-file`.')
  return hints.join(' ')
}
