import {resolve} from 'node:path'
import {Option} from 'commander'
import type {RegisterCommand} from '../command-result.js'
import {directoryProblem} from '../directory-problem.js'
import {exitCodes} from '../../exit-codes.js'
import {runPlan} from '../../run/run-plan.js'
import {defaultConcurrency, defaultMaxAttempts} from '../../plan/defaults.js'
import {dryRun} from '../../report/dry-run.js'
import {parseDuration} from '../../util/parse-duration.js'
import {createReporter, type Reporter} from '../../report/create-reporter.js'
import {colorEnabled} from '../../report/color-enabled.js'
import {reporterMode} from '../../report/reporter-mode.js'
import type {Plan} from '../../plan/types.js'
import {reportFailure} from '../report-failure.js'
import {syncIssueQueue} from '../../import/sync-issue-queue.js'
import type {RunEvent} from '../../events.js'

interface RunFlags {
  concurrency?: string
  runner?: string
  maxAttempts?: string
  agentTimeout?: string
  maxPause?: string
  failFast?: boolean
  strictScope?: boolean
  dryRun?: boolean
  prompts?: boolean
  importState?: boolean
  ignoreStateFile?: boolean
  cwd?: string
  json?: boolean
  quiet?: boolean
  color?: boolean
  model?: string
  permissionMode?: string
  allowedTools?: string[]
  maxTurns?: string
  maxBudgetUsd?: string
  host?: string
}

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
    .option('--fail-fast', 'stop launching after the first failure')
    .option('--strict-scope', 'fail an agent that changes a file another agent owns (git repositories)')
    .option('--dry-run', 'print what would launch: waves, order, runners, first prompt lines, estimated makespan; change nothing')
    .option('--prompts', 'with --dry-run: also print every agent\'s full prompt as it would be sent')
    .option('--import-state', 'take the progress of a .parallel-plan-state.json beside the plan into a table that has none')
    .option('--ignore-state-file', 'run from the table as it is, whatever a .parallel-plan-state.json beside the plan says')
    .option('--cwd <dir>', 'where agents run (default: the current folder)')
    .option('--host <name>', 'run agents on this host or pool from the front matter `hosts:` (an agent\'s own `host` field wins)')
    .option('--json', 'print newline-delimited JSON events on stdout')
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
the lock; 130 interrupted: Ctrl-C, SIGTERM or SIGHUP (run again to resume).`
    )
    .action(async (plan: string, flags: RunFlags) => {
      done(await run(plan, flags))
    })

  async function run(plan: string, flags: RunFlags): Promise<number> {
    const numbers: Record<string, number | undefined> = {}
    for (const [name, value] of [
      ['concurrency', flags.concurrency],
      ['max-attempts', flags.maxAttempts],
      ['max-turns', flags.maxTurns],
      ['max-budget-usd', flags.maxBudgetUsd]
    ] as const) {
      if (value === undefined) continue
      const number = Number(value)
      if (!Number.isFinite(number) || number <= 0) {
        io.stderr(`mdplan run: --${name} must be a positive number, got ${JSON.stringify(value)}\n`)
        return exitCodes.invalid
      }
      numbers[name] = number
    }
    let agentTimeoutMs: number | undefined
    if (flags.agentTimeout !== undefined) {
      agentTimeoutMs = parseDuration(flags.agentTimeout)
      if (agentTimeoutMs === undefined || agentTimeoutMs <= 0) {
        io.stderr(`mdplan run: --agent-timeout must be a duration such as 90s, 30m or 1h30m, got ${JSON.stringify(flags.agentTimeout)}\n`)
        return exitCodes.invalid
      }
    }
    let maxPauseMs: number | undefined
    if (flags.maxPause !== undefined) {
      maxPauseMs = parseDuration(flags.maxPause)
      if (maxPauseMs === undefined || maxPauseMs <= 0) {
        io.stderr(`mdplan run: --max-pause must be a duration such as 90s, 30m or 1h30m, got ${JSON.stringify(flags.maxPause)}\n`)
        return exitCodes.invalid
      }
    }
    if (flags.importState && flags.ignoreStateFile) {
      io.stderr('mdplan run: choose one of --import-state and --ignore-state-file\n')
      return exitCodes.invalid
    }
    if (flags.prompts && !flags.dryRun) {
      io.stderr('mdplan run: --prompts goes with --dry-run (mdplan run --dry-run --prompts PLAN)\n')
      return exitCodes.invalid
    }
    const sideState = flags.importState ? 'import' : flags.ignoreStateFile ? 'ignore' : undefined
    const cwd = resolve(io.cwd, flags.cwd ?? '.')
    const cwdProblem = directoryProblem(cwd)
    if (cwdProblem !== undefined) {
      io.stderr(`mdplan run: --cwd ${flags.cwd ?? cwd} ${cwdProblem}; nothing was run and the plan was not changed. Create it or choose another folder.\n`)
      return exitCodes.invalid
    }
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
    let interrupts = 0
    const onSignal = (signal: NodeJS.Signals): void => {
      // A closed terminal's hangup can come twice (the kernel's, then the shell's to its jobs): one request to stop.
      if (signal === 'SIGHUP' && interrupts > 0) return
      interrupts++
      if (interrupts > 1) {
        // A second Ctrl-C: kill at once (spawnAgent's exit hook kills the agents' process groups).
        io.stderr('\nmdplan: killed; rows stay in_progress and resume on the next run\n')
        process.exit(exitCodes.interrupted)
      }
      io.stderr(`\nmdplan: ${signal}: stopping; running agents are ended and resume on the next run (Ctrl-C again to kill at once)\n`)
      controller.abort()
    }
    // SIGHUP: the terminal closed or the ssh session dropped. Left to its default it ended mdplan alone and
    // its agents (in their own process groups) ran on, unwatched: it is stopped as Ctrl-C stops it.
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const
    for (const signal of signals) process.on(signal, onSignal)
    try {
      const result = await runPlan({
        file,
        cwd,
        concurrency: numbers.concurrency,
        runner: flags.runner,
        maxAttempts: numbers['max-attempts'],
        agentTimeoutMs,
        maxPauseMs,
        failFast: flags.failFast,
        strictScope: flags.strictScope,
        host: flags.host,
        sideState,
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
      for (const signal of signals) process.off(signal, onSignal)
    }
  }
}
