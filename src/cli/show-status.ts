import {resolve} from 'node:path'
import type {Io} from './io.js'
import {exitCodes} from '../exit-codes.js'
import {formatDiagnostic} from './format-diagnostic.js'
import {formatStatus} from './format-status.js'
import {checkPlan} from '../plan/check-plan.js'
import {loadPlan} from '../plan/load-plan.js'
import {PlanError} from '../plan/plan-error.js'
import {planStatus} from '../plan/plan-status.js'
import {childStatuses, formatChildStatuses} from '../nested/child-statuses.js'
import {plural} from '../util/plural.js'
import {shellWord} from '../util/shell-word.js'

// A table with a merge's conflict markers would show one side's progress as the plan's.
const unreadable = new Set(['no-agents-section', 'no-agents', 'unterminated-fence', 'malformed-table', 'damaged-state-table', 'conflict-markers'])

/**
 * What `mdplan status <plan> [--json]` does once its arguments are read
 * (by commander, src/cli/commands/status.ts, or by src/cli/quick-status.ts):
 * print where the plan stands and resolve to the exit code. Errors other than
 * a plan that cannot be read are thrown, for the caller to report.
 */
export async function showStatus(file: string, flags: {json?: boolean}, io: Io): Promise<number> {
  try {
    const plan = await loadPlan(file, {cwd: io.cwd})
    const problems = checkPlan(plan)
    // Without its agents or its table the plan cannot say where it stands;
    // anything else (a missing prompts file, a bad setting) does not stop it.
    const fatal = plan.messages.filter((d) => d.severity === 'error' && unreadable.has(d.rule))
    if (fatal.length > 0) throw new PlanError(fatal)
    const children = await childStatuses(plan, resolve(io.cwd, file), io.cwd)
    const status = planStatus(plan)
    if (flags.json) io.stdout(JSON.stringify(children.length > 0 ? {...status, children} : status, null, 2) + '\n')
    else {
      io.stdout(formatStatus(status))
      if (children.length > 0) io.stdout(`\nChild plans:\n${formatChildStatuses(children).join('\n')}\n`)
      const errors = problems.filter((d) => d.severity === 'error').length
      if (errors > 0) io.stdout(`\n${plural(errors, 'problem')} in the plan: run \`mdplan validate ${shellWord(file)}\`\n`)
    }
    return exitCodes.ok
  } catch (error) {
    if (!(error instanceof PlanError)) throw error
    for (const d of error.diagnostics) io.stderr(formatDiagnostic(d) + '\n')
    return exitCodes.invalid
  }
}
