import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {loadRealPlan} from '../load-real-plan.js'
import {PlanError} from '../../plan/plan-error.js'
import {renderMermaid} from '../../report/render-mermaid.js'
import {writeGraph} from '../../report/write-graph.js'
import {loadChildPlans} from '../../nested/load-child-plans.js'
import {resolve} from 'node:path'

export const registerGraph: RegisterCommand = (program, io, done) => {
  program
    .command('graph')
    .description('Print the plan’s DAG as a Mermaid flowchart, each agent styled by its status')
    .argument('<plan>', 'the plan file')
    .option('--write', 'keep a ```mermaid block under `## DAG Visualization` in the plan current (the ASCII picture is kept)')
    .addHelpText('after', '\nSolid arrows are depends_on, dashed arrows soft_depends_on. GitHub renders the block in pull requests.\n')
    .action(async (planPath: string, options: {write?: boolean}) => {
      try {
        const plan = await loadRealPlan(planPath, {cwd: io.cwd})
        if (!options.write) {
          // A child plan is drawn as a subgraph of the agent that runs it.
          io.stdout(renderMermaid(plan, await loadChildPlans(plan, resolve(io.cwd, planPath))))
          return done(exitCodes.ok)
        }
        const result = await writeGraph(planPath, {cwd: io.cwd})
        io.stdout(result.changed ? `${planPath}: DAG Visualization updated\n` : `${planPath}: DAG Visualization already current\n`)
        done(exitCodes.ok)
      } catch (error) {
        if (!(error instanceof PlanError)) throw error
        for (const diagnostic of error.diagnostics) io.stderr(formatDiagnostic(diagnostic) + '\n')
        io.stderr('Fix the plan (or the path) and run `mdplan graph` again.\n')
        done(exitCodes.invalid)
      }
    })
}
