/**
 * What a notification says: one JSON object, the same for every target (a webhook's body, a command's stdin;
 * Slack's `text` and the desktop's line are its `text`). docs/notify.md describes each field; bump
 * `notifySchemaVersion` on any incompatible change.
 */
export const notifySchemaVersion = 1

/** The kinds of event a target may ask for (`events:`), in the order docs/notify.md lists them. */
export const notifyKinds = ['question', 'review_waiting', 'failed', 'usage_limit', 'run_finished', 'run_stopped'] as const

export type NotifyKind = (typeof notifyKinds)[number]

export interface NotifyEvent {
  v: typeof notifySchemaVersion
  /**
   * Stable across runs: the plan's key, the kind, the agent and the attempt (`plan@1a2b3c4d:failed:B:2`), so a
   * rerun that learns the same thing again queues nothing new, and a receiver can drop a duplicate by it.
   */
  id: string
  kind: NotifyKind
  /** ISO 8601 UTC: when the run learnt it. */
  time: string
  /** The plan file, absolute. */
  plan: string
  agent?: string
  attempt?: number
  /** One line for a person: `B asks: Which store should B use?`. */
  text: string
  /** A person has something to do: answer, review, look at a failure, start the run again. */
  needs_you: boolean
  /** `run_finished`, `run_stopped`: the run's exit code and its agents by status. */
  exit_code?: number
  counts?: Record<string, number>
  /** `usage_limit`: the account that waits, and until when (ISO 8601 UTC). */
  account?: string
  until?: string
}

/** Whether `kind` is one a target may name. */
export function isNotifyKind(kind: unknown): kind is NotifyKind {
  return typeof kind === 'string' && (notifyKinds as readonly string[]).includes(kind)
}
