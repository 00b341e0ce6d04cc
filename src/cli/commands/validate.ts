import {resolve} from 'node:path'
import type {RegisterCommand} from '../command-result.js'
import {exitCodes} from '../../exit-codes.js'
import {formatDiagnostic} from '../format-diagnostic.js'
import {checkPlan} from '../../plan/check-plan.js'
import {checkPlanTree} from '../../nested/check-plan-tree.js'
import {checkPromptSizes} from '../../runners/check-prompt-sizes.js'
import {resolveRunner} from '../../runners/resolve-runner.js'
import {agentPrompt} from '../../protocol/agent-prompt.js'
import {runnerMap} from '../../nested/runner-map.js'
import {sortDiagnostics} from '../../plan/sort-diagnostics.js'
import {loadPlan} from '../../plan/load-plan.js'
import {PlanError} from '../../plan/plan-error.js'
import type {Diagnostic} from '../../plan/types.js'
import {readSideState} from '../../store/read-side-state.js'
import {checkTemplates} from '../../runners/template-safety/check-templates.js'
import {readHosts} from '../../hosts/read-hosts.js'
import {checkAccounts} from '../../hosts/check-accounts.js'
import {defaultConcurrency} from '../../plan/defaults.js'
import {readNotify} from '../../notify/read-notify.js'
import {undeclaredJobHosts} from '../../hosts/undeclared-job-hosts.js'
import {plural} from '../../util/plural.js'

export const registerValidate: RegisterCommand = (program, io, done) => {
  program
    .command('validate')
    .description('Check a plan: every problem, one line each as path:line:col: message [rule]')
    .argument('<plan>', 'the plan file (Markdown)')
    .addHelpText('after', '\nExit codes: 0 no errors (warnings and infos do not fail); 2 errors, or the file is not a readable plan.\nThe plan is only read, never written.\n')
    .action(async (file: string) => {
      let problems: Diagnostic[]
      let agents = 0
      try {
        const plan = await loadPlan(file, {cwd: io.cwd})
        const hosts = readHosts(plan)
        // A plan whose agents run child plans is checked with them, as deep as they go; and what `run`
        // would make of a `.parallel-plan-state.json` beside the plan, of its command templates, and of
        // prompts a runner cannot take in one argument (E2BIG).
        problems = sortDiagnostics([
          ...checkPlan(plan),
          ...(await checkPlanTree(plan, file, io.cwd)),
          // Whether to take a side-file's progress is the run's choice (--import-state, --ignore-state-file): a warning here.
          ...readSideState(plan, resolve(io.cwd, file)).diagnostics.map((d) => (d.rule === 'state-json-unconfirmed' ? {...d, severity: 'warning' as const} : d)),
          ...checkTemplates(plan),
          ...hosts.diagnostics,
          ...checkAccounts(plan, hosts, (agent) => resolveRunner(plan, agent, undefined, runnerMap), {
            value: plan.settings.concurrency ?? defaultConcurrency,
            from: plan.settings.concurrency === undefined ? 'default' : 'front matter'
          }),
          ...readNotify(plan).diagnostics,
          // A row a dead run left with a job on a host no longer declared: `run` refuses it (setup-hosts.ts).
          ...undeclaredJobHosts(plan, hosts.hosts),
          ...checkPromptSizes(plan, {runnerOf: (agent) => resolveRunner(plan, agent, undefined, runnerMap), promptOf: (runner, agent) => agentPrompt(runner, {plan, agent}).prompt})
        ])
        agents = plan.agents.length
      } catch (error) {
        if (!(error instanceof PlanError)) throw error
        for (const d of error.diagnostics) io.stderr(formatDiagnostic(d) + '\n')
        done(exitCodes.invalid)
        return
      }
      for (const d of problems) io.stdout(formatDiagnostic(d) + '\n')
      const errors = problems.filter((d) => d.severity === 'error').length
      io.stdout(summary(file, agents, problems) + '\n')
      done(errors > 0 ? exitCodes.invalid : exitCodes.ok)
    })
}

/** `plans/demo.md: 6 agents, valid` or `2 errors, 1 warning, 3 infos`. */
function summary(file: string, agents: number, problems: Diagnostic[]): string {
  const count = (severity: Diagnostic['severity'], word: string): string | undefined => {
    const n = problems.filter((d) => d.severity === severity).length
    return n === 0 ? undefined : plural(n, word)
  }
  const parts = [count('error', 'error'), count('warning', 'warning'), count('info', 'info')].filter(Boolean)
  const verdict = problems.some((d) => d.severity === 'error') ? 'invalid' : 'valid'
  return `${file}: ${plural(agents, 'agent')}, ${verdict}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`
}
