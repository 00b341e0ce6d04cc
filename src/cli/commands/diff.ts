import {resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../exit-codes.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {loadPlan} from '../../plan/load-plan.js'
import {parsePlan} from '../../plan/parse-plan.js'
import {PlanError} from '../../plan/plan-error.js'
import {readPlanAt} from '../../diff/read-plan-at.js'
import {stateDiff} from '../../diff/state-diff.js'
import {formatStateDiff} from '../../diff/format-state-diff.js'
import {formatStateDiffMarkdown} from '../../diff/format-state-diff-markdown.js'

export const registerDiff: RegisterCommand = (program, io, done) => {
  program
    .command('diff')
    .description('What changed in the Execution State since a commit: one line per agent, plus build and integration')
    .argument('<plan>', 'the plan file')
    .argument('[rev]', 'the commit to compare with', 'HEAD')
    .option('--markdown', 'a Markdown table for a pull-request comment')
    .option('--json', 'one JSON object')
    .addHelpText('after', '\nExample, in CI: mdplan diff plans/auth.md origin/main --markdown > comment.md\nReads only. Exit codes: 0 printed; 2 unreadable plan, not a git repository, or unknown revision.\n')
    .action(async (planPath: string, rev: string, options: {markdown?: boolean; json?: boolean}) => {
      let after
      try {
        after = await loadPlan(planPath, {cwd: io.cwd})
      } catch (error) {
        if (!(error instanceof PlanError)) throw error
        for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic(diagnostic) + '\n')
        return done(exitCodes.invalid)
      }
      const then = await readPlanAt(resolve(io.cwd, planPath), rev)
      if (!then.ok) {
        io.stderr(`mdplan diff: ${planPath} at ${rev}: ${then.reason}\n`)
        return done(exitCodes.invalid)
      }
      const diff = stateDiff(then.text === undefined ? undefined : parsePlan(then.text, planPath), after)
      if (options.json) io.stdout(JSON.stringify({file: planPath, rev, ...diff}, null, 2) + '\n')
      else if (options.markdown) io.stdout(formatStateDiffMarkdown(diff, planPath, rev))
      else io.stdout(formatStateDiff(diff, planPath, rev))
      done(exitCodes.ok)
    })
}
