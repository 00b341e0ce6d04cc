import {existsSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import type {RunEvent, Scorecard} from './events.js'
import type {Agent, Plan, Status} from './plan/types.js'
import {attemptsInNotes, getNote, setNote} from './plan/notes.js'
import {validatePlan} from './plan/validate-plan.js'
import {longestRemainingPath} from './plan/longest-remaining-path.js'
import {PlanError} from './plan/plan-error.js'
import {assessAgents, type Assessment} from './schedule/assess-agents.js'
import {nextLaunches} from './schedule/next-launches.js'
import {PlanStore, type WriteResult} from './store/plan-store.js'
import {emptyRow, metaKeys, type RowState, type TableState} from './store/table-state.js'
import {cells} from './store/merge-state.js'
import {acquireRunLock} from './store/lock.js'
import {importStateJson} from './store/import-state-json.js'
import type {Runner, RunnerOptions, RunResult} from './runners/runner.js'
import {resolveRunner} from './runners/resolve-runner.js'
import {checkRunners} from './runners/check-runners.js'
import {interpretResult, type Outcome} from './protocol/interpret-result.js'
import {readAnswers, type OpenQuestion} from './protocol/read-answers.js'
import {upsertOpenQuestion} from './protocol/upsert-open-question.js'
import {computeScorecard} from './report/compute-scorecard.js'
import {dagSection, tracksGraph} from './report/dag-section.js'
import {formatDuration} from './util/format-duration.js'
import {logFile} from './run/log-file.js'
import {planSlug} from './git/worktree-names.js'
import {gitRoot, type GitRoot} from './git/git-root.js'
import {ProcessRegistry, endRecordedGroups} from './runners/process-registry.js'
import {trackProcessGroups} from './runners/spawn-agent.js'
import {runCommands} from './run/run-commands.js'
import {agentPrompt, withEnv} from './run/agent-prompt.js'
import {createGitGuard, type NotePatch} from './run/git-guard.js'
import {exitCodes} from './cli/exit-codes.js'

export interface RunPlanOptions {
  file: string
  /** Where agents and verification commands run (default: the process's cwd). */
  cwd?: string
  concurrency?: number
  /** Overrides every agent's runner. */
  runner?: string
  maxAttempts?: number
  agentTimeoutMs?: number
  failFast?: boolean
  /** A change to a file another agent owns fails the agent (in a git repository). */
  strictScope?: boolean
  runnerOptions?: RunnerOptions
  /** Aborting stops launching and ends running agents; their rows stay `in_progress`. */
  signal?: AbortSignal
  onEvent?: (event: RunEvent) => void
  /** Called once the plan is read and valid, before any event (live views show every agent from the start). */
  onPlan?: (plan: Plan) => void
  /** How long a rate or usage limit pauses launches (first pause; doubles, capped at 15 minutes). */
  rateLimitPauseMs?: number
  /** How often to look for a person's edits while nothing else happens. */
  pollMs?: number
}

export interface RunPlanResult {
  exitCode: number
  scorecard: Scorecard
}

export const defaultConcurrency = 4
export const defaultMaxAttempts = 3

interface Running {
  agent: Agent
  attempt: number
  started: number
  controller: AbortController
  agentId?: string
}

/**
 * Run a plan: validate it, take its lock, launch each agent as soon as its own
 * dependencies are done, and write the state table after every launch,
 * completion and failure, so that running it again resumes where it stopped.
 */
export async function runPlan(options: RunPlanOptions): Promise<RunPlanResult> {
  const file = resolve(options.file)
  const cwd = resolve(options.cwd ?? process.cwd())
  const emit = (event: DistributiveOmit<RunEvent, 'time'>): void =>
    options.onEvent?.({time: new Date().toISOString(), ...event} as RunEvent)

  // Where the git working tree is does not depend on the plan: ask git while the plan parses.
  const root = gitRoot(cwd)
  const store = await PlanStore.open(file)
  const problems = [...store.plan.messages, ...validatePlan(store.plan)].filter((d) => d.severity === 'error')
  if (problems.length > 0) throw new PlanError(problems)

  const runners = new Map<string, Runner>()
  for (const agent of store.plan.agents) runners.set(agent.id, resolveRunner(store.plan, agent, options.runner))
  const missing = await checkRunners(store.plan, runners, process.env, cwd)
  if (missing.length > 0) throw new PlanError(missing)

  const lock = await acquireRunLock(file)
  options.onPlan?.(store.plan)
  try {
    return await execute(store, runners, {...options, file, cwd, root}, emit)
  } finally {
    store.close()
    try {
      await lock.release()
    } catch (error) {
      // A read-only folder keeps the lock directory: the next run takes it over (its owner is gone).
      emit({type: 'warning', message: `could not remove the lock ${lock.path}: ${messageOf(error)}; the next run takes it over`})
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

async function execute(
  store: PlanStore,
  runners: ReadonlyMap<string, Runner>,
  options: RunPlanOptions & {file: string; cwd: string; root: Promise<GitRoot | undefined>},
  emit: (event: DistributiveOmit<RunEvent, 'time'>) => void
): Promise<RunPlanResult> {
  const {file, cwd} = options
  // The plan as read at the start: agents, prompts and sections are fixed for the run. `store.plan`
  // re-parses the file after writes, so the loop only asks it for what a person may change meanwhile.
  const plan = store.plan
  const settings = plan.settings
  const concurrency = Math.max(1, options.concurrency ?? settings.concurrency ?? defaultConcurrency)
  const maxAttempts = Math.max(1, options.maxAttempts ?? settings.maxAttempts ?? defaultMaxAttempts)
  const timeoutMs = options.agentTimeoutMs ?? settings.agentTimeout
  const order = plan.agents.map((agent) => agent.id)
  const agentsById = new Map(plan.agents.map((agent) => [agent.id, agent]))
  const priority = longestRemainingPath(plan)

  let state: TableState = store.state
  // A plan whose progress lives in the JSON side-file some executors moved to: bring it into the table,
  // once, while the table has no progress of its own.
  const sideFile = join(dirname(file), '.parallel-plan-state.json')
  if (existsSync(sideFile) && [...state.rows.values()].every((r) => r.status === 'pending' && r.agentId === '')) {
    state = importStateJson(JSON.parse(readFileSync(sideFile, 'utf8')) as unknown, plan)
    emit({type: 'warning', message: `imported ${sideFile} into the Execution State table`})
  }
  const running = new Map<string, Running>()
  /** Attempts a person granted by setting a row back to `pending`. */
  const extraAttempts = new Map<string, number>()
  const discoveries: Array<{agent: string; text: string}> = []
  const runStart = Date.now()
  let peakConcurrency = 0
  let stopping = false
  let failFastTripped = false
  let pausedUntil = 0
  let pauseMs = options.rateLimitPauseMs ?? 60_000
  let storeError: Error | undefined
  let lastSeenMtime = 0
  // `mdplan graph --write` was run once: keep its Mermaid picture current whenever a status changes.
  const graphTracked = tracksGraph(plan)
  let graphStatuses = ''

  const row = (id: string): RowState => state.rows.get(id) ?? emptyRow()
  /** Rows changed since the last write began. */
  let dirty = false
  const setRow = (id: string, patch: Partial<RowState>): void => {
    state.rows.set(id, {...row(id), ...patch})
    dirty = true
  }
  const patchNotes = (notes: string, patch: NotePatch): string =>
    Object.entries(patch).reduce((cell, [key, value]) => setNote(cell, key, value), notes)
  const failuresOf = (id: string): number => {
    const attempts = attemptsInNotes(row(id).notes)
    return attempts.length === 0 ? 0 : Math.max(...attempts.map((a) => a.attempt))
  }
  const attemptLimit = (id: string): number => maxAttempts + (extraAttempts.get(id) ?? 0)

  // ---- persistence: one write at a time, later changes coalesce into one follow-up write
  let inflight: Promise<void> | undefined
  let queued: Promise<void> | undefined
  const persist = (): Promise<void> => {
    if (queued) return queued
    if (!inflight) return (inflight = writeNow().finally(() => (inflight = undefined)))
    queued = inflight.then(() => {
      queued = undefined
      return (inflight = writeNow().finally(() => (inflight = undefined)))
    })
    return queued
  }
  const writeNow = async (): Promise<void> => {
    dirty = false
    state.meta.lastUpdated = isoSeconds(new Date())
    try {
      const result = await store.write(state, {running: new Set(running.keys())})
      storeError = undefined
      adopt(result)
      emit({type: 'state-written', file, bytes: result.bytes, ms: result.ms})
      const statuses = order.map((id) => row(id).status).join()
      if (graphTracked && statuses !== graphStatuses) {
        graphStatuses = statuses
        await store.editSection('DAG Visualization', dagSection)
      }
    } catch (error) {
      // Disk full, read-only folder, a file that no longer parses: keep the last
      // good file, stop launching, and say why. Running agents may still finish.
      if (!storeError) emit({type: 'warning', message: `cannot write ${options.file}: ${messageOf(error)}; no new agents will launch`})
      storeError = error instanceof Error ? error : new Error(String(error))
    }
    lastSeenMtime = mtimeOf(file)
  }
  const adopt = (result: WriteResult): void => {
    adoptEdits(state, result)
    for (const edit of result.humanEdits) {
      emit({type: 'human-edit', agent: edit.agent, column: edit.column, value: edit.to})
      // A person setting a row back to pending asks for one more try, whatever the history says.
      if (edit.column.toLowerCase() === 'status' && edit.to.toLowerCase() === 'pending') {
        extraAttempts.set(edit.agent, Math.max(0, failuresOf(edit.agent) + 1 - maxAttempts))
      }
    }
    for (const conflict of result.conflicts) {
      emit({
        type: 'warning',
        message: `${conflict.agent}: ${conflict.column} was edited by hand while mdplan changed it; kept ${conflict.winner === 'person' ? 'the edit' : "mdplan's value"}`
      })
    }
  }

  // ---- the scheduling pass
  let scheduling = false
  let again = false
  let finished: (() => void) | undefined
  let done = new Promise<void>((resolve) => (finished = resolve))

  const view = () => {
    const statuses = new Map<string, Status>()
    for (const id of order) statuses.set(id, row(id).status)
    // Only a failed row's attempts decide anything (retry or give up): read no other row's notes.
    const attemptsUsed = new Map(order.filter((id) => row(id).status === 'failed').map((id) => [id, failuresOf(id)]))
    return {
      agents: plan.agents,
      status: statuses,
      running: new Set(running.keys()),
      attemptsUsed,
      attemptLimit,
      answered: new Set(answeredQuestions().keys()),
      filesCreated: filesCreated()
    }
  }
  const answeredQuestions = (): Map<string, OpenQuestion> => {
    const answered = new Map<string, OpenQuestion>()
    // Answers are written by people (or \`mdplan answer\`) meanwhile: read the file as it is now,
    // but only when an agent waits for one (a parse of a large plan is not free).
    if (!order.some((id) => row(id).status === 'needs_input')) return answered
    for (const entry of readAnswers(store.plan)) if (entry.answer) answered.set(entry.agent, entry)
    return answered
  }
  // Only soft dependencies read this: look on disk for their files alone, not every agent's, on each pass.
  const softTargets = plan.agents.filter((agent) => agent.creates.length > 0 && plan.agents.some((other) => other.softDependsOn.some((dep) => dep.id === agent.id)))
  const filesCreated = (): Set<string> => {
    const created = new Set<string>()
    for (const agent of softTargets) {
      if (row(agent.id).status === 'completed') continue
      if (agent.creates.every((path) => existsSync(resolve(cwd, path.path)))) created.add(agent.id)
    }
    return created
  }

  const schedule = async (): Promise<void> => {
    if (scheduling) {
      again = true
      return
    }
    scheduling = true
    try {
      do {
        again = false
        await pass()
      } while (again)
    } finally {
      scheduling = false
    }
  }

  const pass = async (): Promise<void> => {
    const assessments = assessAgents(view())
    noteBlocked(assessments)
    const canLaunch = !stopping && !storeError && !failFastTripped && Date.now() >= pausedUntil
    const launches = canLaunch
      ? nextLaunches({order, assessments, runningCount: running.size, concurrency, priority})
      : []
    if (launches.length === 0) {
      const failedBefore = storeError !== undefined
      if (dirty) await persist()
      // The plan could not be written before and now could: launching goes on.
      if (failedBefore && !storeError && !stopping) {
        again = true
        return
      }
      // Paused for a rate limit with nothing running: the pause timer schedules again.
      const paused = !stopping && Date.now() < pausedUntil
      if (running.size === 0 && !paused) finished?.()
      return
    }
    const launchesNow = launches.map((id) => prepareLaunch(id, assessments.get(id)!))
    // One write records these launches (with their IDs when the runner draws them
    // up front) and whatever finished since: on disk before any of them can finish.
    await persist()
    if (storeError) {
      // Not on disk, so not launched: the next run would not know they ran.
      for (const launch of launchesNow) launch.undo()
      again = false
      if (running.size === 0) finished?.()
      return
    }
    for (const launch of launchesNow) void launch.start()
  }

  const noteBlocked = (assessments: ReadonlyMap<string, Assessment>): void => {
    for (const id of order) {
      const assessment = assessments.get(id)!
      const current = row(id)
      if (current.status !== 'pending') continue
      const value =
        assessment.kind === 'blocked'
          ? assessment.by.map((b) => (b.why === 'blocked' ? b.id : `${b.id} (${b.why})`)).join(', ')
          : undefined
      const before = getNote(current.notes, 'blocked by')
      if (before === value) continue
      setRow(id, {notes: setNote(current.notes, 'blocked by', value)})
      if (value) emit({type: 'blocked', agent: id, by: assessment.kind === 'blocked' ? assessment.by.map((b) => b.id) : []})
    }
  }

  /** Mark an agent launched in the table (not yet on disk); `start` spawns it, `undo` takes the mark back. */
  const prepareLaunch = (id: string, assessment: Assessment): {start: () => Promise<void>; undo: () => void} => {
    const agent = agentsById.get(id)!
    const runner = runners.get(id)!
    const previous = row(id)
    const resumeKind = assessment.kind === 'ready' ? assessment.resume : 'fresh'
    const failures = attemptsInNotes(previous.notes)
    const attempt = failuresOf(id) + 1
    const answered = resumeKind === 'answer' ? answeredQuestions().get(id) : undefined
    // A row left in_progress by a run that died is resumed through the runner when it can.
    const orphaned = previous.status === 'in_progress' && previous.agentId !== ''
    const resumeSession =
      runner.canResume && previous.agentId !== '' && (orphaned || answered !== undefined) ? previous.agentId : undefined

    let notes = setNote(previous.notes, 'blocked by', undefined)
    notes = setNote(notes, 'paused', undefined)
    if (orphaned && !resumeSession) notes = setNote(notes, 'relaunched', `run ended while ${previous.agentId} ran`)
    if (answered) notes = setNote(notes, 'question', undefined)
    const controller = new AbortController()
    const presetId = resumeSession === undefined ? runner.newAgentId?.() : undefined
    const entry: Running = {agent, attempt, started: Date.now(), controller, agentId: resumeSession ?? presetId}
    running.set(id, entry)
    peakConcurrency = Math.max(peakConcurrency, running.size)
    if (!state.meta.started || state.meta.started === '—') state.meta.started = isoSeconds(new Date())
    setRow(id, {status: 'in_progress', agentId: entry.agentId ?? '', duration: '', notes})

    const lastFailure = failures.at(-1)
    const {prompt, env} = agentPrompt(runner, {
      plan: plan,
      agent,
      retry:
        resumeKind === 'retry' && lastFailure
          ? {attempt, previousFailure: lastFailure.reason, checkpoint: getNote(previous.notes, 'checkpoint')}
          : undefined,
      discoveries: discoveries.filter((d) => dependsOnTransitively(agentsById, id, d.agent)),
      answer: answered
        ? {question: answered.question, resumeState: answered.resumeState, answer: answered.answer ?? '', options: answered.options}
        : undefined,
      resuming: resumeSession !== undefined,
      resumeInterrupted: orphaned && resumeSession !== undefined
    })
    const log = logFile(cwd, file, id, attempt)

    const undo = (): void => {
      running.delete(id)
      state.rows.set(id, previous)
    }
    const start = async (): Promise<void> => {
      emit({type: 'launched', agent: id, agentId: entry.agentId, attempt, resumed: resumeSession !== undefined, log})
      let agentCwd = cwd
      if (git) {
        const launch = await git.beforeLaunch(agent, row(id).notes)
        for (const message of launch.warnings) emit({type: 'warning', message})
        if (launch.error) return settle(id, entry, {ok: false, finalText: '', reason: launch.error})
        agentCwd = launch.cwd
        if (Object.keys(launch.notes).length > 0) {
          setRow(id, {notes: patchNotes(row(id).notes, launch.notes)})
          void persist()
        }
      }
      let result: RunResult
      try {
        result = await runner.run({
          agent,
          prompt,
          cwd: agentCwd,
          planFile: file,
          attempt,
          logFile: log,
          options: withEnv(agentOptions(options.runnerOptions, plan, agent), env),
          signal: controller.signal,
          timeoutMs,
          resume: resumeSession ? {sessionId: resumeSession} : undefined,
          agentId: presetId,
          onAgentId: async (agentId) => {
            entry.agentId = agentId
            if (row(id).agentId === agentId) return
            setRow(id, {agentId})
            emit({type: 'agent-id', agent: id, agentId})
            await persist()
          }
        })
      } catch (error) {
        result = {ok: false, finalText: '', reason: `runner ${runner.name} failed: ${messageOf(error)}`}
      }
      await settle(id, entry, result)
    }
    return {start, undo}
  }

  /** An attempt ended: turn its result into the row's new state, persist, and schedule more. */
  const settle = async (id: string, entry: Running, result: RunResult): Promise<void> => {
    running.delete(id)
    const durationMs = Date.now() - entry.started
    const agentId = result.agentId ?? entry.agentId
    if (result.interrupted && stopping) {
      // Interrupted on purpose: the row stays in_progress with its ID, so the next run resumes it.
      git?.abandon(entry.agent)
      await schedule()
      return
    }
    const outcome: Outcome = interpretResult(result)
    let gitNotes: NotePatch = {}
    if (git && !outcome.rateLimited && !outcome.unknownSession) {
      const checked = await git.afterCompletion(entry.agent, outcome.kind === 'completed')
      for (const message of checked.warnings) emit({type: 'warning', message})
      gitNotes = checked.notes
      if (checked.fail && outcome.kind === 'completed') {
        outcome.kind = 'failed'
        outcome.reason = checked.fail
      }
    } else {
      git?.abandon(entry.agent)
    }
    const current = row(id)
    let notes = patchNotes(current.notes, gitNotes)
    if (result.costUsd !== undefined) {
      // Notes keep the agent's total; a resumed claude session reports its own running total.
      const before = Number(getNote(notes, 'cost')?.replace(/^\$/, '') ?? 0) || 0
      const spent = result.cumulativeCost ? Math.max(0, result.costUsd - before) : result.costUsd
      notes = setNote(notes, 'cost', `$${(before + spent).toFixed(4)}`)
    }
    if (outcome.checkpoint) notes = setNote(notes, 'checkpoint', outcome.checkpoint)
    for (const text of outcome.discoveries) discoveries.push({agent: id, text})

    if (outcome.rateLimited) {
      // A limit is not the agent's fault: wait, then try again without using an attempt.
      pausedUntil = Date.now() + pauseMs
      const reason = `rate or usage limit (${outcome.reason ?? 'limit reached'}); retrying at ${new Date(pausedUntil).toISOString().slice(11, 19)}Z`
      emit({type: 'paused', reason, untilMs: pausedUntil})
      setTimeout(() => void schedule(), pauseMs).unref()
      pauseMs = Math.min(pauseMs * 2, 15 * 60_000)
      setRow(id, {status: 'pending', agentId: agentId ?? current.agentId, notes: setNote(notes, 'paused', reason)})
    } else if (outcome.unknownSession) {
      setRow(id, {
        status: 'pending',
        agentId: '',
        notes: setNote(notes, 'relaunched', `session ${agentId ?? ''} could not be resumed`)
      })
    } else if (outcome.kind === 'completed') {
      for (const key of ['blocked by', 'question', 'relaunched', 'paused']) notes = setNote(notes, key, undefined)
      if (outcome.note) notes = setNote(notes, 'result', outcome.note)
      setRow(id, {status: 'completed', agentId: agentId ?? current.agentId, duration: formatDuration(durationMs), notes})
      emit({type: 'completed', agent: id, agentId, attempt: entry.attempt, durationMs, note: outcome.note, costUsd: result.costUsd})
    } else if (outcome.kind === 'question' && outcome.question) {
      const question = outcome.question
      setRow(id, {
        status: 'needs_input',
        agentId: agentId ?? current.agentId,
        duration: formatDuration(durationMs),
        notes: setNote(notes, 'question', oneLine(question.question))
      })
      emit({type: 'question', agent: id, agentId, question: question.question})
      try {
        await store.editSection('Open Questions', (section) =>
          upsertOpenQuestion(section, {agent: id, ...question}, plan.eol, plan)
        )
      } catch (error) {
        emit({type: 'warning', message: `could not write the question of ${id}: ${messageOf(error)}`})
      }
    } else {
      const reason = oneLine(outcome.reason ?? result.reason ?? 'failed')
      notes = setNote(notes, `attempt ${entry.attempt}`, reason)
      setRow(id, {status: 'failed', agentId: agentId ?? current.agentId, duration: formatDuration(durationMs), notes})
      const willRetry = entry.attempt < attemptLimit(id) && !options.failFast
      emit({type: 'failed', agent: id, agentId, attempt: entry.attempt, durationMs, reason, willRetry})
      if (options.failFast) failFastTripped = true
    }
    // The next pass writes this outcome together with the launches it unblocks.
    await schedule()
  }

  // ---- start
  const resumed = order.some((id) => row(id).status !== 'pending')
  emit({type: 'run-started', plan: file, agents: order.length, concurrency, resumed})

  const abort = (): void => {
    if (stopping) return
    stopping = true
    for (const entry of running.values()) entry.controller.abort()
    if (running.size === 0) finished?.()
  }
  if (options.signal?.aborted) abort()
  options.signal?.addEventListener('abort', abort, {once: true})

  // Agents a killed run left running would work twice beside their relaunch: end them first.
  const registryFile = join(cwd, '.mdplan', 'run', `${planSlug(file)}.agents`)
  const ended = await endRecordedGroups(registryFile)
  if (ended.length > 0) {
    emit({type: 'warning', message: `ended ${ended.length} agent process ${ended.length === 1 ? 'group' : 'groups'} a killed run left running (pid ${ended.join(', ')})`})
  }
  trackProcessGroups(new ProcessRegistry(registryFile))

  const gitSetup = await createGitGuard({plan, planFile: file, cwd, strictScope: options.strictScope ?? false, root: options.root})
  const git = gitSetup.guard
  if (gitSetup.notice) emit({type: 'warning', message: gitSetup.notice})
  if (git) {
    const cleaned = await git.start((id) => row(id).status === 'in_progress' && row(id).agentId !== '')
    for (const message of cleaned) emit({type: 'warning', message})
  }

  const everythingDone = order.every((id) => row(id).status === 'completed')
  if (!everythingDone && !stopping) {
    const pre = plan.preVerification
    if (pre.length > 0) {
      emit({type: 'verification-started', phase: 'pre', command: pre.map((c) => c.script).join('\n')})
      const log = logFile(cwd, file, 'pre-verification', new Date().toISOString().replace(/[:.]/g, '-'))
      const result = await runCommands(pre, {cwd, logFile: log, signal: options.signal})
      emit({type: 'verification-finished', phase: 'pre', ok: result.ok, attempts: 1, log})
      if (!result.ok) {
        emit({type: 'warning', message: `pre-execution verification failed, nothing launched: ${result.reason} (log: ${log})`})
        return finish(stopping ? exitCodes.interrupted : exitCodes.failed)
      }
    }
  }

  // Edits made while nothing else happens (a re-queue, an answer) are picked up by polling.
  lastSeenMtime = mtimeOf(file)
  // So are files that soft dependencies wait for.
  const softWaits = softTargets.length > 0
  const poll = setInterval(() => {
    if (stopping) return
    const mtime = mtimeOf(file)
    if (mtime !== lastSeenMtime) void persist().then(schedule)
    else if (softWaits && running.size < concurrency) void schedule()
  }, options.pollMs ?? 250)
  poll.unref()

  try {
    // The first pass's write adds missing rows and records what we found, with its launches.
    dirty = true
    for (;;) {
      await schedule()
      await done
      if (stopping || storeError || failFastTripped) break
      // A last look at the file: a person may have re-queued an agent just as the rest finished.
      await persist()
      // Meanwhile another pass (a poll, a write's hand edits) may have launched some: wait for them too.
      if (running.size === 0 && ![...assessAgents(view()).values()].some((a) => a.kind === 'ready')) break
      done = new Promise<void>((resolve) => (finished = resolve))
    }
  } finally {
    clearInterval(poll)
    options.signal?.removeEventListener('abort', abort)
  }

  if (stopping) {
    await persist()
    return finish(exitCodes.interrupted)
  }

  for (const message of git?.report() ?? []) emit({type: 'warning', message})
  const allCompleted = order.every((id) => row(id).status === 'completed')
  let verificationFailed = false
  if (allCompleted && !storeError) verificationFailed = !(await verifyAfter())
  await persist()
  if (storeError) emit({type: 'warning', message: `the plan could not be written: ${storeError.message}`})
  const exitCode = stopping
    ? exitCodes.interrupted
    : allCompleted && !verificationFailed && !storeError
      ? exitCodes.ok
      : exitCodes.failed
  return finish(exitCode)

  async function verifyAfter(): Promise<boolean> {
    let ok = true
    if (settings.build) {
      ok = await verifyPhase('build', [{lang: 'sh', script: settings.build, position: plan.settings.position ?? zeroSpan}], 'build')
    }
    if (ok && plan.integrationTests.length > 0) {
      ok = await verifyPhase('integration', plan.integrationTests, 'integration')
    }
    return ok
  }

  async function verifyPhase(
    phase: 'build' | 'integration',
    commands: Plan['integrationTests'],
    key: 'build' | 'integration'
  ): Promise<boolean> {
    const previous = /fail \((\d+) attempts?\)/.exec(state.meta[key] ?? '')
    const attempts = (previous ? Number(previous[1]) : 0) + 1
    emit({type: 'verification-started', phase, command: commands.map((c) => c.script).join('\n')})
    const log = logFile(cwd, file, phase, attempts)
    const result = await runCommands(commands, {cwd, logFile: log, signal: options.signal})
    state.meta[key] = result.ok ? 'pass' : `fail (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'})`
    emit({type: 'verification-finished', phase, ok: result.ok, attempts, log})
    if (!result.ok) emit({type: 'warning', message: `${phase} failed: ${result.reason} (log: ${log})`})
    return result.ok
  }

  function finish(exitCode: number): RunPlanResult {
    trackProcessGroups(undefined)
    const scorecard: Scorecard = {
      ...computeScorecard(plan, state),
      peakConcurrency,
      discoveries: discoveries.map((d) => `${d.agent}: ${d.text}`)
    }
    if (scorecard.wallClockMs === undefined) scorecard.wallClockMs = Date.now() - runStart
    emit({type: 'run-finished', exitCode, scorecard})
    return {exitCode, scorecard}
  }
}

const zeroSpan = {start: {line: 1, column: 1, offset: 0}, end: {line: 1, column: 1, offset: 0}}

/**
 * Options for one agent: flags win, then the agent's own fields, then front
 * matter; except the model, where an agent's own `model:` wins (model names
 * differ per runner, and a plan picks a bigger model for its hardest agent).
 */
function agentOptions(flags: RunnerOptions | undefined, plan: Plan, agent: Agent): RunnerOptions {
  const settings = plan.settings
  const field = (key: string): string | undefined => agent.fields[key]?.value.trim() || undefined
  const number = (value: string | undefined): number | undefined =>
    value === undefined || Number.isNaN(Number(value)) ? undefined : Number(value)
  return {
    model: field('model') ?? flags?.model ?? settings.model,
    permissionMode: flags?.permissionMode ?? field('permission_mode') ?? settings.permissionMode,
    allowedTools:
      flags?.allowedTools ??
      (field('allowed_tools')?.replace(/^\[|\]$/g, '').split(',').map((t) => t.trim().replace(/^`|`$/g, '')).filter(Boolean) ??
        settings.allowedTools),
    maxTurns: flags?.maxTurns ?? number(field('max_turns')) ?? settings.maxTurns,
    maxBudgetUsd: flags?.maxBudgetUsd ?? number(field('max_budget_usd')) ?? settings.maxBudgetUsd,
    env: flags?.env
  }
}

function dependsOnTransitively(agents: ReadonlyMap<string, Agent>, id: string, ancestor: string): boolean {
  const seen = new Set<string>()
  const stack = [...(agents.get(id)?.dependsOn ?? []), ...(agents.get(id)?.softDependsOn ?? [])].map((d) => d.id)
  while (stack.length > 0) {
    const next = stack.pop()!
    if (next === ancestor) return true
    if (seen.has(next)) continue
    seen.add(next)
    const agent = agents.get(next)
    if (agent) stack.push(...agent.dependsOn.map((d) => d.id), ...agent.softDependsOn.map((d) => d.id))
  }
  return false
}

/**
 * Take a person's edits (and rows the file added) from a write's result into
 * the executor's state, cell by cell. Not the whole result: the executor may
 * have changed other cells while that write waited its turn, and those stand.
 */
function adoptEdits(state: TableState, result: WriteResult): void {
  for (const [agent, row] of result.state.rows) if (!state.rows.has(agent)) state.rows.set(agent, row)
  for (const edit of result.humanEdits) {
    const merged = result.state.rows.get(edit.agent)
    if (edit.agent === '') {
      const meta = metaKeys.find(([, , label]) => label === edit.column)
      if (meta) state.meta[meta[0]] = result.state.meta[meta[0]]
      continue
    }
    const current = state.rows.get(edit.agent)
    if (!merged || !current) continue
    // A cell mdplan kept (its agent was running) stays as the executor has it now.
    if (result.conflicts.some((c) => c.agent === edit.agent && c.column === edit.column && c.winner === 'mdplan')) continue
    const cell = cells.find(([, column]) => column === edit.column)
    if (cell) current[cell[0]] = merged[cell[0]] as never
    else current.extra[edit.column] = merged.extra[edit.column] ?? ''
    const conflict = getNote(merged.notes, 'conflict')
    if (conflict) current.notes = setNote(current.notes, 'conflict', conflict)
  }
}

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim()
  return line.length > 160 ? `${line.slice(0, 157)}…` : line
}

function mtimeOf(file: string): number {
  try {
    return statSync(file).mtimeMs
  } catch {
    return 0
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

