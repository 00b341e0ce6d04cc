import type {Agent} from '../plan/types.js'
import type {TableState} from '../store/table-state.js'
import type {ExecRow, ExecTable} from './exec-row.js'
import type {OpenQuestion} from '../protocol/read-answers.js'
import type {RunResult} from '../runners/runner.js'
import type {AssessmentCache} from '../schedule/assessment-cache.js'

/**
 * Where an attempt is. It holds its agent's slot from the moment the
 * scheduler picks it until it is settled, through every write, git check,
 * commit and merge:
 *
 *   recording ─write done─▶ preparing ─git ready─▶ running ─exit─▶ checking ─git done─▶ (settled)
 *
 * - recording: the row says `in_progress`; the write that puts it on disk is under way.
 * - preparing: on disk; the git base, snapshot or worktree is being made.
 * - running: the agent's process lives.
 * - checking: the process ended; its scope is checked, its work committed or merged.
 */
export type Phase = 'recording' | 'preparing' | 'running' | 'checking'

export type ResumeKind = 'fresh' | 'retry' | 'answer' | 'orphan' | 'review'

export interface Attempt {
  agent: string
  /** 1-based attempt number. */
  attempt: number
  phase: Phase
  /** When the scheduler picked it (ms). */
  startedAt: number
  /**
   * The account it runs on and that account's cap, as they were when it was picked (docs/limits.md,
   * "Accounts"): a person who edits a running agent's runner does not move its attempt to another account.
   * Absent: no cap (a child plan's, or no account has one).
   */
  account?: {name: string; cap: number}
  /** The sequence number of the write that records the launch. */
  recordedBy: number
  /** The Agent ID: drawn up front, resumed, or reported by the CLI. */
  sessionId?: string
  /** The session resumed, if any. */
  resumeSession?: string
  resumeKind: ResumeKind
  /** The row before the launch: a launch that never reaches the disk is taken back. */
  previous: ExecRow
  /** The answered question this attempt resumes with. */
  answer?: OpenQuestion
  /** The note a person sent the agent's work back with (`review: rejected: <note>`): this attempt goes on with it. */
  review?: string
  /** Its work is held for a person's review when it completes (decided when its process ends: the check holds it). */
  held?: boolean
  /** The process result, while its git check runs. */
  result?: RunResult
  /** When its job ended by the job's own record, when that was before this run found it (a collected job): its Duration ends there. */
  endedAt?: number
  /** A kill was asked for (Ctrl-C, SIGTERM). */
  killed: boolean
  /**
   * Slots of the run's cap it holds: 1 for an agent; for a child plan, the
   * share of the cap its own run may use, so nesting never multiplies processes.
   */
  slots: number
  /** Where it runs (when the plan declares hosts). */
  host?: string
  /** Its job's unique name on a remote host, in the row's Notes (`job: <host> <key>`) before it is submitted. */
  key?: string
  /** A rerun found the row's job still named: attach to it by its key rather than start anew. */
  reattach?: boolean
  /** The key of an earlier job whose folder this one runs in: its session was made there, its work is there (the row's `work:`). */
  work?: string
  /** What it has spent so far, as its runner streams it (opencode's steps, a script's `USAGE:` lines). */
  spent?: {tokens?: number; usd?: number}
  /** Ended because the agent's own budget was spent (`2.1M of 2M tokens`): settled as that, with no attempt used. */
  overBudget?: string
}

export interface WriteState {
  /** The sequence number of the last write issued. */
  seq: number
  /** The sequence number of the last write that reached the disk. */
  doneSeq: number
  inflight: boolean
  /** The table changed since the last write was issued. */
  dirty: boolean
  /** Why the last write failed; launching waits until a write succeeds again. */
  failed?: string
  /** When writes began to fail (ms): with nothing running, the run waits this long for a repair. */
  failedSince?: number
  /**
   * The last write found the table unreadable (damaged, or its section gone: a `git checkout` of a plan
   * committed before its first run): what the file said of every row is lost until a write succeeds.
   */
  unreadable?: boolean
  /**
   * The table as the file had it after the last write that reached it (at first: as read). What differs
   * from it when the run ends unable to write is kept in the journal, so nothing the run knew is lost.
   */
  onDisk: TableState
}

/**
 * A usage limit is a state of the account behind a runner on a host (the credentials it uses there), not of
 * one agent: a circuit breaker. While an account waits, nothing launches on it; agents running on it go on,
 * and other accounts keep launching.
 */
export interface AccountWait {
  /** What the limit was (`usage limit (…)`), for the plan's line and the messages. */
  what: string
  /** When it resets (the CLI said so) or when mdplan's backoff ends (ms). */
  at: number
  /** The CLI named the reset: the wait never fails an attempt, however long. */
  reset: boolean
  /** When launching there may go on (ms): `at`, plus a margin after a named reset. */
  until: number
  /** The sequence number of the last write issued when a limit last said so (a person's older edit does not clear it). */
  reportedSeq?: number
}

/** What the executor knows. `step` owns it: no other code changes it. */
export interface ExecState {
  agents: readonly Agent[]
  byId: ReadonlyMap<string, Agent>
  /** Agent IDs in plan order. */
  order: readonly string[]
  /** Longest remaining path from each agent: launched first. */
  priority: ReadonlyMap<string, number>
  /** The table as it should be on disk, its Notes as values (exec-row.ts renders it for the store). */
  table: ExecTable
  /** Live attempts, one per agent at most. */
  attempts: Map<string, Attempt>
  write: WriteState
  /**
   * The highest attempt number each agent has had: in the logs on disk when the run started, then in
   * this run's spawns and settlements. A new attempt takes the next (attempt-number.ts).
   */
  attemptsSeen: Map<string, number>
  /** Attempts a person granted by setting a row back to `pending`. */
  extraAttempts: Map<string, number>
  /** Held rows (a status mdplan does not know) already warned about, with the text warned about. */
  heldWarned: Map<string, string>
  /** Agents whose failure was a configuration error: not retried in this run. */
  noRetry: Set<string>
  /** Transient failures (network, server) retried in a row, per agent. */
  transientRetries: Map<string, number>
  /** Pauses each agent's attempts caused in this run, in total (ms): bounded by the config's `maxPauseMs`. */
  pausedFor: Map<string, number>
  /** needs_input agents whose question has an answer, as read from the file. */
  answered: Map<string, OpenQuestion>
  /** Agents whose `creates` files all exist (their soft dependants may start). */
  filesCreated: ReadonlySet<string>
  /**
   * Agents a person approved (their row set to `completed` while their work was held for review) whose work is
   * being merged or committed now: their dependants wait until it is in (docs/review.md).
   */
  approving: Set<string>
  /** Questions whose `## Open Questions` entry is being written. */
  questionsPending: Set<string>
  discoveries: Array<{agent: string; text: string}>
  stopping: boolean
  /** Why the run lock was lost, once it was: nothing launches or is written to the table any more. */
  lockLost?: string
  failFastTripped: boolean
  /** Launches of every account wait until then (network or server trouble). */
  pausedUntil: number
  pauseMs: number
  /** Accounts (a runner on a host) waiting for a usage limit to reset: nothing launches on them meanwhile (account-waits.ts). */
  waits: Map<string, AccountWait>
  /** The next backoff of each account whose limits named no reset (doubles, capped at 15 minutes). */
  accountPauseMs: Map<string, number>
  /** A wait that was said to make no progress possible before it ends (said once per end). */
  stalledUntil?: number
  /**
   * The run ended with agents that only a reset would let launch (no `--wait-for-reset`): the earliest of
   * those resets (ms), and the accounts. The run's exit code says so.
   */
  limited?: {until: number; accounts: string[]}
  /**
   * The plan's budget as this run saw it (budget-check.ts): the level it last said (`warn`, `reached`: each
   * said once), the `budget reached:` line while it is, and whether that held agents back when the run ended
   * (`held`) or ended the running ones (`stopped`, `on_budget: stop`). The run's exit code says so.
   */
  budget?: {said?: 'warn' | 'reached'; reached?: string; held?: boolean; stopped?: boolean}
  peakConcurrency: number
  /** The last look at the file before finishing: none yet, under way, or done with nothing new. */
  finalLook: 'none' | 'requested' | 'done'
  finished: boolean
  /** The first launch (ms), for the scorecard. */
  firstLaunchAt?: number
  /**
   * What each agent's last attempt settled in this run took, in ms (its row's Duration is that, rounded):
   * the run's own scorecard counts these instead of the rounded cells.
   */
  tookMs?: Map<string, number>
  /** Hosts that stayed unreachable longer than their lease: no new attempt goes there while the pool has another. */
  hostsLost: Set<string>
  /** The last scheduling pass's assessments, which the next pass brings up to date (schedule-pass.ts). */
  assessed?: AssessmentCache
  /** An event of a batch (`more`) asked for a scheduling pass: the batch's last event makes it. */
  passDue?: boolean
  /** An event of a batch may retry a failed write (a timer, a save): the batch's last event does. */
  retryDue?: boolean
  /**
   * The run started from a table nothing runs in (a finished run, rows set back to `pending`): its
   * first launch starts a new timing (`Started:`), so the report times this run, not the first one.
   */
  newTiming?: boolean
}
