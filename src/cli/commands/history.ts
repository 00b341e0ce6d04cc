import {relative, resolve} from 'node:path'
import {InvalidArgumentError} from 'commander'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {loadPlan} from '../../plan/load-plan.js'
import {readRunLogs} from '../../report/read-run-logs.js'
import {agentTimes} from '../../report/agent-times.js'
import {PlanError} from '../../plan/plan-error.js'
import {conflictDiagnostics} from '../../plan/conflict-diagnostics.js'
import {readHistory} from '../../history/read-history.js'
import {updateHistory} from '../../history/update-history.js'
import {writeHistory} from '../../history/write-history.js'
import {outPathProblem} from '../directory-problem.js'
import {errnoText} from '../../util/read-regular-file.js'
import {dependencyDepth} from '../../plan/dependency-depth.js'
import {loadChildPlans} from '../../nested/load-child-plans.js'
import {childPlanPath} from '../../plan/child-plan-path.js'
import type {ChildPlans} from '../../nested/load-child-plans.js'
import {plural} from '../../util/plural.js'

function positiveInteger(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('expected a whole number of at least 1')
  return n
}

export const registerHistory: RegisterCommand = (program, io, done) => {
  program
    .command('history')
    .description('Record the plan’s agents in an agent-history file (schema 1.2) and current-agent-id.txt')
    .argument('<plan>', 'the plan file')
    .option('--out <file>', 'the history file', '.planning/agent-history.json')
    .option('--max-entries <n>', 'keep at most this many entries (default: the file’s max_entries, else 50)', positiveInteger)
    .addHelpText(
      'after',
      '\nOne entry per agent that has run: in_progress and needs_input are "spawned", then "completed" or "failed";\n' +
        'pending agents are left out. Pruning drops the oldest completed entries first, then failed ones, never a\n' +
        'spawned one. current-agent-id.txt (beside --out) names the latest running agent, else the last recorded.\n'
    )
    .action(async (planPath: string, options: {out: string; maxEntries?: number}) => {
      const out = resolve(io.cwd, options.out)
      const outProblem = outPathProblem(out)
      if (outProblem !== undefined) {
        io.stderr(`mdplan history: --out ${options.out} ${outProblem}; nothing was written, choose another --out.\n`)
        return done(exitCodes.invalid)
      }
      let plan
      try {
        plan = await loadPlan(planPath, {cwd: io.cwd})
        // Half a conflicted table would be recorded as the agents' history.
        const conflicted = conflictDiagnostics(plan)
        if (conflicted.length > 0) throw new PlanError(conflicted)
      } catch (error) {
        if (!(error instanceof PlanError)) throw error
        for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic(diagnostic) + '\n')
        io.stderr('Fix the plan (or the path) and run `mdplan history` again.\n')
        return done(exitCodes.invalid)
      }
      let existing
      try {
        existing = await readHistory(out)
      } catch (error) {
        io.stderr(`mdplan history: ${(error as Error).message}; fix it or move it away, then run \`mdplan history\` again. Nothing was written.\n`)
        return done(exitCodes.invalid)
      }
      const now = new Date().toISOString()
      // Each agent's own start and end, from the run log beside the plan (and where older versions kept it).
      const timesOf = (file: string) => agentTimes(readRunLogs(file, io.cwd))
      let {history, currentAgentId} = updateHistory(existing, plan, {planName: planPath, now, maxEntries: options.maxEntries, times: timesOf(resolve(io.cwd, planPath))})
      // Child plans' agents too, each with the agent that runs its plan as parent and a group below that agent's.
      const record = (parent: typeof plan, parentName: string, parentGroup: string, children: ChildPlans): void => {
        const depth = dependencyDepth(parent)
        for (const [agent, child] of children) {
          const name = relative(io.cwd, childPlanPath(resolve(io.cwd, parentName), parent.agents.find((a) => a.id === agent)!)!)
          const group = `${parentGroup}${parentGroup ? '/' : ''}wave-${(depth.get(agent) ?? 0) + 1}`
          const times = timesOf(resolve(io.cwd, name))
          const updated = updateHistory(history, child.plan, {planName: name, now, maxEntries: options.maxEntries, parent: {plan: parentName, agent, group}, times})
          history = updated.history
          currentAgentId ??= updated.currentAgentId
          record(child.plan, name, group, child.children)
        }
      }
      record(plan, planPath, '', await loadChildPlans(plan, resolve(io.cwd, planPath)))
      let currentFile: string | undefined
      try {
        currentFile = writeHistory(out, history, currentAgentId).currentFile
      } catch (error) {
        io.stderr(`mdplan history: cannot write ${options.out} (${errnoText(error)}); nothing was written, choose another --out.\n`)
        return done(exitCodes.invalid)
      }
      const shown = relative(io.cwd, out) || out
      io.stdout(`${shown}: ${plural(history.entries.length, 'entry', 'entries')} (max ${history.max_entries})\n`)
      if (currentFile) io.stdout(`${relative(io.cwd, currentFile)}: ${currentAgentId}\n`)
      done(exitCodes.ok)
    })
}
