import type {Agent} from '../plan/types.js'
import type {OpenQuestion} from '../protocol/read-answers.js'
import type {RunResult} from '../runners/runner.js'
import type {NotePatch} from '../git/git-guard.js'
import type {WriteResult} from '../store/plan-store.js'

/**
 * Everything that happens to a run. The driver turns each finished piece of
 * I/O into one of these and feeds them to `step` one at a time. Every event
 * carries the clock (`now`, ms), so `step` never reads one.
 */
export type ExecEvent = {
  now: number
  /**
   * More events arrived together with this one and follow at once: `step` records what it changes and
   * leaves the scheduling pass, the write and the end of the run to the last of them, so events that
   * arrive together share one pass and one write (the write of a run of a thousand agents is its
   * dearest step). The driver sets it; an event without it is handled alone, as before.
   */
  more?: boolean
} & (
  | {type: 'start'}
  /** `held`: where the rows holding a status mdplan does not know are in the file (absent: there are none). */
  | {type: 'write-done'; seq: number; result: WriteResult; held?: ReadonlyMap<string, string>}
  /** `repairable`: the table no longer parses (a person's edit); the run waits a while for the repair. */
  | {type: 'write-failed'; seq: number; error: string; repairable: boolean}
  /** The git base, snapshot or worktree of an attempt is ready (or could not be made: `error`). */
  | {type: 'prepared'; agent: string; attempt: number; cwd: string; notes: NotePatch; warnings: string[]; error?: string}
  | {type: 'agent-id'; agent: string; attempt: number; agentId: string}
  /** A child plan's progress, for its parent agent's Notes (`child: 3/7 completed`); with `key`, that note (a host's `slurm: 1234`; empty removes it). */
  | {type: 'progress'; agent: string; attempt: number; note: string; key?: string}
  /** What a running attempt has spent so far (running totals of this attempt, as its runner streams them). */
  | {type: 'spent'; agent: string; attempt: number; usage?: Record<string, number>; costUsd?: number}
  /** `endedAt`: the job ended before this run found it (a rerun collected it): when, by the job's own record (ms). */
  | {type: 'exited'; agent: string; attempt: number; result: RunResult; endedAt?: number}
  /** The scope check, commit or merge after an attempt finished. */
  /** `unchecked`: why the work was not looked at (a lost lock): the attempt ends as an interrupted one. */
  | {type: 'checked'; agent: string; attempt: number; notes: NotePatch; warnings: string[]; fail?: string; unchecked?: string}
  | {type: 'question-written'; agent: string; error?: string}
  /** The held work of an approved agent is merged or committed (`fail`: it could not be; `unchecked`: not looked at, a lost lock). */
  | {type: 'approved'; agent: string; notes: NotePatch; warnings: string[]; fail?: string; unchecked?: string}
  /** The file changed under mdplan (a person's save): merge it with a write. */
  | {type: 'file-changed'}
  /** The agents' definitions were edited during the run (new agents, prompts, dependencies). */
  | {type: 'plan-changed'; agents: readonly Agent[]; priority: ReadonlyMap<string, number>}
  /** Answers found under `## Open Questions`. */
  | {type: 'answers'; answered: ReadonlyMap<string, OpenQuestion>}
  /** Agents whose `creates` files exist (soft dependencies). */
  | {type: 'files'; created: ReadonlySet<string>}
  /** A timer: a rate-limit pause may be over. */
  | {type: 'tick'}
  /** Ctrl-C, SIGTERM, or the caller's signal. */
  | {type: 'abort'}
  /** The run lock is no longer this run's (removed, replaced, taken over): the table is not ours to write. */
  | {type: 'lock-lost'; reason: string}
  /** Something to tell the person that changes nothing (a plan edit described). */
  | {type: 'warning'; message: string}
  /** The last look at the file before finishing is done. */
  | {type: 'looked'}
)

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never
/** An event before the driver stamps its time. */
export type Input = DistributiveOmit<ExecEvent, 'now'>
