import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {loadRealPlan} from '../load-real-plan.js'
import {PlanError} from '../../plan/plan-error.js'
import {colorEnabled} from '../../report/color-enabled.js'
import {computeScorecard} from '../../report/compute-scorecard.js'
import {loggedAttempts} from '../../layout/logged-attempts.js'
import {formatScorecard} from '../../report/format-scorecard.js'
import {childStatuses, formatChildStatuses, type ChildStatus} from '../../nested/child-statuses.js'
import {resolve} from 'node:path'
import {readRunLogs} from '../../report/read-run-logs.js'
import {timedAgents} from '../../report/agent-times.js'

export const registerReport: RegisterCommand = (program, io, done) => {
  program
    .command('report')
    .description('Print the scorecard of a finished or interrupted run, computed from the plan file')
    .argument('<plan>', 'the plan file')
    .option('--json', 'print the scorecard as JSON (the `scorecard` of the `run-finished` event)')
    .addHelpText(
      'after',
      '\nPer agent: status, attempts and duration from the Execution State table (or `took 3m 12s` in the\n' +
        'Notes of a table with no Duration column); then wall-clock (Last updated − Started), sum of parts,\n' +
        'speedup, and build and integration where the plan has them. The run log (.mdplan/logs/<plan>/run.ndjson\n' +
        'beside the plan) limits the sum to agents that ran since Started.\n'
    )
    .action(async (planPath: string, options: {json?: boolean}) => {
      let scorecard
      let children: ChildStatus[] = []
      try {
        const plan = await loadRealPlan(planPath, {cwd: io.cwd})
        // The run log (beside the plan, whatever folder the run was started from) says which agents ran in
        // the timing the table records: a re-run of a finished plan sums only its own parts.
        const file = resolve(io.cwd, planPath)
        const started = plan.state?.meta.find((line) => line.key === 'started')?.value.trim()
        scorecard = computeScorecard(plan, undefined, {timed: timedAgents(readRunLogs(file, io.cwd), started), attempts: loggedAttempts(file, io.cwd)})
        // A plan of plans: each child plan's counts under the agent that runs it.
        children = await childStatuses(plan, resolve(io.cwd, planPath), io.cwd)
      } catch (error) {
        if (!(error instanceof PlanError)) throw error
        for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic(diagnostic) + '\n')
        io.stderr('Fix the plan (or the path) and run `mdplan report` again.\n')
        return done(exitCodes.invalid)
      }
      if (options.json) io.stdout(JSON.stringify(children.length > 0 ? {...scorecard, children} : scorecard, null, 2) + '\n')
      else {
        io.stdout(formatScorecard(scorecard, {color: colorEnabled(io.env, io.isTTY)}))
        if (children.length > 0) io.stdout(`\nChild plans:\n${formatChildStatuses(children).join('\n')}\n`)
      }
      done(exitCodes.ok)
    })
}
