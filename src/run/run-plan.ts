import {resolve} from 'node:path'
import type {RunEvent, Scorecard} from '../events.js'
import type {Agent} from '../plan/types.js'
import {validatePlan} from '../plan/validate-plan.js'
import {longestRemainingPath} from '../plan/longest-remaining-path.js'
import {PlanError} from '../plan/plan-error.js'
import {checkPlanTree} from '../nested/check-plan-tree.js'
import {PlanStore} from '../store/plan-store.js'
import {readRows} from '../store/table-state.js'
import {acquirePlanLock} from '../store/plan-lock.js'
import {readJournal, removeJournal} from '../store/read-journal.js'
import {applyJournal} from '../store/apply-journal.js'
import {journalKeeper} from '../executor/journal-keeper.js'
import {sameRow} from '../executor/unrecorded-rows.js'
import {journalFile} from '../store/journal-file.js'
import {readSideState} from '../store/read-side-state.js'
import {checkTemplates} from '../runners/template-safety/check-templates.js'
import type {Runner} from '../runners/runner.js'
import {resolveRunner} from '../runners/resolve-runner.js'
import {runnerMap} from '../nested/runner-map.js'
import {preflightRunners} from '../runners/preflight-runners.js'
import {defaultAgentTimeoutMs} from '../runners/default-agent-timeout.js'
import {gitRoot} from '../git/git-root.js'
import {committedPlan} from '../git/committed-plan.js'
import {ProcessRegistry} from '../process/process-registry.js'
import {registryFile} from '../layout/registry-file.js'
import {endLeftovers} from '../process/end-leftovers.js'
import {trackProcessGroups} from '../process/spawn-agent.js'
import {warmSpawnHelper} from '../process/spawn-helper.js'
import {createGitGuard} from '../git/git-guard.js'
import {logFiles} from '../layout/log-file.js'
import {loggedAttempts} from '../layout/logged-attempts.js'
import {childArgs} from './child-args.js'
import {dagSection, tracksGraph} from '../report/dag-section.js'
import {restoreAnswers} from '../protocol/restore-answers.js'
import {createExecState} from '../executor/create-exec-state.js'
import {storeTable} from '../executor/exec-row.js'
import {driveExecutor} from '../executor/drive-executor.js'
import type {Emitted} from '../executor/exec-effect.js'
import {agentOptions} from '../runners/agent-options.js'
import {verify} from './verify.js'
import {finishRun} from './finish-run.js'
import {exitCodes} from '../exit-codes.js'
import {setupHosts} from './setup-hosts.js'
import {keptJobs} from '../hosts/kept-jobs.js'
import {localJobsOf} from './local-jobs-of.js'
import {openRunLog, runLogFile} from '../layout/run-log.js'
import {readRunLogs} from '../report/read-run-logs.js'
import {timedAgents} from '../report/agent-times.js'
import {plural} from '../util/plural.js'
import {defaultConcurrency, defaultMaxAttempts} from '../plan/defaults.js'
import type {RunPlanOptions} from './run-options.js'

export interface RunPlanResult {
  exitCode: number
  scorecard: Scorecard
}

/**
 * Run a plan: validate it, take its lock, then hand it to the executor (a
 * state machine: src/executor/) which launches each agent as soon as its
 * own dependencies are done and writes the table after every launch,
 * completion and failure; then build and integration tests.
 */
export async function runPlan(options: RunPlanOptions): Promise<RunPlanResult> {
  const file = resolve(options.file)
  const cwd = resolve(options.cwd ?? process.cwd())
  // Every event also goes to the run log beside the plan (when each agent started and ended: history, a report that times one run).
  const runLog = openRunLog(runLogFile(file))
  /** The run's last line (its scorecard) is said once the plan's lock is released: a run that said it is over holds nothing. */
  let last: RunEvent | undefined
  const emit = (event: Emitted): void => {
    const stamped = {time: new Date().toISOString(), ...event}
    runLog.write(stamped)
    if (stamped.type === 'run-finished') last = stamped
    else options.onEvent?.(stamped)
  }

  // The spawn helper boots while the plan parses (bin/start.js may have started it already): agents
  // are forked by it, not by this (soon large) process; and so is git, asked meanwhile where the
  // working tree is (which does not depend on the plan).
  warmSpawnHelper()
  const root = gitRoot(cwd)
  const store = await PlanStore.open(file, {history: true, committed: committedPlan(file)})
  const plan = store.plan
  const templates = checkTemplates(plan, options.runner)
  const problems = [
    ...plan.messages,
    ...validatePlan(plan),
    ...(await checkPlanTree(plan, file)),
    ...readSideState(plan, file, options.sideState).diagnostics,
    ...templates
  ].filter((d) => d.severity === 'error')
  if (problems.length > 0) throw new PlanError(problems)

  // Resolved once per definition of an agent: an agent edited or added mid-run is resolved anew.
  const resolved = new WeakMap<Agent, Runner>()
  const runnerOf = (agent: Agent): Runner => {
    let runner = resolved.get(agent)
    if (!runner) resolved.set(agent, (runner = resolveRunner(plan, agent, options.runner, runnerMap)))
    return runner
  }
  const runners = new Map(plan.agents.map((agent) => [agent.id, runnerOf(agent)]))
  // Installed, logged in or keyed, a permission mode the installed version accepts: before anything launches.
  // Only agents that may launch need their CLI: a completed plan runs (and reports) anywhere.
  const rows = store.state.rows
  const launchable = new Map([...runners].filter(([id]) => rows.get(id)?.status !== 'completed'))
  // Hosts first: a runner's CLI is checked where its agents run (on a host, by the host's own preflight).
  const hosts = await setupHosts({plan, file, cliHost: options.host, root, runners, launchable: new Set(launchable.keys()), strictScope: options.strictScope ?? false, rows: rows.values()})
  if (hosts.problems.length > 0) throw new PlanError(hosts.problems)
  const here = new Map([...launchable].filter(([id]) => hosts.runsHere(id)))
  const missing = await preflightRunners(plan, here, process.env, cwd, (agent) => agentOptions(options.runnerOptions, plan, agent), options.runner)
  if (missing.length > 0) {
    await hosts.runtime?.close()
    throw new PlanError(missing)
  }

  // A lost lock is told to the executor as soon as the lock's refresh or watch finds it.
  let onLockLost: ((error: Error) => void) | undefined
  let lostEarly: Error | undefined
  const lock = await acquirePlanLock(file, {onCompromised: (error) => (onLockLost ? onLockLost(error) : (lostEarly = error))}, store.target).catch(async (error: unknown) => {
    await hosts.runtime?.close()
    throw error
  })
  options.onPlan?.(plan)
  try {
    const settings = plan.settings
    const concurrency = Math.max(1, options.concurrency ?? settings.concurrency ?? defaultConcurrency)
    const maxAttempts = Math.max(1, options.maxAttempts ?? settings.maxAttempts ?? defaultMaxAttempts)
    // A plan whose progress lives in the JSON side-file some executors moved to: brought into the table,
    // once, while the table has no progress of its own (read the same way as validate and --dry-run).
    const side = readSideState(plan, file, options.sideState)
    const read = side.imported ? side.state : store.state
    // What an earlier run knew and could not write (a damaged table, a lost lock) comes first: completed stays completed.
    // A row the file already says (journaled, then written before the journal was cut) is applied once.
    const journaled = readJournal(file)
    const journal = journaled.filter((entry) => !read.rows.has(entry.agent) || !sameRow(read.rows.get(entry.agent)!, entry.row))
    if (journaled.length > 0 && journal.length === 0) removeJournal(file)
    // The rows are read once: read per agent, this test cost a million row reads at 1000 agents (most of a first launch).
    const recorded = plan.state ? readRows(plan) : undefined
    const table = applyJournal(read, journal, side.imported ? undefined : (agent) => recorded?.has(agent) === true)
    if (journal.length > 0) {
      emit({type: 'warning', message: `applied ${journal.length} ${journal.length === 1 ? 'row' : 'rows'} an earlier run could not record (${journal.map((entry) => `${entry.agent} ${entry.row.status}`).join(', ')}) from ${journalFile(file)}`})
    }
    // The file lacks rows (or the whole section), or the side-file's progress is new: the first write adds them.
    const dirty = side.imported !== undefined || journal.length > 0 || store.startsStale || !recorded || plan.agents.some((agent) => !recorded.has(agent.id))
    for (const d of side.diagnostics.filter((d) => d.severity === 'warning')) emit({type: 'warning', message: d.reason})
    if (side.imported) emit({type: 'warning', message: `imported ${side.imported} into the Execution State table`})
    // Nothing runs and something is left to do (a finished run with rows set back to `pending`, or one that
    // ended with failures): this run is timed on its own, from its first launch. A resumed run keeps its timing.
    const rowStatuses = plan.agents.map((agent) => table.rows.get(agent.id)?.status ?? 'pending')
    const newTiming = rowStatuses.every((status) => status !== 'in_progress' && status !== 'needs_input') && rowStatuses.some((status) => status !== 'completed')
    // A template the plan allows to run prompt text as code is said on every run, as validate says it.
    for (const d of templates.filter((d) => d.severity === 'warning')) emit({type: 'warning', message: `${d.reason} [${d.rule}]`})
    const current = await restoreAnswers({store, file, rows: table.rows, warn: (message) => emit({type: 'warning', message})})
    const state = createExecState({agents: plan.agents, priority: longestRemainingPath(plan), table, onDisk: store.state, rateLimitPauseMs: options.rateLimitPauseMs ?? 60_000, dirty, newTiming, attempts: loggedAttempts(file, cwd)})
    // The executor's agents are the current definitions (they change when a person edits the plan mid-run).
    const runnerFor = (id: string): Runner => runnerOf(state.byId.get(id)!)
    const resumed = state.order.some((id) => state.table.rows.get(id)?.status !== 'pending')
    // Agents a killed run left would work twice beside their relaunch: end them first (an older version's too).
    const agentIds = new Set([...state.table.rows.values()].map((row) => row.agentId).filter((id) => id !== '' && id !== '—'))
    const ended = await endLeftovers({file, target: store.target, cwd, root: (await root)?.root, agentIds})
    emit({type: 'run-started', plan: file, agents: state.order.length, concurrency, resumed})
    const runStart = Date.now()
    if (ended.length > 0) emit({type: 'warning', message: `ended ${plural(ended.length, 'agent process group')} a killed run left running (pid ${ended.join(', ')})`})
    for (const message of hosts.warnings) emit({type: 'warning', message})
    trackProcessGroups(new ProcessRegistry(registryFile(store.target)))
    try {
      const gitSetup = await createGitGuard({plan, planFile: file, cwd, strictScope: options.strictScope ?? false, root})
      const git = gitSetup.guard
      if (gitSetup.notice) emit({type: 'warning', message: gitSetup.notice})
      if (git) {
        const cleaned = await git.start((id) => state.table.rows.get(id)?.status === 'in_progress' && state.table.rows.get(id)?.agentId !== '')
        for (const message of cleaned) emit({type: 'warning', message})
      }

      const everythingDone = state.order.every((id) => state.table.rows.get(id)?.status === 'completed')
      if (!everythingDone && !options.signal?.aborted && plan.preVerification.length > 0) {
        const ok = await verify({phase: 'pre', commands: plan.preVerification, cwd, file, signal: options.signal, emit})
        if (!ok) {
          emit({type: 'warning', message: 'pre-execution verification failed: nothing launched'})
          return finishRun({plan, state, exitCode: options.signal?.aborted ? exitCodes.interrupted : exitCodes.failed, runStart, emit})
        }
      }

      // This plan's jobs that no row names any more (collected results, a lost attempt's leftovers): ended and removed.
      // This machine's jobs: the ones the rows name are looked at once (a dead run's agent may still run, or be done).
      const local = await localJobsOf(file, root, cwd, storeTable(state.table).rows.values(), hosts.runtime?.fence)
      const sweep = async (): Promise<void> => {
        // After a lost lock the plan may be another run's, and so may the jobs under its prefix: none is touched.
        if (state.lockLost !== undefined) return
        // A job is kept while the file still names it too: its outcome is not recorded until a write says so,
        // and a Kubernetes Job's pod log is the only copy of its result (a run that ends unable to write leaves
        // it to the next run, whose first write records the outcome).
        const keep = keptJobs([...storeTable(state.table).rows.values(), ...state.write.onDisk.rows.values()])
        await local.jobs.sweep(keep)
        // Every host that may hold a job of the plan (whether or not the plan uses it now); one that does not
        // answer keeps its leftovers in the plan's ledger for the next run or `mdplan clean`, and says so.
        for (const message of (await hosts.runtime?.sweep(keep, hosts.used)) ?? []) emit({type: 'warning', message})
      }
      await sweep()
      const keeper = journalKeeper({file, emit, seed: journal, table})
      const graphTracked = tracksGraph(plan)
      let graphStatuses = ''
      const final = await driveExecutor({
        state,
        config: {
          concurrency,
          maxAttempts,
          failFast: options.failFast ?? false,
          canResume: (id) => runnerFor(id).canResume,
          newAgentId: (id) => runnerFor(id).newAgentId?.(),
          childPlan: (id) => runnerFor(id).name === 'plan',
          git: git !== undefined,
          logFile: logFiles(file),
          rateLimitPauseMs: options.rateLimitPauseMs ?? 60_000,
          maxPauseMs: options.maxPauseMs ?? settings.maxPause,
          ...(hosts.config ? {hosts: hosts.config} : {}),
          localJobs: local.config,
          unplaceable: hosts.unplaceable
        },
        store,
        plan: current,
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
        lock: {
          check: () => lostEarly ?? lock.check(),
          onLost: (listener) => {
            onLockLost = listener
            if (lostEarly) listener(lostEarly)
          }
        },
        emit,
        journal: keeper,
        signal: options.signal,
        // Tests turn the checks on for every run they start (vitest.config.ts sets the variable).
        checkInvariants: options.checkInvariants ?? process.env.MDPLAN_CHECK_INVARIANTS === '1',
        childArgs: childArgs(options, cwd),
        ...(hosts.runtime ? {hosts: hosts.runtime} : {}),
        local: local.jobs
      })
      await sweep()
      // The agents whose work ended since `Started:`: a run after a finished one sums only its own parts.
      const timed = (): ReadonlySet<string> | undefined => timedAgents(readRunLogs(file, cwd), final.table.meta.started)
      const finished = await finishRun({plan, state: final, runStart, emit, store, git, verifyAfter: {cwd, file, signal: options.signal}, timed, journaled: keeper.has})
      // The run's last write may have recorded what the journal kept.
      keeper.afterStep(final)
      return finished
    } finally {
      trackProcessGroups(undefined)
    }
  } finally {
    store.close()
    try {
      await lock.release()
    } catch (error) {
      // A read-only folder keeps the lock directory: the next run takes it over (its owner is gone).
      emit({type: 'warning', message: `could not remove the lock ${lock.path}: ${error instanceof Error ? error.message : String(error)}; the next run takes it over`})
    }
    runLog.close()
    if (last) options.onEvent?.(last)
    // The hosts' connections close after that: the plan is free, and the run has said its last line.
    await hosts.runtime?.close()
  }
}
