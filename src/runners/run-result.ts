import type {RunResult} from './runner.js'
import type {FailureKind} from './failure-kind.js'
import {exitReason, processReason} from '../process/process-reason.js'
import type {SpawnResult} from '../process/process-types.js'
import {usageLine} from '../protocol/usage-line.js'

/** What a runner read of one attempt, for the fields every RunResult says alike. */
export interface AttemptReading {
  /** The runner's verdict (the process's part of it: `exitedCleanly`). */
  ok: boolean
  agentId?: string
  finalText: string
  /** The executable, as a failed start names it. */
  file: string
  timeoutMs?: number
  /** What the agent was last seen doing, which a timeout's reason says. */
  status?: string
  /** Why it failed in the CLI's own words, when the process's end does not say it (before `exit N: …`). */
  said?: string
  durationMs: number
}

/** An agent CLI's reading: the common one, plus what kind of failure it was. */
export interface CliReading extends AttemptReading {
  /** A rate or usage limit (retry later). */
  rateLimited: boolean
  /** A resume the CLI refused for not knowing the session (relaunch). */
  unknownSession: boolean
  /** The failure's kind from the CLI's words, asked only when nothing above (and no end of the process) explains it. */
  kind: () => FailureKind | undefined
  /** Words the reason further, knowing the kind (codex's hint for a refused key). */
  hint?: (reason: string, kind: FailureKind | undefined) => string
}

/** Exit 0, neither timed out nor interrupted: the process's part of an attempt's success. */
export function exitedCleanly(spawn: SpawnResult): boolean {
  return spawn.exitCode === 0 && !spawn.timedOut && !spawn.interrupted
}

/**
 * The RunResult of a plain process (the shell runner, a command template), and the part every runner's result
 * shares: the runner's verdict, the agent and its final text; when it failed, why (the process's end: timeout,
 * interrupt, failed start, signal; else the CLI's words; else its exit code and last stderr line); how the
 * process ended and how long the attempt took.
 */
export function runResult(spawn: SpawnResult, reading: AttemptReading): RunResult {
  return {
    ok: reading.ok,
    agentId: reading.agentId,
    finalText: reading.finalText,
    reason: reading.ok ? undefined : (processReason(spawn, reading.file, reading.timeoutMs, reading.status) ?? reading.said ?? exitReason(spawn, reading.file)),
    exitCode: spawn.exitCode,
    signal: spawn.signal,
    timedOut: spawn.timedOut,
    interrupted: spawn.interrupted,
    spawnFailed: spawn.spawnFailed,
    durationMs: reading.durationMs
  }
}

/**
 * The RunResult of an agent CLI (claude, codex, gemini, opencode): `runResult`, plus whether the failure was a
 * rate limit, an unknown session, a configuration error (retrying cannot help) or a passing trouble. A process
 * that timed out, was interrupted or never started has no kind, nor has a rate limit or an unknown session.
 */
export function cliRunResult(spawn: SpawnResult, reading: CliReading): RunResult {
  const {ok, rateLimited, unknownSession} = reading
  const ended = spawn.timedOut || spawn.interrupted || spawn.spawnFailed
  const kind = ok || ended || rateLimited || unknownSession ? undefined : reading.kind()
  const result = runResult(spawn, reading)
  if (result.reason !== undefined && reading.hint) result.reason = reading.hint(result.reason, kind)
  return {...result, rateLimited, configError: kind === 'config', transient: kind === 'transient', unknownSession}
}

/**
 * The result of a plain process (the shell runner, a command template): it succeeded when it exited 0, and its
 * stdout is the final text the result protocol reads.
 */
export function scriptResult(spawn: SpawnResult, input: {agentId: string; file: string; timeoutMs?: number; started: number}): RunResult {
  const {agentId, file, timeoutMs, started} = input
  const result = runResult(spawn, {ok: exitedCleanly(spawn), agentId, finalText: spawn.stdout, file, timeoutMs, durationMs: Date.now() - started})
  // What the script says it spent (`USAGE: tokens=1500 usd=0.02`), as a CLI's usage would say.
  return {...result, ...usageLine(spawn.stdout)}
}
