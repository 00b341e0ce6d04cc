import type {SnapshotResult} from './take-snapshot.js'

export interface SharedSnapshots {
  /**
   * A snapshot that started at `since` or later: the one under way, else the
   * last one taken when it is that recent, else a new one (after the one under
   * way, if any, so git is asked once at a time).
   */
  take(since: number): Promise<SnapshotResult>
  /**
   * The working tree may have changed at `at` in a way a launch's snapshot
   * must see: an agent whose process ended then was checked (its window
   * closed), or mdplan wrote to git (a commit, a merge).
   */
  touched(at: number): void
  /** When the tree last changed that way: a launch shares no snapshot older than that. */
  readonly touchedAt: number
  /**
   * mdplan writes to git (a commit, a merge): no snapshot is taken or shared until it is done, and then
   * only one started after it (one taken halfway would show the agent's files not yet committed, and
   * blame them on an agent launched meanwhile). Call the function it returns when the write is over.
   */
  writing(): () => void
}

/**
 * Snapshots shared by launches and checks that come together. A launch's
 * snapshot is its agent's "before": any snapshot taken since the last agent
 * that finished had ended (and since mdplan's last commit) serves, because
 * every agent that could have written since is still running and overlaps the
 * new agent's window. So a launch right after the check that made it ready
 * reuses that check's snapshot instead of asking git again: one `git status`
 * per link of a chain instead of two.
 */
export function sharedSnapshots(snapshot: () => Promise<SnapshotResult>, clock: () => number = Date.now): SharedSnapshots {
  let pending: {startedAt: number; promise: Promise<SnapshotResult>} | undefined
  let last: {startedAt: number; promise: Promise<SnapshotResult>} | undefined
  let next: Promise<SnapshotResult> | undefined
  let touchedAt = 0
  let writes = 0
  let writesDone: Promise<void> = Promise.resolve()
  let allDone = (): void => {}
  const start = (): Promise<SnapshotResult> => {
    const started = {startedAt: clock(), promise: snapshot()}
    pending = started
    void started.promise.then(
      (result) => {
        if (pending === started) pending = undefined
        if (result.ok && (!last || last.startedAt <= started.startedAt)) last = started
      },
      () => pending === started && (pending = undefined)
    )
    return started.promise
  }
  const take = (since: number): Promise<SnapshotResult> => {
    // A write under way: wait for it, then only a snapshot started after it serves.
    if (writes > 0) return writesDone.then(() => take(Math.max(since, touchedAt)))
    if (pending && pending.startedAt >= since) return pending.promise
    if (!pending && last && last.startedAt >= since) return last.promise
    if (!pending) return start()
    const after = (): Promise<SnapshotResult> => {
      next = undefined
      return start()
    }
    next ??= pending.promise.then(after, after)
    return next
  }
  return {
    take,
    touched(at) {
      touchedAt = Math.max(touchedAt, at)
    },
    get touchedAt() {
      return touchedAt
    },
    writing() {
      if (writes++ === 0) writesDone = new Promise((resolve) => (allDone = resolve))
      let over = false
      return () => {
        if (over) return
        over = true
        touchedAt = Math.max(touchedAt, clock())
        if (--writes === 0) allDone()
      }
    }
  }
}
