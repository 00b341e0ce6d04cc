import {dirname, resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {loadPlan} from '../../plan/load-plan.js'
import {parsePlan} from '../../plan/parse-plan.js'
import {PlanError} from '../../plan/plan-error.js'
import {conflictDiagnostics} from '../../plan/conflict-diagnostics.js'
import {readPlanAt} from '../../diff/read-plan-at.js'
import {resolveRevision} from '../../diff/resolve-revision.js'
import {stateDiff} from '../../diff/state-diff.js'
import {formatStateDiff} from '../../diff/format-state-diff.js'
import {formatStateDiffMarkdown} from '../../diff/format-state-diff-markdown.js'

export const registerDiff: RegisterCommand = (program, io, done) => {
  program
    .command('diff')
    .description('What changed in the Execution State since a commit: one line per agent, plus build and integration')
    .argument('<plan>', 'the plan file')
    .argument('[rev]', 'the commit or branch to compare with; a branch that moved on is compared at the merge base', 'HEAD')
    .option('--markdown', 'a Markdown table for a pull-request comment')
    .option('--json', 'one JSON object')
    .option('--tip', 'compare with the tip of REV even when it is not an ancestor of HEAD (default: the merge base)')
    .addHelpText(
      'after',
      '\nExample, in CI: mdplan diff plans/auth.md origin/main --markdown > comment.md\n' +
        'A REV that is not an ancestor of HEAD (main moved on since the branch left it) is compared at the\n' +
        'merge base, and the output says so: what this branch did, not what main did since.\n' +
        'Reads only. Exit codes: 0 printed; 2 unreadable plan, not a git repository, or unknown revision.\n'
    )
    .action(async (planPath: string, rev: string, options: {markdown?: boolean; json?: boolean; tip?: boolean}) => {
      let after
      try {
        after = await loadPlan(planPath, {cwd: io.cwd})
        // Half a conflicted table would read as one side's progress, the other's as undone.
        const conflicted = conflictDiagnostics(after)
        if (conflicted.length > 0) throw new PlanError(conflicted)
      } catch (error) {
        if (!(error instanceof PlanError)) throw error
        for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic(diagnostic) + '\n')
        return done(exitCodes.invalid)
      }
      const file = resolve(io.cwd, planPath)
      // One line, whatever was typed (a revision is data, never an option or a second line).
      const fail = (reason: string): void => {
        io.stderr(`mdplan diff: ${planPath} at ${JSON.stringify(rev).slice(1, -1)}: ${reason}\n`)
        done(exitCodes.invalid)
      }
      const found = await resolveRevision(dirname(file), rev, {tip: options.tip})
      if (!found.ok) return fail(found.reason)
      const {commit, mergeBase} = found
      const then = await readPlanAt(file, commit)
      if (!then.ok) return fail(then.reason)
      const before = then.text === undefined ? undefined : parsePlan(then.text, planPath)
      const committed = before ? conflictDiagnostics(before) : []
      if (committed.length > 0) {
        for (const diagnostic of committed) io.stderr(formatDiagnostic({...diagnostic, file: `${planPath} at ${JSON.stringify(rev).slice(1, -1)}`}) + '\n')
        return done(exitCodes.invalid)
      }
      const diff = stateDiff(before, after)
      if (options.json) io.stdout(JSON.stringify({file: planPath, rev, commit, mergeBase: mergeBase ?? null, ...diff}, null, 2) + '\n')
      else if (options.markdown) io.stdout(formatStateDiffMarkdown(diff, planPath, rev, mergeBase))
      else io.stdout(formatStateDiff(diff, planPath, rev, mergeBase))
      done(exitCodes.ok)
    })
}
