import type {RunEvent} from '../events.js'
import type {OpenQuestion} from '../protocol/read-answers.js'
import type {Question} from '../protocol/interpret-result.js'
import type {TableState} from '../store/table-state.js'
import type {ResumeKind} from './exec-state.js'
import type {JobRef} from '../hosts/host.js'

/** An event for the reporters, without its time (the driver stamps it). */
export type Emitted = RunEvent extends infer E ? (E extends unknown ? Omit<E, 'time'> : never) : never

/**
 * Everything the executor does. `step` returns these; the driver performs
 * them and turns their results into events.
 */
export type ExecEffect =
  /** Write the table (merging a person's edits). Answered by `write-done` or `write-failed` with the same `seq`. */
  | {type: 'write'; seq: number; table: TableState; running: ReadonlySet<string>}
  /** Make the attempt's git base, snapshot or worktree. Answered by `prepared`. */
  /** `earlier`: an earlier attempt may have run and left work in the tree (a killed run's, a failed one's). */
  | {type: 'prepare'; agent: string; attempt: number; notes: string; earlier: boolean; job?: JobRef}
  /** Start the agent's process. Answered by `exited` (and `agent-id` when the CLI reports one). */
  | {
      type: 'spawn'
      agent: string
      attempt: number
      cwd: string
      /** Slots of the cap it holds (a child plan runs with this concurrency). */
      slots: number
      resumeKind: ResumeKind
      resumeSession?: string
      agentId?: string
      retry?: {previousFailure: string; checkpoint?: string}
      answer?: OpenQuestion
      /** The note a person sent its work back with: it goes to the agent as an answer does. */
      review?: string
      discoveries: Array<{agent: string; text: string}>
      job?: JobRef
    }
  /** End an attempt's process tree; `detach`: a remote job is only no longer followed, left running (a lost lock). */
  | {type: 'kill'; agent: string; detach?: boolean}
  /** Check what an attempt changed; commit or merge its work (`hold`: keep it unmerged, for a person's review). Answered by `checked`. */
  | {type: 'check'; agent: string; attempt: number; succeeded: boolean; hold?: boolean; job?: JobRef}
  /** Merge or commit the held work of an agent a person approved. Answered by `approved`. */
  | {type: 'approve'; agent: string}
  /** Forget an attempt's git snapshot (it ended without a check). */
  | {type: 'abandon'; agent: string}
  /** Add or replace the agent's entry under `## Open Questions`. Answered by `question-written`. */
  | {type: 'record-question'; agent: string; question: Question}
  | {type: 'emit'; event: Emitted}
  /** Send a `tick` at this time (ms). */
  | {type: 'timer'; at: number}
  /** Look at the file once more (edits, answers, new agents) before finishing. Answered by `looked`. */
  | {type: 'look'}
  | {type: 'finish'}
