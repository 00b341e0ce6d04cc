import {defaultMaxAttempts} from '../plan/defaults.js'
import {reviewGate} from '../plan/review-gate.js'
import type {GitGuard} from '../git/git-guard.js'
import type {LocalJobsConfig} from '../executor/exec-config.js'
import type {LocalJobs} from '../hosts/local-jobs.js'
import {driveExecutor} from '../executor/drive-executor.js'
import {resetMargin} from './reset-margin.js'
import type {ExecState} from '../executor/exec-state.js'
import type {JournalKeeper} from '../executor/journal-keeper.js'
import {agentOptions} from '../runners/agent-options.js'
import {defaultAgentTimeoutMs} from '../runners/default-agent-timeout.js'
import {logFiles} from '../layout/log-file.js'
import {dagSection, tracksGraph} from '../report/dag-section.js'
import {childArgs} from './child-args.js'
import {runBudget} from './run-budget.js'
import {readHosts} from '../hosts/read-hosts.js'
import {accountCap} from '../hosts/account-cap.js'
import type {RunSetup, StartedRun} from './run-setup.js'

/** The executor (src/executor/) over the run: its config from the options and the plan's settings, and the run's edges. */
export async function driveRun(
  setup: RunSetup,
  run: StartedRun & {git: GitGuard | undefined; local: {jobs: LocalJobs; config: LocalJobsConfig}; keeper: JournalKeeper}
): Promise<ExecState> {
  const {options, plan, store, file, cwd, emit, hosts} = setup
  const {state, runnerFor, git, local} = run
  const settings = plan.settings
  const maxAttempts = Math.max(1, options.maxAttempts ?? settings.maxAttempts ?? defaultMaxAttempts)
  const graphTracked = tracksGraph(plan)
  const budget = runBudget(options, settings)
  let graphStatuses = ''
  // Hosts' own `accounts:` win over the front matter's (docs/limits.md, "Accounts").
  const specs = readHosts(plan, options.host).hosts
  const capOf = (id: string, host: string | undefined) => accountCap(settings, specs.get(host ?? 'local'), runnerFor(id))?.cap
  // No cap anywhere (a plan of shell agents): the scheduler keeps its short path, which looks at the free slots' worth of agents.
  const places = [undefined, ...specs.keys()]
  const capped = plan.agents.some((agent) => places.some((host) => capOf(agent.id, host) !== undefined))
  return driveExecutor({
    state,
    config: {
      concurrency: run.concurrency,
      maxAttempts,
      failFast: options.failFast ?? false,
      canResume: (id) => runnerFor(id).canResume,
      newAgentId: (id) => runnerFor(id).newAgentId?.(),
      childPlan: (id) => runnerFor(id).name === 'plan',
      git: git !== undefined,
      logFile: logFiles(file),
      rateLimitPauseMs: options.rateLimitPauseMs ?? 60_000,
      maxPauseMs: options.maxPauseMs ?? settings.maxPause,
      // A usage limit is its account's: the runner on the host, with the credentials it uses there.
      account: (id, host) => `${runnerFor(id).name} on ${host ?? 'local'}`,
      ...(capped ? {accountCap: capOf} : {}),
      waitForReset: options.waitForReset ?? settings.waitForReset ?? false,
      resetMarginMs: resetMargin(),
      ...(budget ? {budget} : {}),
      ...(hosts.config ? {hosts: hosts.config} : {}),
      localJobs: local.config,
      review: (agent) => reviewGate(agent, settings),
      unplaceable: hosts.unplaceable
    },
    store,
    plan: run.current,
    runnerFor,
    optionsFor: (current, agent) => agentOptions(options.runnerOptions, current, agent),
    git,
    file,
    cwd,
    // No run waits forever on an agent that hangs (codex with no network retries without end).
    timeoutMs: options.agentTimeoutMs ?? settings.agentTimeout ?? defaultAgentTimeoutMs,
    pollMs: options.pollMs ?? 250,
    onWritten: async () => {
      // `mdplan graph --write` was run once: keep its Mermaid picture current whenever a status changes.
      if (!graphTracked) return
      const statuses = [...state.table.rows.values()].map((row) => row.status).join()
      if (statuses === graphStatuses) return
      graphStatuses = statuses
      await store.editSection('DAG Visualization', dagSection)
    },
    lock: setup.lock,
    emit,
    journal: run.keeper,
    signal: options.signal,
    // Tests turn the checks on for every run they start (vitest.config.ts sets the variable).
    checkInvariants: options.checkInvariants ?? process.env.MDPLAN_CHECK_INVARIANTS === '1',
    childArgs: childArgs(options, cwd),
    ...(hosts.runtime ? {hosts: hosts.runtime} : {}),
    ...(setup.traceEnv ? {traceEnv: setup.traceEnv} : {}),
    local: local.jobs
  })
}
