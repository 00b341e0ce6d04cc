
export interface LockOwner {
  pid: number
  host: string
  /** ISO 8601. */
  startedAt: string
  /** On the lock of a symlink's own path: the plan it pointed at when the run began. */
  target?: string
}

/** What a run that finds a plan's lock held may do with it. */
export type LockVerdict =
  /** Its owner lives (or cannot be judged from here and refreshed it lately): wait for it, or stop it. */
  | {kind: 'held'}
  /** Its owner lives on this host but is stopped (Ctrl-Z, SIGSTOP): still held; say how to continue it. */
  | {kind: 'stopped'}
  /** Its owner is gone (a dead pid on this host; a lock not refreshed within the stale window from another host). */
  | {kind: 'take-over'}

/**
 * The lock rule, pure. A live owner on this host is never taken over, however
 * long since its last refresh: a stopped run (Ctrl-Z) resumes with `fg` and
 * would find its agents running twice. Only a dead owner on this host, a
 * lock from another host (whose pid means nothing here) left unrefreshed for
 * the stale window, or a lock whose taker died before writing its owner, is
 * taken over.
 */
export function lockVerdict(input: {
  owner: LockOwner | undefined
  /** Milliseconds since the lock directory was made or last refreshed. */
  ageMs: number
  staleMs: number
  /** A lock with no owner.json older than this was left by a taker that died. */
  ownerlessMs: number
  host: string
  isAlive: (pid: number) => boolean
  isStopped: (pid: number) => boolean
}): LockVerdict {
  const {owner} = input
  if (!owner) return input.ageMs > input.ownerlessMs ? {kind: 'take-over'} : {kind: 'held'}
  if (owner.host === input.host) {
    if (!input.isAlive(owner.pid)) return {kind: 'take-over'}
    return input.isStopped(owner.pid) ? {kind: 'stopped'} : {kind: 'held'}
  }
  return input.ageMs > input.staleMs ? {kind: 'take-over'} : {kind: 'held'}
}
