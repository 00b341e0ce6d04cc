import {resolve} from 'node:path'
import {Option} from 'commander'
import type {RegisterCommand} from '../command-result.js'
import type {Io} from '../io.js'
import {exitCodes} from '../../exit-codes.js'
import {runPlan} from '../../run/run-plan.js'
import {defaultConcurrency, defaultMaxAttempts} from '../../plan/defaults.js'
import {dryRun} from '../../report/dry-run.js'
import {createReporter, type Reporter} from '../../report/create-reporter.js'
import {colorEnabled} from '../../report/color-enabled.js'
import {reporterMode} from '../../report/reporter-mode.js'
import type {Plan} from '../../plan/types.js'
import {reportFailure} from '../report-failure.js'
import {syncIssueQueue} from '../../import/sync-issue-queue.js'
import type {RunEvent} from '../../events.js'
import {readRunFlags, type ReadRunFlags, type RunFlags} from '../run-flags.js'
import {stopOnSignals} from '../stop-on-signals.js'
import {serveRun} from '../serve-run.js'

export const registerRun: RegisterCommand = (program, io, done) => {
  program
    .command('run')
    .description('Run a plan: launch each agent as soon as its dependencies are done, recording every event in the plan')
    .argument('<plan>', 'the plan file (Markdown)')
    .option('-c, --concurrency <n>', `agents running at once (front matter \`concurrency\`; default ${defaultConcurrency})`)
    .option('-r, --runner <runner>', 'claude, codex, gemini, opencode, shell, or a command template; overrides the plan')
    .option('--max-attempts <n>', `attempts per agent before it stays failed (default ${defaultMaxAttempts})`)
    .option('--agent-timeout <duration>', 'kill an agent (its whole process tree) after this long, e.g. 30m')
    .option('--max-pause <duration>', 'the most one agent may keep the run paused in total (rate limits, network trouble) before its attempt fails (default 30m)')
    .option('--wait-for-reset', 'when only a usage limit\'s reset stands before the next launch, wait for it (front matter `wait_for_reset`); else the run ends with exit 4 and says when to run again')
    .option('--budget <budget>', 'what the agents may spend in all, instead of the front matter\'s `budget` for this run: tokens=20M,usd=50 (either or both; 20M alone is tokens)')
    .option('--fail-fast', 'stop launching after the first failure')
    .option('--strict-scope', 'fail an agent that changes a file another agent owns (git repositories)')
    .option('--dry-run', 'print what would launch: waves, order, runners, first prompt lines, estimated makespan; change nothing')
    .option('--prompts', 'with --dry-run: also print every agent\'s full prompt as it would be sent')
    .option('--import-state', 'take the progress of a .parallel-plan-state.json beside the plan into a table that has none')
    .option('--ignore-state-file', 'run from the table as it is, whatever a .parallel-plan-state.json beside the plan says')
    .option('--cwd <dir>', 'where agents run (default: the current folder)')
    .option('--host <name>', 'run agents on this host or pool from the front matter `hosts:` (an agent\'s own `host` field wins)')
    .option('--json', 'print newline-delimited JSON events on stdout')
    .option('--serve [port]', 'serve a live page of this run on 127.0.0.1 (any free port unless given) and print its URL (docs/serve.md)')
    .option('-q, --quiet', 'print only the final scorecard')
    .option('--no-color', 'no colours (also: NO_COLOR)')
    .option('--model <model>', 'model for every agent (beats front matter and agent fields)')
    .addOption(new Option('--permission-mode <mode>', 'claude permission mode (default acceptEdits)'))
    .option('--allowed-tools <tools...>', 'claude --allowedTools')
    .option('--max-turns <n>', 'claude --max-turns')
    .option('--max-budget-usd <usd>', 'claude --max-budget-usd')
    .addHelpText(
      'after',
      `
Exit codes: 0 all completed and verification passed; 1 something failed, waits
for an answer, or is blocked; 2 invalid plan or arguments; 3 another run holds
the lock; 4 usage limits: nothing more can launch before an account's limit
resets (run again after the time it says, or use --wait-for-reset); 5 budget:
the agents' spend reached the budget, nothing more launched (raise it, run
again); 130 interrupted: Ctrl-C, SIGTERM or SIGHUP (run again to resume).`
    )
    .action(async (plan: string, flags: RunFlags) => {
      done(await run(plan, flags, io))
    })
}

/** `mdplan run PLAN`: its flags read, then a dry run or the run itself. Resolves to the exit code. */
async function run(plan: string, flags: RunFlags, io: Io): Promise<number> {
  const read = readRunFlags(flags, io)
  if (typeof read === 'number') return read
  const {numbers, sideState, cwd} = read
  // The plan's path is relative to where mdplan was called, whatever `--cwd` says about the agents.
  const file = resolve(io.cwd, plan)

  if (flags.dryRun) {
    try {
      io.stdout(await dryRun({file, name: plan, cwd, concurrency: numbers.concurrency, runner: flags.runner, prompts: flags.prompts, sideState, host: flags.host}))
      return exitCodes.ok
    } catch (error) {
      return reportFailure(error, io)
    }
  }
  return runLive(file, flags, read, io)
}

/** The run itself, reported as it goes (live view, plain lines or JSON), stopped by Ctrl-C. */
async function runLive(file: string, flags: RunFlags, read: ReadRunFlags, io: Io): Promise<number> {
  const {numbers} = read
  const color = flags.color !== false && colorEnabled(io.env, io.isTTY)
  // The reporter starts once the plan is read, so the live view knows every agent and its dependencies.
  let reporter: Reporter | undefined
  const startReporter = (plan?: Plan): Reporter =>
    (reporter ??= createReporter({
      mode: reporterMode({json: flags.json, quiet: flags.quiet, isTTY: io.isTTY, env: io.env}),
      write: io.stdout,
      color,
      plan,
      columns: () => process.stdout.columns,
      rows: () => process.stdout.rows
    }))
  // A plan imported from an issue queue keeps the queue in step as agents complete.
  let syncQueue: (event: RunEvent) => void = () => {}
  const controller = new AbortController()
  const stopListening = stopOnSignals(io, controller)
  const stopServing = flags.serve ? await serveRun(file, typeof flags.serve === 'string' ? flags.serve : undefined, io) : undefined
  try {
    const result = await runPlan({
      file,
      cwd: read.cwd,
      concurrency: numbers.concurrency,
      runner: flags.runner,
      maxAttempts: numbers['max-attempts'],
      agentTimeoutMs: read.agentTimeoutMs,
      maxPauseMs: read.maxPauseMs,
      ...(flags.waitForReset ? {waitForReset: true} : {}),
      ...(read.budget ? {budget: read.budget} : {}),
      failFast: flags.failFast,
      strictScope: flags.strictScope,
      host: flags.host,
      sideState: read.sideState,
      signal: controller.signal,
      runnerOptions: {
        model: flags.model,
        permissionMode: flags.permissionMode,
        allowedTools: flags.allowedTools,
        maxTurns: numbers['max-turns'],
        maxBudgetUsd: numbers['max-budget-usd']
      },
      onPlan: (plan) => {
        startReporter(plan)
        syncQueue = syncIssueQueue(plan, {warn: (message) => io.stderr(`mdplan: ${message}\n`)})
      },
      onEvent: (event) => {
        startReporter().event(event)
        syncQueue(event)
      }
    })
    return result.exitCode
  } catch (error) {
    return reportFailure(error, io)
  } finally {
    reporter?.close()
    stopListening()
    await stopServing?.()
  }
}
